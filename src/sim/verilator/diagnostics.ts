/**
 * Turns Verilator's compile messages and the simulator's runtime messages into structured diagnostics that
 * point at the user's files (as the user named them), never at generated C++.
 */
import { basename, resolve } from 'node:path';
import type { Diagnostic, Severity } from '../../protocol';
import { linkBase, linkedFileOf } from './pathLinks';

/** Maps a path as a tool printed it (absolute, or a bare base name in assertion messages) to the user's name. */
export type FileNamer = (printed: string) => string;

/**
 * A namer over the user's files: matches by resolved path first, then by base name; unknown paths pass through.
 * A file with spaces in its path reaches Verilator as a link (pathLinks.ts): its link's path and base name,
 * which the simulator prints, name it too.
 */
export function fileNamer(files: { given: string; display: string }[]): FileNamer {
  const byPath = new Map(files.map((f) => [resolve(f.given), f.display]));
  const byBase = new Map<string, string>();
  for (const f of files) if (!byBase.has(basename(f.given))) byBase.set(basename(f.given), f.display);
  for (const f of files) if (!byBase.has(linkBase(f.given))) byBase.set(linkBase(f.given), f.display);
  const linked = linkedFileOf(files.map((f) => f.given));
  return (printed) => {
    const found = byPath.get(resolve(printed)) ?? byPath.get(resolve(linked(printed) ?? printed));
    return found ?? (printed.includes('/') ? undefined : byBase.get(printed)) ?? printed;
  };
}

const COMPILE_HEAD = /^%(Error|Warning)(?:-([A-Za-z0-9_]+))?: (.*)$/;
const WITH_COLUMN = /^(.+?):(\d+):(\d+): (.*)$/;
const WITH_LINE = /^(.+?):(\d+): (.*)$/;

function locate(rest: string): { file: string; line: number; column: number; message: string } | undefined {
  const c = WITH_COLUMN.exec(rest);
  if (c) return { file: c[1], line: Number(c[2]), column: Number(c[3]), message: c[4] };
  const l = WITH_LINE.exec(rest);
  if (l) return { file: l[1], line: Number(l[2]), column: 0, message: l[3] };
  return undefined;
}

/**
 * Verilator's `%Error: file:line:col: message` and `%Warning-CODE: …` lines. Messages without a location
 * (such as a missing top module) are attributed to `fallbackFile`; the closing "Exiting due to" line is dropped.
 */
export function parseVerilatorOutput(output: string, name: FileNamer, fallbackFile: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const raw of output.split('\n')) {
    const head = COMPILE_HEAD.exec(raw.trimEnd());
    if (!head) continue;
    const [, level, code, rest] = head;
    if (/^Exiting due to \d+/.test(rest)) continue;
    const severity: Severity = level === 'Error' ? 'error' : 'warning';
    const where = locate(rest);
    const message = `${(where?.message ?? rest).trim()}${code ? ` [${code}]` : ''}`;
    out.push({
      file: where ? name(where.file) : fallbackFile,
      line: where?.line ?? 0,
      column: where?.column ?? 0,
      severity,
      message,
    });
  }
  return dedupe(out);
}

const RUNTIME_ASSERT = /^\[(\d+)\] %(Error|Warning|Fatal|Info): (.+?):(\d+): (?:Assertion failed in [^:]+: ?)?(.*)$/;
const RUNTIME_STOP = /^%Error: (.+?):(\d+): Verilog \$stop\s*$/;
const RUNTIME_OTHER = /^%(Error|Warning): (.*)$/;

/**
 * The simulator's messages: `$error`/`$fatal`/`$warning` print `[time] %Error: file:line: …` (base name;
 * newer Verilators print `%Fatal` for `$fatal`); a stop prints `%Error: file:line: Verilog $stop` (dropped
 * when it only repeats the message just reported); runtime errors print `%Error: …`.
 */
export function parseRuntimeOutput(output: string, name: FileNamer, fallbackFile: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trimEnd();
    const a = RUNTIME_ASSERT.exec(line);
    if (a) {
      const [, time, level, file, lineNo, text] = a;
      // Verilator 5.006 prints both $error and $fatal as %Error.
      const what =
        level === 'Fatal' ? 'Fatal error' : level === 'Error' ? 'Error' : level === 'Warning' ? 'Warning' : 'Info';
      const severity: Severity =
        level === 'Fatal' || level === 'Error' ? 'error' : level === 'Warning' ? 'warning' : 'info';
      out.push({
        file: name(file),
        line: Number(lineNo),
        column: 0,
        severity,
        message: `${what} at time ${time}${text ? `: ${text}` : ''}`,
      });
      continue;
    }
    const s = RUNTIME_STOP.exec(line);
    if (s) {
      const file = name(s[1]);
      const lineNo = Number(s[2]);
      const prev = out[out.length - 1];
      // Assertion messages name the file by its base name, the stop line by its full path.
      if (prev && prev.severity === 'error' && basename(prev.file) === basename(file) && prev.line === lineNo) continue;
      out.push({
        file,
        line: lineNo,
        column: 0,
        severity: 'error',
        message: '$stop reached: the simulation stopped with an error',
      });
      continue;
    }
    const o = RUNTIME_OTHER.exec(line);
    if (o) {
      const where = locate(o[2]);
      out.push({
        file: where ? name(where.file) : fallbackFile,
        line: where?.line ?? 0,
        column: where?.column ?? 0,
        severity: o[1] === 'Error' ? 'error' : 'warning',
        message: (where?.message ?? o[2]).trim(),
      });
    }
  }
  return dedupe(out);
}

/** The first compiler error of a failed C++ build, for a diagnostic on the testbench. */
export function firstCxxError(output: string): string | undefined {
  const lines = output.split('\n');
  const err =
    lines.find((l) => /\berror\b:/.test(l)) ?? lines.find((l) => /undefined reference|collect2|\*\*\*/.test(l));
  return err?.trim().slice(0, 400);
}

function dedupe(list: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.severity}|${d.file}|${d.line}|${d.column}|${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
