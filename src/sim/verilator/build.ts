/**
 * Builds a testbench plus the DUT into a coverage simulator: sandbox check, then a content-keyed cache lookup
 * under a per-key lock, then (on a miss) a fresh compile. Failures come back as diagnostics on the user's
 * files; a missing tool is a ChorusError('missing_tool').
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ChorusError, silentLogger, throwIfAborted, type Diagnostic } from '../../protocol';
import { checkTestbench, violationDiagnostics } from '../sandbox/check';
import { readValidEntry, sha256 } from '../cache/buildEntry';
import { cacheLayout, CACHE_LAYOUT, type CacheLayout } from '../cache/cacheDir';
import { withCacheLock } from '../cache/cacheLock';
import { cachePlace, guardWrites, infrastructureError, unwritableFault } from './infrastructure';
import { buildFlags, compile, UNROLL_FLAGS } from './compile';
import { fileNamer, type FileNamer } from './diagnostics';
import { splitDesignWarnings } from './designWarnings';
import { designFlagArgs } from './lintDesign';
import { readInputs, type SourceFile } from './inputs';
import { SIM_MAIN_CPP } from './simMain';
import { leaseEntry } from '../cache/cacheLease';
import { evictCache } from '../cache/cacheSize';
import { cacheMaxBytes, memoryLimitBytes, toolMemoryBytes } from '../process/limits';
import { findTestbenchTop } from './testbenchTop';
import { detectToolchain, type Toolchain } from './toolchain';
import type { BuildInput, BuildResult, SimOptions, VerilatorInfo } from '../types';
import { detectVerilator } from './verilator';

export { BASE_FLAGS, buildFlags, COVERAGE_FLAGS, UNROLL_FLAGS } from './compile';

const DEFAULT_BUILD_TIMEOUT_MS = 10 * 60_000;

export interface BuildResultDetail extends BuildResult {
  /** The build ran past its wall-clock bound. */
  timedOut?: boolean;
}

export async function buildSimulation(given: BuildInput, opts: SimOptions): Promise<BuildResultDetail> {
  // The design's include folders and macros join the build's flags, so they are in its cache key too.
  const input: BuildInput = opts.design
    ? { ...given, extraFlags: [...(given.extraFlags ?? []), ...designFlagArgs(opts.design)] }
    : given;
  const started = performance.now();
  const logger = opts.logger ?? silentLogger;
  throwIfAborted(opts.signal);
  const { dut, tb } = await readInputs(input.dutFiles, input.testbench);
  const verilator = await detectVerilator(opts.verilatorPath);
  const toolchain = await detectToolchain();
  const display = fileNamer([...dut, tb].map((f) => ({ given: f.absolute, display: f.given })));
  const elapsed = (): number => Math.round(performance.now() - started);
  const result = (partial: Omit<BuildResultDetail, 'ms'>): BuildResultDetail => ({ ...partial, ms: elapsed() });

  const workspace = resolve(opts.workspaceRoot ?? dirname(tb.absolute));
  const includeDirs = (input.includeDirs ?? []).map((d) => resolve(workspace, d));
  const key = buildKey(verilator, toolchain, dut, tb, input, includeDirs);

  // The sandbox check runs on every build, cached or not: rules and workspace may differ between callers.
  const rejected = await sandboxCheck(
    tb,
    dut,
    verilator,
    { ...opts, includeDirs: input.includeDirs, extraFlags: input.extraFlags, ownHarness: input.ownHarness },
    display,
  );
  if (rejected) return result({ ...rejected, cacheHit: false, notes: [], key });

  const top = input.tbTop ?? findTestbenchTop(tb.text);
  if (!top) {
    const diag: Diagnostic = {
      file: tb.given,
      line: 1,
      column: 0,
      severity: 'error',
      message: 'No module declared in the testbench: it must contain a top module (module tb; … endmodule).',
    };
    return result({ status: 'compile_error', diagnostics: [diag], cacheHit: false, notes: [], key });
  }

  const layout = cacheLayout(opts.cacheDir);
  await ensureCacheFolders(layout);
  const timeoutMs = input.buildTimeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS;
  // A full or read-only cache fails the build where it is written: the machine's fault, never the testbench's.
  const built = await guardWrites(cachePlace(layout.root), () =>
    withCacheLock(join(layout.builds, key), { signal: opts.signal, timeoutMs, logger }, async () => {
      const hit = await readValidEntry(layout.builds, key);
      if (hit) {
        logger.debug(`Simulation build ${key.slice(0, 12)}: cache hit.`);
        await leaseEntry(dirname(hit.binary));
        return result({
          status: 'ok',
          binary: hit.binary,
          ...splitRenamed(hit.stamp.diagnostics, tb.absolute, display),
          cacheHit: true,
          notes: hit.stamp.notes,
          key,
        });
      }
      const fresh = await compile({
        layout,
        key,
        verilator,
        toolchain,
        dut,
        tb,
        top,
        includeDirs,
        extraFlags: input.extraFlags ?? [],
        deadline: Date.now() + timeoutMs,
        opts,
        logger,
      });
      return result({ ...fresh, ...splitRenamed(fresh.diagnostics, tb.absolute, display), cacheHit: false, key });
    }),
  );
  if (!built.cacheHit) {
    // After the build's own temporary folder is gone, so it does not count; the new simulator is leased.
    const maxBuilds = Number(process.env.CHORUS_CACHE_MAX_BUILDS) || 200;
    await evictCache(layout, { maxBytes: cacheMaxBytes(opts.cacheMaxBytes), maxBuilds }).catch((err: unknown) =>
      logger.debug(`Cache eviction skipped: ${String(err)}`),
    );
  }
  return built;
}

