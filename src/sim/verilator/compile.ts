/**
 * One fresh build: Verilator (retried without `--unroll-count 0` when it rejects that), then make with the
 * cached runtime objects, the precompiled runtime header and ccache; the binary is committed to the cache.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { realpathSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ChorusError, type Diagnostic, type Logger } from '../../protocol';
import { commitEntry, fileSha256 } from '../cache/buildEntry';
import { leaseEntry } from '../cache/cacheLease';
import { ccacheMaxSize } from '../cache/cacheSize';
import type { CacheLayout } from '../cache/cacheDir';
import { cachePlace, infrastructureError, toolFault } from './infrastructure';
import { firstCxxError, parseVerilatorOutput } from './diagnostics';
import { linkForVerilator, type VerilatorArgs } from './pathLinks';
import type { SourceFile } from './inputs';
import { biggestConstruct, describeConstruct } from './bigDeclarations';
import {
  BUILD_FILE_BYTES,
  cacheMaxBytes,
  formatBytes,
  killedBy,
  limitFromExit,
  limitPhrase,
  MAX_TREE_PROCESSES,
  memoryLimitBytes,
  toolMemoryBytes,
  type LimitHit,
} from '../process/limits';
import { runGroup, type GroupRunResult } from '../process/processGroup';
import { jailCommand, scrubbedEnv } from '../sandbox/jail';
import {
  addPrecompiledHeader,
  CHORUS_MAKEFILE,
  CHORUS_MAKEFILE_TEXT,
  harvestRuntime,
  installRuntime,
  PCH_HEADER,
  PCH_TEXT,
  runtimePlan,
} from './runtimeObjects';
import { SIM_BINARY, SIM_MAIN_CPP, SIM_MAIN_FILE, SIM_PREFIX } from './simMain';
import { missingCompiler, missingCompilerError, type Toolchain } from './toolchain';
import type { BuildResult, SimOptions, VerilatorFeatures, VerilatorInfo } from '../types';

/**
 * Coverage builds: timing for SystemVerilog testbenches; no loop unrolling and no `split` (both make lines
 * read as false holes); BLKANDNBLK tolerated for real-world RTL; lint warnings reported, not fatal.
 */
export const BASE_FLAGS = [
  '--cc',
  '--exe',
  '--timing',
  '-fno-split',
  '-Wno-BLKANDNBLK',
  '-Wno-TIMESCALEMOD',
  '-Wno-fatal',
];
/**
 * Line (with branch), toggle and user coverage: what `--coverage` meant in 5.006. From 5.048 `--coverage` also
 * turns on expression and FSM coverage, so the kinds are named one by one and every version counts the same
 * line and branch points.
 */
export const COVERAGE_FLAGS = ['--coverage-line', '--coverage-toggle', '--coverage-user'];
/**
 * No procedural loop unrolling. In 5.006 `--unroll-count` also bounds generate loops and constant functions
 * (some designs then fail: the build retries without it); with `--unroll-limit` (5.048+) those have their own
 * bound, left at its default, and `--unroll-count 0` touches procedural loops only.
 */
export const UNROLL_FLAGS = ['--unroll-count', '0'];

/** The flags of a coverage build on this Verilator (before unrolling, files and the caller's own flags). */
export function buildFlags(features: VerilatorFeatures): string[] {
  return [...BASE_FLAGS, ...(features.coverageSplit ? COVERAGE_FLAGS : ['--coverage'])];
}
/** Below this cache cap no precompiled header is made. */
const PCH_MIN_CACHE_BYTES = 512 * 1024 ** 2;
/**
 * Verilator's own diagnostic that it cannot build with `--unroll-count 0`: an `%Error` line, not the command
 * line Verilator's wrapper echoes when its binary dies (that mentions the flag too).
 */
const UNROLL_REJECTED =
  /^%Error(?!: Command Failed)(?!: Verilator threw signal).*(BLKLOOPINIT|unroll-count|Loop unrolling took too long)/im;
