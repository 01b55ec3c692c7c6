/**
 * One measured testbench: build (check, cache), run in a fresh folder, read the DUT's coverage, find the
 * holes. What `chorus coverage` prints and what the engine scores.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { silentLogger, type CoveragePoint, type Diagnostic, type RunStatus } from '../../protocol';
import { readUserText } from '../../protocol/userFile';
import { fileNamer } from '../verilator/diagnostics';
import { buildWithFsm, readCoverageWithFsm } from './fsmMeasure';
import { findHoles } from './holes';
import { DEFAULT_MAX_SIM_TIME, runSimulation } from '../verilator/run';
import { emptySummary, summarize, summarizeByInstance } from './summary';
import type { MeasureInput, MeasureResult, SimOptions } from '../types';

export async function measureCoverage(input: MeasureInput, opts: SimOptions): Promise<MeasureResult> {
  const logger = opts.logger ?? silentLogger;
  // FSM coverage: a bound probe per FSM, and Verilator's native FSM/expression coverage where it has them.
  const { build, plan: fsm } = await buildWithFsm(input, input.fsms, opts);
  const failed = (status: RunStatus, diagnostics: Diagnostic[], sim = 0, notes = build.notes): MeasureResult => ({
    status,
    coverage: emptySummary(),
    instances: {},
    holes: [],
    diagnostics,
    designWarnings: build.designWarnings ?? [],
    ms: { build: build.ms, sim },
    notes: [...notes],
    points: [],
    cacheHit: build.cacheHit,
  });
  if (build.status !== 'ok' || !build.binary) {
    return failed(build.timedOut ? 'timeout' : build.status, build.diagnostics);
  }
  logger.debug(`Simulator ready in ${build.ms} ms${build.cacheHit ? ' (cached)' : ''}.`);

  const work = await mkdtemp(join(tmpdir(), 'chorus-run-'));
  try {
    const namer = fileNamer([...input.dutFiles, input.testbench].map((f) => ({ given: f, display: f })));
    const coverageFile = join(work, 'coverage.dat');
    const run = await runSimulation(
      {
        binary: build.binary,
        coverageFile,
        cwd: work,
        timeoutMs: input.timeoutMs,
        maxSimTime: input.maxSimTime,
        plusargs: input.plusargs,
        // The design's own `$readmemh` files and the like: its folders are visible, read-only, in the jail.
        readPaths: [...new Set(input.dutFiles.map((f) => dirname(resolve(f))))],
      },
      { ...opts, namer: (p) => namer(p === build.binary ? input.testbench : p) },
    );
    const diagnostics = [...build.diagnostics, ...run.diagnostics];
    const notes = [...build.notes];
    if (run.stop === 'simtime') {
      notes.push(
        `The simulation stopped at the simulated-time bound (${input.maxSimTime ?? DEFAULT_MAX_SIM_TIME} time units) without $finish; coverage up to there is kept.`,
      );
    }
    if (run.stop === 'deadline')
      notes.push('The simulation stopped at the wall-clock bound; coverage up to there is kept.');
    if (!run.coverageWritten)
      return { ...failed(run.status, diagnostics, run.ms, notes), bounded: run.bounded, simOutput: run.output };

    const read = await readCoverageWithFsm(coverageFile, input.dutFiles, fsm);
    for (const d of read.disagreements) logger.debug(`FSM point count differs from Verilator's: ${d}`);
    let points = read.points;
    let status: RunStatus = run.status;
    if (input.dutTop) {
      const scoped = scopeToTop(points, input.dutTop);
      if (!scoped.length) {
        diagnostics.push({
          file: input.testbench,
          line: 0,
          column: 0,
          severity: 'error',
          message: `The testbench does not instantiate the DUT top module '${input.dutTop}': no coverage was measured.`,
        });
        status = status === 'ok' ? 'sim_error' : status;
      }
      points = scoped;
    } else if (!points.length) {
      diagnostics.push({
        file: input.testbench,
        line: 0,
        column: 0,
        severity: 'error',
        message: 'The testbench instantiates no module of the DUT files: no coverage was measured.',
      });
      status = status === 'ok' ? 'sim_error' : status;
    }
    const sources = new Map<string, string>();
    for (const f of input.dutFiles) sources.set(f, await readUserText(f).catch(() => ''));
    return {
      status,
      coverage: points.length ? summarize(points) : emptySummary(),
      instances: summarizeByInstance(points),
      holes: findHoles(points, sources),
      diagnostics,
      designWarnings: build.designWarnings ?? [],
      ms: { build: build.ms, sim: run.ms },
      bounded: run.bounded,
      notes,
      points,
      simOutput: run.output,
      cacheHit: build.cacheHit,
      ...(read.native.length
        ? { nativeFsm: read.native.filter((n) => points.some((q) => q.hierarchy === n.hierarchy)) }
        : {}),
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * A coverage point's module is `top`: by its name, or by the name Verilator gives a copy of it specialised by
 * parameter values (`top__W8_EB1` for `top #(.W(8), .EXTRA(1))`).
 */
export function isModuleOf(module: string, top: string): boolean {
  return module === top || module.startsWith(`${top}__`);
}

/** Points inside instances of `top` (and their sub-instances). */
export function scopeToTop(points: CoveragePoint[], top: string): CoveragePoint[] {
  const roots = [...new Set(points.filter((p) => isModuleOf(p.module, top)).map((p) => p.hierarchy))];
  // An instance of `top` nested in another instance of `top` is already covered by the outer one.
  const outer = roots.filter((r) => !roots.some((o) => o !== r && r.startsWith(`${o}.`)));
  return points.filter((p) => outer.some((r) => p.hierarchy === r || p.hierarchy.startsWith(`${r}.`)));
}