async function ensureCacheFolders(layout: CacheLayout): Promise<void> {
  try {
    for (const dir of [layout.builds, layout.runtime, layout.tmp, layout.ccache]) await mkdir(dir, { recursive: true });
  } catch (err) {
    const fault = await unwritableFault(layout.root, err, cachePlace(layout.root));
    if (fault) throw infrastructureError(fault, cachePlace(layout.root), err);
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ChorusError(
      'failed',
      `Cannot create the build cache in ${layout.root} (${code}): set CHORUS_CACHE_DIR to a writable folder.`,
      undefined,
      { cause: err },
    );
  }
}

function buildKey(
  verilator: VerilatorInfo,
  toolchain: Toolchain,
  dut: SourceFile[],
  tb: SourceFile,
  input: BuildInput,
  includeDirs: string[],
): string {
  return sha256(
    JSON.stringify({
      layout: CACHE_LAYOUT,
      verilator: [verilator.path, verilator.version],
      compiler: toolchain.compilerId,
      flags: [...buildFlags(verilator.features), ...UNROLL_FLAGS],
      extra: input.extraFlags ?? [],
      includeDirs,
      top: input.tbTop ?? null,
      // Paths matter too: coverage.dat records them.
      files: [...dut, tb].map((f) => [f.absolute, sha256(f.text)]),
      main: sha256(SIM_MAIN_CPP),
    }),
  ).slice(0, 32);
}

async function sandboxCheck(
  tb: SourceFile,
  dut: SourceFile[],
  verilator: VerilatorInfo,
  opts: SimOptions & {
    includeDirs?: string[] | undefined;
    extraFlags?: string[] | undefined;
    ownHarness?: boolean | undefined;
  },
  display: FileNamer,
): Promise<{ status: 'rejected' | 'compile_error'; diagnostics: Diagnostic[] } | undefined> {
  // The check must see the text the build compiles: the design's files first, in the build's order, with the
  // same macro definitions, so no `ifdef branch and no macro of the design escapes it.
  const defines = (opts.extraFlags ?? []).filter((f) => f.startsWith('-D') || f.startsWith('+define+'));
  try {
    const violations = await checkTestbench(tb.absolute, {
      designFiles: dut.map((f) => f.absolute),
      allowFileReads: opts.ownHarness,
      preprocessArgs: ['--timing', ...defines],
      verilatorPath: verilator.path,
      workspaceRoot: opts.workspaceRoot,
      // The design's include folders (its -I flags) too: its files are preprocessed with the testbench.
      includeDirs: [
        ...(opts.includeDirs ?? []),
        ...(opts.extraFlags ?? []).filter((f) => f.startsWith('-I')).map((f) => f.slice(2)),
      ],
      signal: opts.signal,
      limits: { memoryBytes: toolMemoryBytes(memoryLimitBytes(opts.memoryLimitBytes)) },
    });
    if (!violations.length) return undefined;
    return { status: 'rejected', diagnostics: renamed(violationDiagnostics(violations), display) };
  } catch (err) {
    // The preprocessor stopped on the testbench (a missing include, a broken macro): that is a compile error.
    if (err instanceof ChorusError && err.kind === 'bad_input' && err.location) {
      const loc = err.location;
      return {
        status: 'compile_error',
        diagnostics: [
          {
            file: display(loc.file),
            line: loc.line ?? 0,
            column: loc.column ?? 0,
            severity: 'error',
            message: err.message,
          },
        ],
      };
    }
    throw err;
  }
}

/** The build's messages (testbench, errors) apart from the design's own lint warnings, both renamed for the user. */
function splitRenamed(
  list: Diagnostic[],
  testbench: string,
  display: FileNamer,
): { diagnostics: Diagnostic[]; designWarnings: Diagnostic[] } {
  const split = splitDesignWarnings(list, testbench, dirname(testbench));
  return { diagnostics: renamed(split.build, display), designWarnings: renamed(split.design, display) };
}

function renamed(list: Diagnostic[], display: FileNamer): Diagnostic[] {
  return list.map((d) => ({ ...d, file: display(d.file) }));
}