/**
 * The same cause given on a continuation line of an `%Error`: a constant function with a loop (a package
 * function computing a port width) fails as "can't determine constant for FUNCREF", and only the indented
 * line under it says the loop's unrolling is why.
 */
const UNROLL_REASON =
  /^%Error(?!: Command Failed)(?!: Verilator threw signal)[^\n]*(?:\n[ \t]+[^\n]*)*?\n[ \t]+[^\n]*(?:Loop unrolling took too long|set --unroll-count above 0)/im;

/** Only Verilator's diagnostic about loop unrolling, from a run it finished itself, justifies the rebuild. */
export function rejectedUnrolling(run: {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  limit?: LimitHit | undefined;
}): boolean {
  return (
    run.signal === null &&
    run.code !== null &&
    !run.limit &&
    !killedBy(run) &&
    !limitFromExit(run) &&
    (UNROLL_REJECTED.test(run.output) || UNROLL_REASON.test(run.output))
  );
}

export interface CompileJob {
  layout: CacheLayout;
  key: string;
  verilator: VerilatorInfo;
  toolchain: Toolchain;
  dut: SourceFile[];
  tb: SourceFile;
  top: string;
  includeDirs: string[];
  extraFlags: string[];
  deadline: number;
  opts: SimOptions;
  logger: Logger;
}

export type CompileOutcome = Pick<BuildResult, 'status' | 'binary' | 'diagnostics' | 'notes'> & {
  timedOut?: boolean;
  peakRssBytes?: number;
};

/** The two build steps that read untrusted text, as limit messages name them. */
type Step = 'translate' | 'compile';

/**
 * Runs one build step under the memory limit (address space of each process and resident memory of the whole
 * tree), a CPU-time limit per process of the remaining build time, a file-size limit and a process count.
 */
async function limitedStep(
  job: CompileJob,
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; missingHint?: string },
): Promise<GroupRunResult> {
  const memoryBytes = toolMemoryBytes(memoryLimitBytes(job.opts.memoryLimitBytes));
  const timeoutMs = job.deadline - Date.now();
  // Jailed like the preprocessor: the build reads the testbench, so it sees the design's folders, the toolchain
  // and the cache it writes, with home folders and /tmp hidden and no network.
  const limited = jailCommand(command, args, {
    workDir: job.layout.root,
    chdir: opts.cwd,
    readOnly: buildReadPaths(job),
    env: definedValues(opts.env),
    limits: { memoryBytes, cpuSeconds: Math.ceil(Math.max(1, timeoutMs) / 1000), fileSizeBytes: BUILD_FILE_BYTES },
  });
  return runGroup(limited.command, limited.args, {
    ...opts,
    env: limited.env,
    timeoutMs,
    signal: job.opts.signal,
    treeLimits: { memoryBytes, processes: MAX_TREE_PROCESSES },
  });
}

/** What a build step reads besides the cache: the testbench's and the design's folders, include folders, Verilator's install. */
function buildReadPaths(job: CompileJob): string[] {
  const verilatorRoot = dirname(dirname(realpathOrSelf(job.verilator.path)));
  // The design's -I folders and files named among the extra flags (an FSM probe, a library file) too.
  const fromFlags = job.extraFlags.flatMap((f) =>
    f.startsWith('-I') ? [f.slice(2)] : isAbsolute(f) ? [dirname(f)] : [],
  );
  const dirs = [
    dirname(job.tb.absolute),
    ...job.dut.map((f) => dirname(f.absolute)),
    ...job.includeDirs,
    ...fromFlags,
    verilatorRoot,
  ];
  if (process.env.VERILATOR_ROOT) dirs.push(process.env.VERILATOR_ROOT);
  return [...new Set(dirs)];
}

