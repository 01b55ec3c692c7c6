/**
 * One fresh build: Verilator (retried without `--unroll-count 0` when it rejects that), then make with the
 * cached runtime objects, the precompiled runtime header and ccache; the binary is committed to the cache.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Diagnostic, Logger } from '../protocol';
import { scrubbedEnv } from './sandbox/jail';
import { commitEntry, evictOldEntries, fileSha256 } from './buildEntry';
import type { CacheLayout } from './cacheDir';
import { firstCxxError, parseVerilatorOutput } from './diagnostics';
import type { SourceFile } from './inputs';
import { runGroup } from './processGroup';
import { addPrecompiledHeader, CHORUS_MAKEFILE, CHORUS_MAKEFILE_TEXT, harvestRuntime, installRuntime, PCH_HEADER, PCH_TEXT, runtimePlan } from './runtimeObjects';
import { SIM_BINARY, SIM_MAIN_CPP, SIM_MAIN_FILE, SIM_PREFIX } from './simMain';
import { missingCompiler, missingCompilerError, type Toolchain } from './toolchain';
import type { BuildResult, SimOptions, VerilatorInfo } from './types';

/**
 * Coverage builds: timing for SystemVerilog testbenches; no loop unrolling and no `split` (both make lines
 * read as false holes); BLKANDNBLK tolerated for real-world RTL; lint warnings reported, not fatal.
 */
export const BASE_FLAGS = ['--cc', '--exe', '--timing', '--coverage', '-fno-split', '-Wno-BLKANDNBLK', '-Wno-TIMESCALEMOD', '-Wno-fatal'];
export const UNROLL_FLAGS = ['--unroll-count', '0'];
const UNROLL_REJECTED = /BLKLOOPINIT|unroll-count|Loop unrolling took too long/i;

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

export type CompileOutcome = Pick<BuildResult, 'status' | 'binary' | 'diagnostics' | 'notes'> & { timedOut?: boolean };

export async function compile(job: CompileJob): Promise<CompileOutcome> {
  const { layout, tb, logger } = job;
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
    CCACHE_MAXSIZE: process.env.CCACHE_MAXSIZE ?? '2G',
  });
  const absoluteNamer = (p: string): string => resolve(dirname(tb.absolute), p);
  const notes: string[] = [];
  await mkdir(objDir, { recursive: true });
  try {
    await writeFile(mainPath, SIM_MAIN_CPP);
    let unroll = true;
    for (;;) {
      const args = [
        ...BASE_FLAGS,
        ...(unroll ? UNROLL_FLAGS : []),
        '--prefix', SIM_PREFIX,
        '--top-module', job.top,
        '-o', SIM_BINARY,
        '--Mdir', objDir,
        ...job.includeDirs.map((d) => `-I${d}`),
        ...job.extraFlags,
        ...job.dut.map((f) => f.absolute),
        tb.absolute,
        mainPath,
      ];
      logger.debug(`verilator ${args.join(' ')}`);
      // Verilator runs where the testbench is, as the sandbox check did: includes resolve the same way.
      const run = await runGroup(job.verilator.path, args, {
        cwd: dirname(tb.absolute),
        env,
        timeoutMs: job.deadline - Date.now(),
        signal: job.opts.signal,
        missingHint: 'install Verilator with `apt-get install verilator` or set chorus.verilatorPath',
      });
      if (run.timedOut) return timedOut(job);
      logger.debug(`Verilator finished in ${run.ms} ms (exit ${run.code ?? run.signal}).`);
      const diagnostics = parseVerilatorOutput(run.output, absoluteNamer, tb.absolute);
      if (run.code === 0) {
        return await makeSimulator(job, { objDir, env, diagnostics, notes });
      }
      if (unroll && UNROLL_REJECTED.test(run.output)) {
        unroll = false;
        notes.push('Built without --unroll-count 0 because Verilator rejected it for this design: lines inside loops may read as false holes.');
        logger.info(`Verilator rejected --unroll-count 0 for ${job.top}; rebuilding with loop unrolling.`);
        await rm(objDir, { recursive: true, force: true });
        await mkdir(objDir, { recursive: true });
        continue;
      }
      if (!diagnostics.some((d) => d.severity === 'error')) {
        const first = run.output.split('\n').find((l) => l.trim()) ?? `exit ${run.code ?? run.signal}`;
        diagnostics.push({ file: tb.absolute, line: 0, column: 0, severity: 'error', message: `Verilator failed: ${first.trim()}` });
      }
      return { status: 'compile_error', diagnostics, notes };
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** make over Verilator's makefiles, with the cached runtime objects and precompiled header; commits the binary. */
async function makeSimulator(job: CompileJob, ctx: { objDir: string; env: NodeJS.ProcessEnv; diagnostics: Diagnostic[]; notes: string[] }): Promise<CompileOutcome> {
  const { layout, toolchain, tb, logger } = job;
  const plan = await runtimePlan(ctx.objDir, job.verilator, toolchain.compilerId);
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
    ctx.notes.push(`The generated model is large (${(modelBytes / 1024 ** 2).toFixed(1)} MB of C++): compiled without optimisation to keep the build short. Stimulus read from a file (plusargs) keeps models small.`);
  } else if (runtime.pchHeader) vars.push(`CHORUS_PCH_FLAGS=-include ${runtime.pchHeader}`);
  // The first build makes the precompiled header alongside the runtime objects, for every later build.
  const makesPch = !large && !runtime.pchHeader && runtime.wantsPch;
  if (makesPch) goals.push(`${PCH_HEADER}.gch`);
  const args = ['-f', CHORUS_MAKEFILE, `-j${jobs}`, ...vars, ...goals];
  const run = await runGroup(toolchain.make, args, { cwd: ctx.objDir, env: ctx.env, timeoutMs: job.deadline - Date.now(), signal: job.opts.signal });
  if (run.timedOut) return timedOut(job);
  logger.debug(`make finished in ${run.ms} ms (exit ${run.code ?? run.signal}).`);
  if (run.code !== 0) {
    if (missingCompiler(run.output)) throw missingCompilerError();
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
  await keep?.(layout.runtime, plan, ctx.objDir, makesPch).catch((err: unknown) => logger.debug(`Runtime objects not kept: ${String(err)}`));
  const deps = await dependencies(ctx.objDir, dirname(tb.absolute));
  const binary = await commitEntry(layout.builds, job.key, join(ctx.objDir, SIM_BINARY), { deps, diagnostics: ctx.diagnostics, notes: ctx.notes });
  const maxBuilds = Number(process.env.CHORUS_CACHE_MAX_BUILDS) || 200;
  await evictOldEntries(layout.builds, layout.tmp, maxBuilds).catch((err: unknown) => logger.debug(`Cache eviction skipped: ${String(err)}`));
  return { status: 'ok', binary, diagnostics: ctx.diagnostics, notes: ctx.notes };
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

/** Every source Verilator read (includes too), from its --skip-identical record, with content hashes. */
async function dependencies(objDir: string, cwd: string): Promise<{ path: string; sha256: string }[]> {
  const text = await readFile(join(objDir, `${SIM_PREFIX}__verFiles.dat`), 'utf8').catch(() => '');
  const deps: { path: string; sha256: string }[] = [];
  for (const line of text.split('\n')) {
    const m = /^S\s.*"(.+)"\s*$/.exec(line);
    if (!m || /verilator_bin(_dbg)?$/.test(m[1])) continue;
    const path = resolve(cwd, m[1]);
    deps.push({ path, sha256: await fileSha256(path) });
  }
  return deps;
}
