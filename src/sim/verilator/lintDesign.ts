/**
 * One Verilator pass over the design alone (`--lint-only`, the build's flags), before any testbench exists:
 * its warnings are the design's, reported once; an error is a construct Verilator cannot build, reported with
 * its file and line and what to do, before minutes of stimulus generation.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ChorusError, type Diagnostic, type Logger } from '../../protocol';
import { BASE_FLAGS } from './compile';
import { parseVerilatorOutput } from './diagnostics';
import { designErrorHint } from './designWarnings';
import { elaboratedPortWidths } from './elaboratedPorts';
import { elaboratedPortWidthsFromJson } from './elaboratedPortsJson';
import { memoryLimitBytes, MAX_TREE_PROCESSES, toolMemoryBytes } from '../process/limits';
import { linkForVerilator } from './pathLinks';
import { runGroup } from '../process/processGroup';
import { scrubbedEnv } from '../sandbox/jail';
import type { DesignFlags } from '../types';
import { detectVerilator } from './verilator';

export type { DesignFlags };

/** Verilator arguments for the include folders and macros (the same for the design lint and the build). */
export function designFlagArgs(flags: DesignFlags, cwd = process.cwd()): string[] {
  return [
    ...(flags.includeDirs ?? []).map((d) => `-I${resolve(cwd, d)}`),
    ...Object.entries(flags.defines ?? {}).map(([name, value]) =>
      value === undefined ? `+define+${name}` : `+define+${name}=${value}`,
    ),
  ];
}

export interface LintInput extends DesignFlags {
  /** The design's source files, in compile order. */
  files: string[];
  top: string;
}

export interface LintOptions {
  verilatorPath?: string | undefined;
  logger?: Logger;
  signal?: AbortSignal | undefined;
  memoryLimitBytes?: number | undefined;
  /** Default 120 s. */
  timeoutMs?: number;
}

export interface LintResult {
  /** Verilator's warnings about the design's files. */
  warnings: Diagnostic[];
  /** The top's port widths as Verilator elaborated them (macros, packages and `parameters` applied). */
  portWidths: Map<string, number>;
}

/** The build's flags, less what only a build needs (C++ output, coverage, the main file). */
const LINT_FLAGS = [...BASE_FLAGS.filter((f) => !['--cc', '--exe', '--coverage', '-fno-split'].includes(f))];

/**
 * The design's lint warnings. Throws ChorusError('bad_input') at the first error, located in the user's file,
 * when Verilator cannot read or build the design.
 */
export async function lintDesign(input: LintInput, opts: LintOptions = {}): Promise<LintResult> {
  const work = await mkdtemp(join(tmpdir(), 'chorus-lint-'));
  try {
    return await lintIn(work, input, opts);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function lintIn(work: string, input: LintInput, opts: LintOptions): Promise<LintResult> {
  const xmlPath = join(work, 'design.xml');
  const verilator = await detectVerilator(opts.verilatorPath);
  const files = input.files.map((f) => resolve(f));
  const cwd = files.length ? dirname(files[files.length - 1]) : process.cwd();
  const memoryBytes = toolMemoryBytes(memoryLimitBytes(opts.memoryLimitBytes));
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const common = [
    ...LINT_FLAGS,
    '--top-module',
    input.top,
    ...designFlagArgs(input),
    ...Object.entries(input.parameters ?? {}).map(([name, value]) => `-G${name}=${value}`),
    ...files,
  ];
  // Two passes: `--lint-only` reports every warning (the XML pass stops before some, such as CASEINCOMPLETE);
  // `--xml-only` gives the elaborated port widths.
  const pass = async (mode: string[]) => {
    // Paths with spaces reach Verilator as links (pathLinks.ts); what it prints is mapped back.
    const links = await linkForVerilator([...mode, ...common]);
    opts.logger?.debug(`verilator ${links.args.join(' ')}`);
    const run = await runGroup(verilator.path, links.args, {
      cwd,
      env: scrubbedEnv(),
      timeoutMs,
      signal: opts.signal,
      treeLimits: { memoryBytes, processes: MAX_TREE_PROCESSES },
    }).finally(() => links.dispose());
    if (run.timedOut)
      throw new ChorusError(
        'failed',
        `Verilator did not finish reading the design within ${Math.round(timeoutMs / 1000)} s: check the design for very large generate loops.`,
      );
    const found = parseVerilatorOutput(
      run.output,
      (p) => links.real(resolve(cwd, p)),
      files[files.length - 1] ?? cwd,
    ).map((d) => ({ ...d, message: links.realText(d.message) }));
    const error = found.find((d) => d.severity === 'error');
    if (error || run.code !== 0) {
      const first = run.output.split('\n').find((l) => l.trim()) ?? `exit ${run.code ?? run.signal}`;
      const more = found.filter((d) => d.severity === 'error').length - 1;
      const message = error
        ? `The design does not build with Verilator: ${error.message}${more > 0 ? ` (and ${more} more error${more === 1 ? '' : 's'})` : ''} (${designErrorHint(error.message)}).`
        : `Verilator failed on the design: ${links.realText(first.trim())}`;
      throw new ChorusError(
        'bad_input',
        message,
        error && error.line ? { file: error.file, line: error.line, column: error.column } : undefined,
      );
    }
    return found.filter((d) => d.severity === 'warning');
  };
  const warnings = await pass(['--lint-only']);
  // Newer Verilators (5.050) dropped `--xml-only` for `--json-only`: the same tree, read by its own parser.
  if (!verilator.features.xmlOnly) {
    const jsonPath = join(work, 'design.json');
    // --Mdir: `--json-only` also writes a `.tree.meta.json` there, and must never write into the user's folders.
    await pass(['--json-only', '--json-only-output', jsonPath, '--Mdir', join(work, 'obj')]);
    return { warnings, portWidths: elaboratedPortWidthsFromJson(await readFile(jsonPath, 'utf8').catch(() => '')) };
  }
  await pass(['--xml-only', '--xml-output', xmlPath]);
  const xml = await readFile(xmlPath, 'utf8').catch(() => '');
  return { warnings, portWidths: elaboratedPortWidths(xml) };
}