function definedValues(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

function realpathOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** A step stopped by a limit: status resource_limit, naming the testbench's largest array or loop when one stands out. */
function limitOutcome(
  job: CompileJob,
  step: Step,
  hit: LimitHit,
  run: GroupRunResult,
  notes: string[],
  serial = false,
): CompileOutcome {
  const memoryBytes = memoryLimitBytes(job.opts.memoryLimitBytes);
  const cpuSeconds = Math.ceil(Math.max(1, job.deadline - Date.now() + run.ms) / 1000);
  const what = step === 'translate' ? 'to translate (Verilator)' : 'to compile the generated C++';
  const big = hit.resource === 'memory' || hit.resource === 'cpu' ? biggestConstruct(job.tb.text) : undefined;
  const cause = big ? `: it declares ${describeConstruct(big)} at ${job.tb.given}:${big.line}` : '';
  const fix =
    hit.resource === 'memory'
      ? `Make its arrays and loops smaller, or raise the limit (--memory-limit; now ${formatBytes(memoryBytes)}).`
      : 'Make its arrays and loops smaller.';
  const message = `The testbench ${limitPhrase(hit, { memoryBytes, cpuSeconds })} ${what}${cause}; the build was stopped${serial ? ', also compiling one file at a time' : ' and not retried'}. ${fix}`;
  const diag: Diagnostic = { file: job.tb.absolute, line: big?.line ?? 0, column: 0, severity: 'error', message };
  job.logger.info(
    `Build step '${step}' stopped at the ${hit.resource} limit${run.peakRssBytes ? ` (peak ${formatBytes(run.peakRssBytes)} resident)` : ''}.`,
  );
  return { status: 'resource_limit', diagnostics: [diag], notes, peakRssBytes: run.peakRssBytes };
}

/** A step killed from outside (the kernel's out-of-memory killer, a user): reported, never retried. */
function killedOutcome(
  job: CompileJob,
  step: Step,
  signal: string,
  diagnostics: Diagnostic[],
  notes: string[],
): CompileOutcome {
  const who = step === 'translate' ? 'Verilator' : 'The C++ compiler';
  const message = `${who} was killed by ${signal} while building the testbench (by the system's out-of-memory killer, or by hand); the build was not retried. Free memory or lower --memory-limit, and build again.`;
  return {
    status: 'compile_error',
    diagnostics: [
      ...diagnostics.filter((d) => d.severity !== 'error'),
      { file: job.tb.absolute, line: 0, column: 0, severity: 'error', message },
    ],
    notes,
  };
}

export async function compile(job: CompileJob): Promise<CompileOutcome> {
  const { layout, tb, logger } = job;
  // Verilator's makefile (verilated.mk) refuses to build in a folder whose path has a space: said before any work.
  if (/\s/.test(layout.tmp)) {
    throw new ChorusError(
      'infrastructure',
      `The build cache ${layout.root} has whitespace in its path, and Verilator's makefiles cannot build there: set CHORUS_CACHE_DIR to a folder without spaces.`,
    );
  }
  const work = join(layout.tmp, `${job.key.slice(0, 16)}-${randomBytes(4).toString('hex')}`);
  const objDir = join(work, 'obj');
  const mainPath = join(work, SIM_MAIN_FILE);
  const env = scrubbedEnv({
    CCACHE_DIR: layout.ccache,
    // Relative paths in ccache's hashes: builds in different temporary folders share results.
    CCACHE_BASEDIR: layout.root,
    CCACHE_NOHASHDIR: '1',
    // Lets ccache cache compiles that use the precompiled runtime header.
    CCACHE_SLOPPINESS: 'pch_defines,time_macros',
    // ccache keeps itself under a quarter of the cache cap; eviction keeps the rest under the cap.
    CCACHE_MAXSIZE: ccacheMaxSize(cacheMaxBytes(job.opts.cacheMaxBytes)),
  });
  const notes: string[] = [];
  await mkdir(objDir, { recursive: true });
  let links: VerilatorArgs | undefined;
  try {
    await writeFile(mainPath, SIM_MAIN_CPP);
    let unroll = true;
    for (;;) {
      const args = [
        ...buildFlags(job.verilator.features),
        ...(unroll ? UNROLL_FLAGS : []),
        '--prefix',
        SIM_PREFIX,
        '--top-module',
        job.top,
        '-o',
        SIM_BINARY,
        '--Mdir',
        objDir,
        ...job.includeDirs.map((d) => `-I${d}`),
        ...job.extraFlags,
        ...job.dut.map((f) => f.absolute),
        tb.absolute,
        mainPath,
      ];
      // Paths with spaces reach Verilator as links (pathLinks.ts); what it prints is mapped back.
      await links?.dispose();
      // In the build's own folder, which the build's jail shows.
      links = await linkForVerilator(args, work);
      const real = links;
      const absoluteNamer = (p: string): string => real.real(resolve(dirname(tb.absolute), p));
      logger.debug(`verilator ${links.args.join(' ')}`);
      // Verilator runs where the testbench is, as the sandbox check did: includes resolve the same way.
      const run = await limitedStep(job, job.verilator.path, links.args, {
        cwd: dirname(tb.absolute),
        env,
        missingHint: 'install Verilator with `apt-get install verilator` or set chorus.verilatorPath',
      });
      if (run.timedOut) return timedOut(job);
      logger.debug(
        `Verilator finished in ${run.ms} ms (exit ${run.code ?? run.signal}${run.peakRssBytes ? `, peak ${formatBytes(run.peakRssBytes)} resident` : ''}).`,
      );
      const hit = limitFromExit(run);
      if (hit) return limitOutcome(job, 'translate', hit, run, notes);
      const diagnostics = parseVerilatorOutput(run.output, absoluteNamer, tb.absolute).map((d) => ({
        ...d,
        message: real.realText(d.message),
      }));
      if (run.code === 0) {
        return await makeSimulator(job, { objDir, env, diagnostics, notes, real: real.real });
      }
      const killer = killedBy(run);
      if (killer) return killedOutcome(job, 'translate', killer, diagnostics, notes);
      if (unroll && rejectedUnrolling(run)) {
        unroll = false;
        notes.push(
          'Built without --unroll-count 0 because Verilator rejected it for this design: lines inside loops may read as false holes.',
        );
        logger.info(`Verilator rejected --unroll-count 0 for ${job.top}; rebuilding with loop unrolling.`);
        await rm(objDir, { recursive: true, force: true });
        await mkdir(objDir, { recursive: true });
        continue;
      }
      if (!diagnostics.some((d) => d.severity === 'error')) {
        const first = run.output.split('\n').find((l) => l.trim()) ?? `exit ${run.code ?? run.signal}`;
        diagnostics.push({
          file: tb.absolute,
          line: 0,
          column: 0,
          severity: 'error',
          message: `Verilator failed: ${real.realText(first.trim())}`,
        });
      }
      // A full or read-only cache, as Verilator words it, is the machine's fault: never the testbench's compile error.
      const fault = await toolFault(run.output, objDir);
      if (fault) throw infrastructureError(fault, cachePlace(job.layout.root));
      return { status: 'compile_error', diagnostics, notes };
    }
  } finally {
    await links?.dispose();
    await rm(work, { recursive: true, force: true });
  }
}

/** make over Verilator's makefiles, with the cached runtime objects and precompiled header; commits the binary. */
async function makeSimulator(
  job: CompileJob,
  ctx: {
    objDir: string;
    env: NodeJS.ProcessEnv;
    diagnostics: Diagnostic[];
    notes: string[];
    real: (printed: string) => string;
  },
): Promise<CompileOutcome> {
  const { layout, toolchain, tb, logger } = job;
  const plan = await runtimePlan(ctx.objDir, job.verilator, toolchain.compilerId);
  // The runtime entry is in use (its precompiled header is read in place) until make is done.
  await leaseEntry(join(layout.runtime, plan.signature));
  const runtime = await installRuntime(layout.runtime, plan, ctx.objDir);
  logger.debug(
    `Runtime objects ${plan.signature}: ${runtime.objects ? 'reused' : 'to be built'}; precompiled header ${runtime.pchHeader ? 'reused' : 'absent'}; ccache ${toolchain.ccache ? 'on' : 'absent'}.`,
  );
  await writeFile(join(ctx.objDir, PCH_HEADER), PCH_TEXT);
  await writeFile(join(ctx.objDir, CHORUS_MAKEFILE), CHORUS_MAKEFILE_TEXT);
  const jobs = Math.max(1, Math.min(availableParallelism(), 8));
  const goals = [SIM_BINARY];
  const vars = toolchain.ccache ? ['OBJCACHE=ccache'] : [];
  const modelBytes = await generatedModelBytes(ctx.objDir);
  const large = modelBytes > largeModelBytes();
  if (large) {
    // GCC's optimiser is superlinear on the one huge function a long inline stimulus becomes (a 7 MB model
    // took minutes at -Os, about a minute at -O0); the precompiled header only fits -Os, so it is left out.
    vars.push('OPT_FAST=-O0');
    ctx.notes.push(
      `The generated model is large (${(modelBytes / 1024 ** 2).toFixed(1)} MB of C++): compiled without optimisation to keep the build short. Stimulus read from a file (plusargs) keeps models small.`,
    );
  } else if (runtime.pchHeader) vars.push(`CHORUS_PCH_FLAGS=-include ${runtime.pchHeader}`);
  // The first build makes the precompiled header alongside the runtime objects, for every later build.
  // A precompiled header takes about 64 MB: not worth a small cache's room.
  const makesPch =
    !large && !runtime.pchHeader && runtime.wantsPch && cacheMaxBytes(job.opts.cacheMaxBytes) >= PCH_MIN_CACHE_BYTES;
  if (makesPch) goals.push(`${PCH_HEADER}.gch`);
  const makeArgs = (j: number) => ['-f', CHORUS_MAKEFILE, `-j${j}`, ...vars, ...goals];
  let run = await limitedStep(job, toolchain.make, makeArgs(jobs), { cwd: ctx.objDir, env: ctx.env });
  const serial = serialRetry(run, jobs);
  if (serial) {
    // The compilers make ran side by side held more together than the limit; one of them alone may fit, and the
    // objects already compiled stay, so make goes on where it stopped.
    logger.info(
      `The parallel C++ compile (${jobs} jobs) reached the memory limit${run.peakRssBytes ? ` (peak ${formatBytes(run.peakRssBytes)} resident)` : ''}; compiling one file at a time.`,
    );
    ctx.notes.push(
      `The C++ compile ran one file at a time: ${jobs} compilers at once needed more than the memory limit.`,
    );
    run = await limitedStep(job, toolchain.make, makeArgs(1), { cwd: ctx.objDir, env: ctx.env });
  }
  if (run.timedOut) return timedOut(job);
  logger.debug(
    `make finished in ${run.ms} ms (exit ${run.code ?? run.signal}${run.peakRssBytes ? `, peak ${formatBytes(run.peakRssBytes)} resident` : ''}).`,
  );
  if (run.code !== 0) {
    const hit = limitFromExit(run);
    if (hit) return limitOutcome(job, 'compile', hit, run, ctx.notes, serial);
    if (missingCompiler(run.output)) throw missingCompilerError();
    const fault = await toolFault(run.output, ctx.objDir);
    if (fault) throw infrastructureError(fault, cachePlace(layout.root));
    // GCC's driver reports a compiler killed from outside as "Killed signal terminated program cc1plus".
    const killer = killedBy(run) ?? (/Killed signal terminated program/.test(run.output) ? 'SIGKILL' : undefined);
    if (killer) return killedOutcome(job, 'compile', killer, ctx.diagnostics, ctx.notes);
    const first = firstCxxError(run.output) ?? `make exited with ${run.code ?? run.signal}`;
    const diag: Diagnostic = {
      file: tb.absolute,
      line: 0,
      column: 0,
      severity: 'error',
      message: `The C++ build of the simulator failed (Verilator accepted the sources): ${first}`,
    };
    return { status: 'compile_error', diagnostics: [...ctx.diagnostics, diag], notes: ctx.notes };
  }
  const keep = !runtime.objects ? harvestRuntime : makesPch ? addPrecompiledHeader : undefined;
  await keep?.(layout.runtime, plan, ctx.objDir, makesPch).catch((err: unknown) =>
    logger.debug(`Runtime objects not kept: ${String(err)}`),
  );
  const { deps, missing } = await dependencies(ctx.objDir, dirname(tb.absolute), ctx.real);
  if (missing) {
    const message = `Verilator ${job.verilator.version} recorded reading "${missing}", which does not exist: Verilator before 5.018 cuts a file name at its first space, here an included file's (its path starts "${missing} "). Rename that file without spaces, or use Verilator 5.018 or newer.`;
    return {
      status: 'compile_error',
      diagnostics: [...ctx.diagnostics, { file: tb.absolute, line: 0, column: 0, severity: 'error', message }],
      notes: ctx.notes,
    };
  }
  const binary = await commitEntry(layout.builds, job.key, join(ctx.objDir, SIM_BINARY), {
    deps,
    diagnostics: ctx.diagnostics,
    notes: ctx.notes,
  });
  await leaseEntry(dirname(binary));
  return { status: 'ok', binary, diagnostics: ctx.diagnostics, notes: ctx.notes };
}

/**
 * Whether a make stopped by the memory limit of its process tree (the sampler's verdict, not one compiler's own
 * address-space limit) is worth running again one compiler at a time: only when it ran several at once.
 */
export function serialRetry(
  run: { code: number | null; timedOut?: boolean; limit?: LimitHit | undefined },
  jobs: number,
): boolean {
  return jobs > 1 && run.code !== 0 && !run.timedOut && run.limit?.resource === 'memory';
}

/** Above this much generated C++ (default 1 MiB; CHORUS_SIM_LARGE_MODEL_BYTES), the model is compiled without optimisation. */
function largeModelBytes(): number {
  return Number(process.env.CHORUS_SIM_LARGE_MODEL_BYTES) || 1024 ** 2;
}

async function generatedModelBytes(objDir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(objDir)) {
    if (name.startsWith(SIM_PREFIX) && name.endsWith('.cpp')) total += (await stat(join(objDir, name))).size;
  }
  return total;
}

