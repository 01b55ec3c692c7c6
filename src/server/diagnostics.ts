/**
 * Diagnostics: syntax errors from the analysis; the design's lint warnings from the last run (Verilator's, on the
 * user's RTL); and, when a setting asks, coverage holes as Information.
 */
import { resolve } from 'node:path';
import { DiagnosticSeverity, DiagnosticTag, type Diagnostic } from 'vscode-languageserver';
import {
  proofText,
  waiverText,
  type DesignAnalysis,
  type Diagnostic as ProtocolDiagnostic,
  type Hole,
} from '../protocol';

export function syntaxDiagnostics(analysis: DesignAnalysis): Diagnostic[] {
  return analysis.errors.map((e) => {
    const line = Math.max(0, e.line - 1);
    const character = Math.max(0, e.column - 1);
    return {
      range: { start: { line, character }, end: { line, character: character + 1 } },
      severity: DiagnosticSeverity.Error,
      source: 'chorus',
      message: e.message,
    };
  });
}

/**
 * The non-toggle holes of one DUT file (its absolute path) as Information diagnostics; a point proven unreachable
 * is no hole: a Hint that fades the dead line, saying which proof; a waived point a Hint saying the waiver (the
 * line is live code, so it is not faded).
 */
export function holeDiagnostics(holes: Hole[], file: string): Diagnostic[] {
  return holes
    .filter((h) => h.file === file && h.kind !== 'toggle')
    .map((h) => {
      const range = { start: { line: h.line - 1, character: 0 }, end: { line: h.line - 1, character: 1000 } };
      const proof = proofText(h);
      if (proof !== undefined) {
        return {
          range,
          severity: DiagnosticSeverity.Hint,
          tags: [DiagnosticTag.Unnecessary],
          source: 'chorus coverage',
          message: `Proven unreachable: ${h.detail} (${proof})`,
        };
      }
      const waived = waiverText(h);
      if (waived !== undefined) {
        return {
          range,
          severity: DiagnosticSeverity.Hint,
          source: 'chorus coverage',
          message: `Waived: ${h.detail} (${waived})`,
        };
      }
      return {
        range,
        severity: DiagnosticSeverity.Information,
        source: 'chorus coverage',
        message: `Not covered: ${h.detail}${h.formal ? ` (formal: ${h.formal})` : ''}`,
      };
    });
}

/** The source of the design's lint diagnostics: never mixed with the testbench's messages or the coverage holes. */
export const LINT_SOURCE = 'chorus (Verilator lint)';

/** Verilator's `message [CODE]` as an LSP warning: the code in `code`, the whole line marked when there is no column. */
export function lintDiagnostic(d: ProtocolDiagnostic): Diagnostic {
  const code = /\s\[([A-Za-z0-9_]+)\]$/.exec(d.message);
  const line = Math.max(0, d.line - 1);
  const character = Math.max(0, d.column - 1);
  return {
    range: { start: { line, character: d.column ? character : 0 }, end: { line, character: 1000 } },
    severity: DiagnosticSeverity.Warning,
    source: LINT_SOURCE,
    message: code ? d.message.slice(0, code.index) : d.message,
    ...(code ? { code: code[1] } : {}),
  };
}

/**
 * The design warnings (`designWarnings`) of the last finished run per design, by file. A new run replaces the
 * warnings of every earlier run that shared a file with it, so each warning shows once, from the latest run.
 */
export class DesignWarnings {
  /** Per run: its DUT files and its warnings by file (absolute path). */
  private runs: { files: Set<string>; byFile: Map<string, Diagnostic[]> }[] = [];

  /** Replaces the warnings of runs sharing a file with `files`; returns every file whose warnings may have changed. */
  replace(files: string[], warnings: ProtocolDiagnostic[]): string[] {
    const touched = new Set<string>();
    const shares = (r: { files: Set<string> }) => files.some((f) => r.files.has(f));
    for (const r of this.runs.filter(shares)) for (const f of r.byFile.keys()) touched.add(f);
    this.runs = this.runs.filter((r) => !shares(r));
    const byFile = new Map<string, Diagnostic[]>();
    for (const w of warnings) {
      if (!w.file || w.line <= 0) continue;
      const file = resolve(w.file);
      byFile.set(file, [...(byFile.get(file) ?? []), lintDiagnostic(w)]);
      touched.add(file);
    }
    this.runs.push({ files: new Set(files), byFile });
    return [...touched];
  }

  /** The warnings on one file (absolute path), each once. */
  of(file: string): Diagnostic[] {
    const seen = new Set<string>();
    const out: Diagnostic[] = [];
    for (const r of this.runs) {
      for (const d of r.byFile.get(file) ?? []) {
        const key = `${d.range.start.line}:${d.range.start.character}:${d.message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(d);
      }
    }
    return out;
  }
}
