/**
 * A design file as the compiler sees it, line for line: Verilator's preprocessor (`verilator -E`) expands its
 * macros and includes, and the `line directives it writes put every expanded line back on the line of the
 * original file it came from. Text analysis then reads macro calls (`` `FFLARNC(…) ``) it cannot parse
 * unexpanded, and every position it reports is still a line of the user's file.
 */
import { dirname, resolve } from 'node:path';
import { ChorusError, type Logger } from '../../protocol';
import { designFlagArgs } from './lintDesign';
import { memoryLimitBytes, MAX_TREE_PROCESSES, toolMemoryBytes } from '../process/limits';
import { parseLineDirective } from './lineDirectiveName';
import { linkForVerilator } from './pathLinks';
import { runGroup } from '../process/processGroup';
import { scrubbedEnv } from '../sandbox/jail';
import type { DesignFlags } from '../types';
import { detectVerilator } from './verilator';

/**
 * The expanded text of `file` with exactly its line structure: line N holds what original line N expanded to
 * (several expanded lines joined by spaces, in order); text from included files is left out (an include line
 * becomes empty). `cwd` resolves relative names in the directives; `real` maps a name Verilator was given as a
 * link (pathLinks.ts) back to the file.
 */
export function alignPreprocessed(
  text: string,
  file: string,
  cwd: string,
  real: (printed: string) => string = (p) => p,
): string {
  const target = resolve(file);
  const lines: string[] = [];
  let current = '';
  let next = 1;
  // Expanded text never moves backwards: a line attributed before the last one filled joins that one.
  let last = 0;
  for (const raw of text.split('\n')) {
    const d = parseLineDirective(raw);
    if (d) {
      current = real(resolve(cwd, d.file));
      next = d.line;
      continue;
    }
    // Messages of the preprocessor itself (stderr, in the same stream) are no text of the file.
    if (raw.startsWith('%')) continue;
    const here = next++;
    if (current !== target || !raw.trim()) continue;
    const slot = Math.max(here, last);
    lines[slot - 1] = lines[slot - 1] === undefined ? raw.trimEnd() : `${lines[slot - 1]} ${raw.trim()}`;
    last = slot;
  }
  return Array.from({ length: lines.length }, (_v, i) => lines[i] ?? '').join('\n');
}

export interface PreprocessOptions {
  verilatorPath?: string | undefined;
  logger?: Logger;
  signal?: AbortSignal | undefined;
  memoryLimitBytes?: number;
}

/** `file` preprocessed with the design's include folders and macros, aligned to its lines (`alignPreprocessed`). */
export async function preprocessDesignFile(
  file: string,
  flags: DesignFlags,
  opts: PreprocessOptions = {},
): Promise<string> {
  const verilator = await detectVerilator(opts.verilatorPath);
  const path = resolve(file);
  const cwd = dirname(path);
  const memoryBytes = toolMemoryBytes(memoryLimitBytes(opts.memoryLimitBytes));
  // A path with spaces reaches Verilator as a link (pathLinks.ts); the directives name the link.
  const links = await linkForVerilator(['-E', '--timing', ...designFlagArgs(flags), path]);
  opts.logger?.debug(`verilator ${links.args.join(' ')}`);
  const run = await runGroup(verilator.path, links.args, {
    cwd,
    env: scrubbedEnv(),
    timeoutMs: 60_000,
    signal: opts.signal,
    outputCapBytes: 64 * 1024 ** 2,
    treeLimits: { memoryBytes, processes: MAX_TREE_PROCESSES },
  }).finally(() => links.dispose());
  if (run.timedOut || run.code !== 0) {
    const first = run.output.split('\n').find((l) => l.startsWith('%Error')) ?? `exit ${run.code ?? run.signal}`;
    throw new ChorusError(
      'bad_input',
      `Verilator's preprocessor stopped on this file: ${links.realText(first.trim())}`,
      { file: path },
    );
  }
  return alignPreprocessed(run.output, path, cwd, links.real);
}
