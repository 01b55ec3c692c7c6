/**
 * The sandbox check of an untrusted testbench. Verilator's own preprocessor (`verilator -E`) expands macros
 * and includes first, so `$sys``tem` built by token pasting or a DPI import hidden behind a `define is seen
 * as the compiler will see it; the `line directives it keeps map every finding back to the original file:line.
 * Includes are checked in the original text before the preprocessor opens anything.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ChorusError, throwIfAborted, type Diagnostic } from '../../protocol';
import { findExecutable, runCapped } from './exec';
import { checkIncludes, realOrSelf, within } from './includes';
import { jailCommand } from './jail';
import { applyRules } from './rules';
import { scan, type Token } from './scan';

export interface SandboxCheckOptions {
  verilatorPath: string;
  /** Included files must live here (or in an include folder). Default: the testbench's folder. */
  workspaceRoot?: string;
  /** -I folders, relative ones from workspaceRoot; files in them may be included too. */
  includeDirs?: string[];
  signal?: AbortSignal;
  /**
   * The build's arguments that change preprocessing: defines (-D, +define+) and --timing or --no-timing,
   * since `ifdef VERILATOR_TIMING can hide code from a check run without the build's flags. Default
   * ['--timing'], as the product builds. Compiling `PreprocessedTestbench.text` instead closes this gap entirely.
   */
  preprocessArgs?: string[];
  /** Bounds on the preprocessor run; defaults suit any real testbench (they take well under a second). */
  limits?: PreprocessLimits;
}

export interface PreprocessLimits {
  /** Wall-clock bound; default 30 s. */
  wallMs?: number;
  /** CPU-time bound; default 15 s. */
  cpuSeconds?: number;
  /** Largest expanded text; default 16 MiB. */
  maxOutputBytes?: number;
  /** Address space of the preprocessor; default 4 GiB (the build's memory limit when the build runs the check). */
  memoryBytes?: number;
}

export interface SandboxViolation {
  /** Absolute path of the original file. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based; on a line produced by a macro it counts in the expanded text. */
  column: number;
  /** Machine-readable rule name, such as 'system-task', 'dpi', 'file-output' (see rules.ts). */
  rule: string;
  message: string;
}

export interface PreprocessedTestbench {
  violations: SandboxViolation[];
  /**
   * The preprocessed text that was checked, with absolute paths in its `line directives; undefined when the
   * check stopped before preprocessing. Compiling exactly this text (instead of the file) leaves no gap
   * between what was checked and what is built.
   */
  text?: string;
  /** Real paths of every file the preprocessor read (the testbench first). */
  files: string[];
}

/** Bounds on the preprocessor itself: a macro bomb is rejected, not waited for. */
const defaultLimits: Required<PreprocessLimits> = { wallMs: 30_000, cpuSeconds: 15, maxOutputBytes: 16 * 1024 ** 2, memoryBytes: 4 * 1024 ** 3 };

/** Preprocesses the testbench with `verilator -E` and checks the expanded text; [] means it may be built. */
export async function checkTestbench(testbenchPath: string, opts: SandboxCheckOptions): Promise<SandboxViolation[]> {
  return (await preprocessTestbench(testbenchPath, opts)).violations;
}

