/**
 * The sandbox check of an untrusted testbench. Verilator's own preprocessor (`verilator -E`) expands macros
 * and includes first, so `$sys``tem` built by token pasting or a DPI import hidden behind a `define is seen
 * as the compiler will see it; the `line directives it keeps map every finding back to the original file:line.
 * The design's files are preprocessed before the testbench, in the build's order and with its flags, so a macro
 * the design defines (`` `ifdef WIDTH ``) hides nothing: the rules judge the testbench's part of that one text.
 * Includes are checked in the original text before the preprocessor opens anything.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ChorusError, throwIfAborted, type Diagnostic } from '../../protocol';
import { findExecutable, runCapped } from './exec';
import { checkIncludes, designTexts, realOrSelf, within } from './includes';
import { decodeDirectiveName } from '../verilator/lineDirectiveName';
import { linkForVerilator } from '../verilator/pathLinks';
import { bwrapAvailable, jailCommand } from './jail';
import { callsOf, includeCapableMacros } from './macros';
import { applyRules, type RuleOptions } from './rules';
import { scan, type Token } from './scan';

export interface SandboxCheckOptions {
  verilatorPath: string;
  /** Included files must live here (or in an include folder). Default: the testbench's folder. */
  workspaceRoot?: string | undefined;
  /** -I folders, relative ones from workspaceRoot; files in them may be included too. */
  includeDirs?: string[] | undefined;
  signal?: AbortSignal | undefined;
  /**
   * The build's arguments that change preprocessing: defines (-D, +define+) and --timing or --no-timing,
   * since `ifdef VERILATOR_TIMING can hide code from a check run without the build's flags. Default
   * ['--timing'], as the product builds. Compiling `PreprocessedTestbench.text` instead closes this gap entirely.
   */
  preprocessArgs?: string[];
  /** Bounds on the preprocessor run; defaults suit any real testbench (they take well under a second). */
  limits?: PreprocessLimits;
  /**
   * The design's source files, in the build's order: preprocessed before the testbench exactly as the build
   * compiles them, so their macros reach the testbench here too. Their own text is the user's and is not judged.
   */
  designFiles?: string[];
  /** CHORUS's own generated harness, which reads its stimulus file: the file-reading rules do not apply. */
  allowFileReads?: boolean | undefined;
  /** Run the preprocessor in the bubblewrap jail (only the design's folders visible); default: when it works. */
  useJail?: boolean;
}