function timedOut(job: CompileJob): CompileOutcome {
  const diag: Diagnostic = {
    file: job.tb.absolute,
    line: 0,
    column: 0,
    severity: 'error',
    message: 'The build ran past its time limit and was stopped: simplify the design or raise the build timeout.',
  };
  return { status: 'compile_error', diagnostics: [diag], notes: [], timedOut: true };
}

/**
 * Every source Verilator read (includes too), from its --skip-identical record, with content hashes; `real` maps
 * the links paths with spaces were given as back to those paths. A recorded file that is not there is returned
 * as `missing`: Verilator before 5.018 cuts a name at its first space, which a link cannot fix in an included
 * file's own name.
 */
async function dependencies(
  objDir: string,
  cwd: string,
  real: (printed: string) => string,
): Promise<{ deps: { path: string; sha256: string }[]; missing?: string }> {
  const text = await readFile(join(objDir, `${SIM_PREFIX}__verFiles.dat`), 'utf8').catch(() => '');
  const deps: { path: string; sha256: string }[] = [];
  for (const line of text.split('\n')) {
    const m = /^S\s.*"(.+)"\s*$/.exec(line);
    if (!m || /verilator_bin(_dbg)?$/.test(m[1])) continue;
    const path = real(resolve(cwd, m[1]));
    const sha256 = await fileSha256(path).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    });
    if (sha256 === undefined) return { deps, missing: path };
    deps.push({ path, sha256 });
  }
  return { deps };
}