/** checkTestbench, also returning the checked text and the files it came from. */
export async function preprocessTestbench(testbenchPath: string, opts: SandboxCheckOptions): Promise<PreprocessedTestbench> {
  throwIfAborted(opts.signal);
  const tb = resolve(testbenchPath);
  assertReadableFile(tb);
  const verilator = findExecutable(opts.verilatorPath);
  if (!verilator) {
    throw new ChorusError('missing_tool', `Verilator not found at "${opts.verilatorPath}": install it with \`apt-get install verilator\` or set chorus.verilatorPath.`);
  }
  const limits = { ...defaultLimits, ...opts.limits };
  const tbReal = realOrSelf(tb);
  const workspace = resolve(opts.workspaceRoot ?? dirname(tb));
  const includeDirs = (opts.includeDirs ?? []).map((d) => resolve(workspace, d));
  const allowedRoots = [workspace, ...includeDirs].map(realOrSelf);
  // Verilator searches the folder it runs in: the testbench's, as when a user runs it by hand.
  const cwd = dirname(tb);
  const tmp = mkdtempSync(join(tmpdir(), 'chorus-check-'));
  try {
    const mdir = join(tmp, 'obj');
    mkdirSync(mdir);
    const includeViolations = checkIncludes(tb, { cwd, includeDirs, mdir, allowedRoots });
    if (includeViolations.length) return { violations: sortUnique(includeViolations), files: [tbReal] };

    const args = ['-E', ...(opts.preprocessArgs ?? ['--timing']), '--Mdir', mdir, ...includeDirs.map((d) => `-I${d}`), tb];
    // No bwrap here: the preprocessor runs no testbench code; limits bound a macro bomb.
    const spec = jailCommand(verilator, args, {
      workDir: tmp,
      useBwrap: false,
      limits: { cpuSeconds: limits.cpuSeconds, memoryBytes: limits.memoryBytes },
    });
    const run = await runCapped(spec, { cwd, signal: opts.signal, timeoutMs: limits.wallMs, maxStdoutBytes: limits.maxOutputBytes });
    // Verilator's wrapper script reports its binary's death by a limit as "threw signal N".
    const limited = run.signal !== null || /%Error: Verilator threw signal \d+|std::bad_alloc/.test(run.stderr);
    if (run.timedOut || run.overflowed || limited) {
      const what = run.overflowed
        ? `expands to more than ${limits.maxOutputBytes} bytes`
        : `exhausts the preprocessor's time (${limits.cpuSeconds} s of CPU, ${Math.round(limits.wallMs / 1000)} s in all) or memory (${Math.round(limits.memoryBytes / 1024 ** 2)} MiB)`;
      const violation = { file: tb, line: 1, column: 1, rule: 'preprocess-limit', message: `The testbench ${what} (a macro that expands without bound?): simplify its macros.` };
      return { violations: [violation], files: [tbReal] };
    }
    if (run.code !== 0) throw preprocessError(run.stderr, cwd, verilator, run.code);

    const text = absoluteLineDirectives(run.stdout, cwd);
    const tokens = scan(text, tb);
    const violations = [...violationsOf(tokens), ...includedOutside(tokens, tbReal, allowedRoots)];
    const files = [tbReal, ...includedFiles(tokens).filter((f) => f !== tbReal)];
    return { violations: sortUnique(violations), text, files };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Checks already-preprocessed text (pure; never throws). `fallbackFile` names text before any `line directive. */
export function checkPreprocessedText(text: string, fallbackFile: string): SandboxViolation[] {
  return sortUnique(violationsOf(scan(text, fallbackFile)));
}

/** `file:line:column: message` lines, at most `max` of them, for logs and the model's feedback. */
export function formatViolations(violations: SandboxViolation[], max = 20): string {
  const lines = violations.slice(0, max).map((v) => `${v.file}:${v.line}:${v.column}: ${v.message} [${v.rule}]`);
  if (violations.length > max) lines.push(`… and ${violations.length - max} more.`);
  return lines.join('\n');
}

/** The ChorusError('rejected') for a non-empty list of violations, located at the first. */
export function rejectionError(violations: SandboxViolation[]): ChorusError {
  const first = violations[0];
  const summary = violations.length === 1 ? 'the sandbox rejected the testbench' : `the sandbox rejected the testbench (${violations.length} findings)`;
  return new ChorusError(
    'rejected',
    `${first?.message ?? 'Rejected.'} — ${summary}:\n${formatViolations(violations)}`,
    first ? { file: first.file, line: first.line, column: first.column } : undefined,
  );
}

/** Violations as build diagnostics (severity error, rule appended), for BuildResult and the model's feedback. */
export function violationDiagnostics(violations: SandboxViolation[]): Diagnostic[] {
  return violations.map((v) => ({ file: v.file, line: v.line, column: v.column, severity: 'error', message: `${v.message} [${v.rule}]` }));
}

function violationsOf(tokens: Token[]): SandboxViolation[] {
  return applyRules(tokens).map(({ token, rule, message }) => ({ file: token.file, line: Math.max(1, token.line), column: token.column, rule, message }));
}

/** Files entered by `line directives (level 1) that lie outside the allowed roots, located at the include. */
function includedOutside(tokens: Token[], tbReal: string, roots: string[]): SandboxViolation[] {
  const out: SandboxViolation[] = [];
  for (const t of tokens) {
    const target = t.lineTarget;
    if (!target || isPseudoFile(target.file)) continue;
    const real = realOrSelf(target.file);
    if (real === tbReal || within(real, roots)) continue;
    out.push({
      file: t.file,
      line: Math.max(1, t.line),
      column: 1,
      rule: 'include-outside-workspace',
      message: `"${target.file}" lies outside the workspace: keep included files inside the workspace or an include folder.`,
    });
  }
  return out;
}

function includedFiles(tokens: Token[]): string[] {
  const files = new Set<string>();
  for (const t of tokens) {
    if (t.lineTarget && !isPseudoFile(t.lineTarget.file)) files.add(realOrSelf(t.lineTarget.file));
  }
  return [...files];
}

function isPseudoFile(name: string): boolean {
  return name === '' || name.startsWith('<');
}

/** Rewrites `line "relative" to absolute paths so the text means the same from any folder. */
function absoluteLineDirectives(text: string, cwd: string): string {
  return text.replace(/^(`line[ \t]+\d+[ \t]+")((?:[^"\\\n]|\\.)*)(")/gm, (_m, head: string, name: string, tail: string) =>
    isPseudoFile(name) ? `${head}${name}${tail}` : `${head}${resolve(cwd, name.replace(/\\(.)/g, '$1')).replace(/["\\]/g, '\\$&')}${tail}`,
  );
}

function preprocessError(stderr: string, cwd: string, verilator: string, code: number | null): ChorusError {
  const m = /%Error[^:]*: ([^:\n]+):(\d+):(?:(\d+):)? ([^\n]*)/.exec(stderr);
  if (m) {
    const location = { file: resolve(cwd, m[1] ?? ''), line: Number(m[2]), column: m[3] ? Number(m[3]) : undefined };
    return new ChorusError('bad_input', `${m[4] ?? 'Preprocessing failed'}: fix the testbench (Verilator's preprocessor stopped here).`, location);
  }
  const first = stderr.split('\n').find((l) => l.trim()) ?? `exit ${code}`;
  return new ChorusError('failed', `${verilator} -E failed: ${first}. Check the Verilator installation (chorus.verilatorPath).`);
}

function assertReadableFile(p: string): void {
  let ok = false;
  try {
    ok = statSync(p).isFile();
  } catch {
    ok = false;
  }
  if (!ok) throw new ChorusError('bad_input', `Testbench not found or not a file: ${p}. Pass the path of a .sv file.`, { file: p });
}

function sortUnique<T extends SandboxViolation>(list: T[]): SandboxViolation[] {
  const seen = new Set<string>();
  const out: SandboxViolation[] = [];
  for (const v of list) {
    const key = `${v.file}\0${v.line}\0${v.column}\0${v.rule}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ file: v.file, line: v.line, column: v.column, rule: v.rule, message: v.message });
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
}