export interface PreprocessLimits {
  /** Wall-clock bound; default 30 s. */
  wallMs?: number;
  /** CPU-time bound; default 15 s. */
  cpuSeconds?: number;
  /** Largest expanded text beyond twice its sources' size (the design's, the testbench's); default 16 MiB. */
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
const defaultLimits: Required<PreprocessLimits> = {
  wallMs: 30_000,
  cpuSeconds: 15,
  maxOutputBytes: 16 * 1024 ** 2,
  memoryBytes: 4 * 1024 ** 3,
};

/** Preprocesses the testbench with `verilator -E` and checks the expanded text; [] means it may be built. */
export async function checkTestbench(testbenchPath: string, opts: SandboxCheckOptions): Promise<SandboxViolation[]> {
  return (await preprocessTestbench(testbenchPath, opts)).violations;
}

/** checkTestbench, also returning the checked text and the files it came from. */
export async function preprocessTestbench(
  testbenchPath: string,
  opts: SandboxCheckOptions,
): Promise<PreprocessedTestbench> {
  throwIfAborted(opts.signal);
  const tb = resolve(testbenchPath);
  assertReadableFile(tb);
  const verilator = findExecutable(opts.verilatorPath);
  if (!verilator) {
    throw new ChorusError(
      'missing_tool',
      `Verilator not found at "${opts.verilatorPath}": install it with \`apt-get install verilator\` or set chorus.verilatorPath.`,
    );
  }
  const limits = { ...defaultLimits, ...opts.limits };
  const tbReal = realOrSelf(tb);
  const workspace = resolve(opts.workspaceRoot ?? dirname(tb));
  const includeDirs = (opts.includeDirs ?? []).map((d) => resolve(workspace, d));
  const designFiles = (opts.designFiles ?? []).map((f) => resolve(f));
  // The design's folders: a testbench may include the design's headers beside its sources.
  const allowedRoots = [...new Set([workspace, ...includeDirs, ...designFiles.map((f) => dirname(f))].map(realOrSelf))];
  // Verilator searches the folder it runs in: the testbench's, as when a user runs it by hand.
  const cwd = dirname(tb);
  const tmp = mkdtempSync(join(tmpdir(), 'chorus-check-'));
  try {
    const mdir = join(tmp, 'obj');
    mkdirSync(mdir);
    const includeCtx = { cwd, includeDirs, mdir, allowedRoots };
    const tbTexts = new Map<string, string>();
    const includeViolations = checkIncludes(tb, includeCtx, tbTexts);
    if (includeViolations.length) return { violations: sortUnique(includeViolations), files: [tbReal] };
    const sourceTexts = [...designTexts(designFiles, includeCtx).values(), ...tbTexts.values()];
    const macroViolations = computedIncludeCalls(tb, tbTexts.get(tbReal) ?? '', sourceTexts);
    if (macroViolations.length) return { violations: macroViolations, files: [tbReal] };

    // Paths with whitespace reach Verilator as links (pathLinks.ts): 5.006 cuts `line names at a space.
    const links = await linkForVerilator(
      [
        '-E',
        ...(opts.preprocessArgs ?? ['--timing']),
        '--Mdir',
        mdir,
        ...includeDirs.map((d) => `-I${d}`),
        ...designFiles,
        tb,
      ],
      tmp,
    );
    const args = links.args;
    // The preprocessor runs no testbench code; in the jail it cannot open a file outside the design's folders
    // even through a macro the checks above missed, and limits bound a macro bomb.
    const spec = jailCommand(verilator, args, {
      workDir: tmp,
      chdir: cwd,
      // The roots at their real paths, and the design's folders as named on the command line (a linked folder).
      readOnly: [...allowedRoots, ...designFiles.map((f) => dirname(f)), ...includeDirs, cwd, ...toolRoots(verilator)],
      useBwrap: opts.useJail ?? bwrapAvailable(),
      limits: { cpuSeconds: limits.cpuSeconds, memoryBytes: limits.memoryBytes },
    });
    // The bound is on what macros add: a long generated stimulus table is as big expanded as written, a macro
    // bomb grows without bound from a few lines.
    const sourceBytes = sourceTexts.reduce((n, t) => n + Buffer.byteLength(t), 0);
    const maxOutputBytes = limits.maxOutputBytes + 2 * sourceBytes;
    const run = await runCapped(spec, {
      cwd,
      signal: opts.signal,
      timeoutMs: limits.wallMs,
      maxStdoutBytes: maxOutputBytes,
    });
    // Verilator's wrapper script reports its binary's death by a limit as "threw signal N".
    const limited = run.signal !== null || /%Error: Verilator threw signal \d+|std::bad_alloc/.test(run.stderr);
    if (run.timedOut || run.overflowed || limited) {
      const what = run.overflowed
        ? `expands to more than ${maxOutputBytes} bytes (its sources are ${sourceBytes})`
        : `exhausts the preprocessor's time (${limits.cpuSeconds} s of CPU, ${Math.round(limits.wallMs / 1000)} s in all) or memory (${Math.round(limits.memoryBytes / 1024 ** 2)} MiB)`;
      const violation = {
        file: tb,
        line: 1,
        column: 1,
        rule: 'preprocess-limit',
        message: `The testbench ${what} (a macro that expands without bound?): simplify its macros.`,
      };
      return { violations: [violation], files: [tbReal] };
    }
    if (run.code !== 0) throw preprocessError(links.realText(run.stderr), cwd, verilator, run.code, allowedRoots);

    const text = absoluteLineDirectives(run.stdout, cwd, links.real);
    const tokens = testbenchPart(scan(text, tb), tbReal, designFiles.length > 0);
    // Fail closed: a testbench whose own part cannot be found in the text would otherwise be judged on nothing.
    if (
      designFiles.length &&
      !tokens.some((t) => t.lineTarget?.level === 1 && realOrSelf(t.lineTarget.file) === tbReal)
    ) {
      throw new ChorusError(
        'failed',
        `The sandbox check could not find ${tb} in Verilator's preprocessed text, so it was not built: report this with your Verilator version.`,
        { file: tb },
      );
    }
    const outside = includedOutside(tokens, tbReal, allowedRoots);
    // Text from a file outside the workspace is never judged, so no finding quotes it: the path alone is named.
    if (outside.length) return { violations: sortUnique(outside), files: [tbReal] };
    const violations = violationsOf(tokens, { allowFileReads: opts.allowFileReads });
    const files = [tbReal, ...includedFiles(tokens).filter((f) => f !== tbReal)];
    return { violations: sortUnique(violations), text, files };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The tokens of the testbench's part of the preprocessed text: everything from its own opening `line directive
 * on. The testbench is the last file on the command line, so all that follows its entry — headers it includes,
 * design files it includes, macros it expands — is read because of it (5.018+ writes no closing directives, so
 * nesting cannot be told apart). The design files before it are left out. Without design files, all of it.
 */
function testbenchPart(tokens: Token[], tbReal: string, withDesign: boolean): Token[] {
  if (!withDesign) return tokens;
  const from = tokens.findIndex((t) => t.lineTarget?.level === 1 && realOrSelf(t.lineTarget.file) === tbReal);
  return from < 0 ? [] : tokens.slice(from);
}

/** Calls in the testbench of a macro whose expansion reaches a computed `include, located at each call. */
function computedIncludeCalls(tb: string, tbText: string, texts: string[]): SandboxViolation[] {
  const calls = callsOf(scan(tbText, tb), includeCapableMacros(texts));
  return sortUnique(
    calls.map((t) => ({
      file: tb,
      line: t.line,
      column: t.column,
      rule: 'include-macro',
      message: `\`${t.text.slice(0, 60)} expands to an \`include of a computed name, which the sandbox cannot check before it is read: include files by a literal "name".`,
    })),
  );
}

/** The install folder of a tool given by path (its data lives beside its bin/), visible read-only in the jail. */
function toolRoots(executable: string): string[] {
  const real = realOrSelf(executable);
  return [dirname(dirname(real)), ...(process.env.VERILATOR_ROOT ? [process.env.VERILATOR_ROOT] : [])];
}

/** Checks already-preprocessed text (pure; never throws). `fallbackFile` names text before any `line directive. */
export function checkPreprocessedText(
  text: string,
  fallbackFile: string,
  options: RuleOptions = {},
): SandboxViolation[] {
  return sortUnique(violationsOf(scan(text, fallbackFile), options));
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
  const summary =
    violations.length === 1
      ? 'the sandbox rejected the testbench'
      : `the sandbox rejected the testbench (${violations.length} findings)`;
  return new ChorusError(
    'rejected',
    `${first?.message ?? 'Rejected.'} — ${summary}:\n${formatViolations(violations)}`,
    first ? { file: first.file, line: first.line, column: first.column } : undefined,
  );
}

/** Violations as build diagnostics (severity error, rule appended), for BuildResult and the model's feedback. */
export function violationDiagnostics(violations: SandboxViolation[]): Diagnostic[] {
  return violations.map((v) => ({
    file: v.file,
    line: v.line,
    column: v.column,
    severity: 'error',
    message: `${v.message} [${v.rule}]`,
  }));
}

function violationsOf(tokens: Token[], options: RuleOptions): SandboxViolation[] {
  return applyRules(tokens, options).map(({ token, rule, message }) => ({
    file: token.file,
    line: Math.max(1, token.line),
    column: token.column,
    rule,
    message,
  }));
}

/** Files entered by `line directives (level 1) that lie outside the allowed roots, located at the include. */
function includedOutside(tokens: Token[], tbReal: string, roots: string[]): SandboxViolation[] {
  const out: SandboxViolation[] = [];
  for (const t of tokens) {
    const target = t.lineTarget;
    // Entering a file (level 1) is what an include does; the directives inside it only renumber its lines.
    if (!target || target.level !== 1 || isPseudoFile(target.file)) continue;
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

/**
 * Rewrites each `line name as the absolute real path, so the text means the same from any folder: decoded
 * from Verilator's quoting (5.018+ writes `ü` as `\303\274`), relative names resolved, links made real, then
 * written back with only `\` and `"` escaped, as the scanner reads them.
 */
function absoluteLineDirectives(text: string, cwd: string, real: (printed: string) => string): string {
  return text.replace(
    /^(`line[ \t]+\d+[ \t]+")((?:[^"\\\n]|\\.)*)(")/gm,
    (_m, head: string, quoted: string, tail: string) => {
      const name = decodeDirectiveName(quoted);
      return isPseudoFile(name)
        ? `${head}${quoted}${tail}`
        : `${head}${real(resolve(cwd, name)).replace(/["\\]/g, '\\$&')}${tail}`;
    },
  );
}

function preprocessError(
  stderr: string,
  cwd: string,
  verilator: string,
  code: number | null,
  roots: string[],
): ChorusError {
  const m = /%Error[^:]*: ([^:\n]+):(\d+):(?:(\d+):)? ([^\n]*)/.exec(stderr);
  if (m) {
    const location = { file: resolve(cwd, m[1] ?? ''), line: Number(m[2]), column: m[3] ? Number(m[3]) : undefined };
    // A message about a file outside the workspace may quote that file's text: only its path is named.
    if (!within(realOrSelf(location.file), roots)) {
      return new ChorusError(
        'bad_input',
        `The testbench made the preprocessor read "${location.file}", outside the workspace: include files from the workspace or an include folder only.`,
        { file: location.file },
      );
    }
    return new ChorusError(
      'bad_input',
      `${m[4] ?? 'Preprocessing failed'}: fix the testbench (Verilator's preprocessor stopped here).`,
      location,
    );
  }
  const first = stderr.split('\n').find((l) => l.trim()) ?? `exit ${code}`;
  return new ChorusError(
    'failed',
    `${verilator} -E failed: ${first}. Check the Verilator installation (chorus.verilatorPath).`,
  );
}

function assertReadableFile(p: string): void {
  let ok = false;
  try {
    ok = statSync(p).isFile();
  } catch {
    ok = false;
  }
  if (!ok)
    throw new ChorusError('bad_input', `Testbench not found or not a file: ${p}. Pass the path of a .sv file.`, {
      file: p,
    });
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
