/**
 * The plain random baseline for real IP, in the engine's wall-clock budget: the engine's own vector harness (same
 * reset prologue, same Verilator flags and design flags, the DUT instantiated with the same parameters) built once,
 * then run after run of fresh uniform random inputs on every cycle, a reset pulse about one cycle in 50, until the
 * budget is spent. Coverage is the
 * union over the runs (each starts from reset, so one testbench playing them in turn reaches the same points).
 * No search, no feedback, no literals.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareRun } from '../src/engine/context';
import { harnessSource, planHarness } from '../src/engine/search/harness';
import { Rng } from '../src/engine/search/rng';
import { HarnessRunner } from '../src/engine/search/runner';
import { StimulusGenerator, totalCycles } from '../src/engine/search/stimulus';
import { writeFileAtomic } from '../src/engine/fs';
import { fsmModels } from '../src/hdl';
import {
  buildSimulation,
  buildWithFsm,
  lintDesign,
  mergePoints,
  scopeToTop,
  summarize,
  type SimOptions,
} from '../src/sim';
import { silentLogger, type CoveragePoint, type CoverageSummary } from '../src/protocol';

/** Cycles of one plain run: long enough that the run's start is a small share, short enough to stop near the budget. */
export const PLAIN_RUN_CYCLES = 20_000;
/** Plain random's reset: a pulse about one cycle in 50 (the baseline of the real-IP comparisons). */
export const PLAIN_RESET_RATE = 1 / 50;

export interface PlainBudgetRequest {
  rtlFiles: string[];
  top?: string;
  includeDirs?: string[] | undefined;
  defines?: Record<string, string | undefined> | undefined;
  parameters?: Record<string, string> | undefined;
  seed: number;
  /** Wall-clock budget of the runs after the build, as the engine's `budgetSeconds`. */
  budgetMs: number;
  /** Instead: the whole wall time, the analysis and build included (the engine's measured wall time). */
  wallMs?: number | undefined;
  /** Instead: run until this many cycles are simulated, however long that takes (the soundness check's 10^6). */
  cycles?: number | undefined;
  /** With CHORUS's FSM probe, as the search builds it: the runs' points include FSM states and arcs. */
  fsm?: boolean | undefined;
}

export interface PlainBudgetOutcome {
  coverage: CoverageSummary;
  runs: number;
  cycles: number;
  ms: { build: number; sim: number; total: number };
  /** The merged points of the runs (the soundness check looks proven points up in them). */
  points: CoveragePoint[];
}

export async function plainRandomInBudget(req: PlainBudgetRequest, sim: SimOptions): Promise<PlainBudgetOutcome> {
  const t0 = Date.now();
  const workDir = await mkdtemp(join(tmpdir(), 'chorus-plain-ip-'));
  try {
    const ctx = await prepareRun({
      rtlFiles: req.rtlFiles,
      top: req.top,
      includeDirs: req.includeDirs,
      defines: req.defines,
      parameters: req.parameters,
      engine: 'random',
      targets: {},
      workDir,
    });
    // Port widths as Verilator elaborates them, exactly as the engine takes them (generate.ts).
    const lint = await lintDesign(
      { files: ctx.rtlFiles, top: ctx.top.name, ...ctx.design },
      { verilatorPath: sim.verilatorPath, signal: sim.signal },
    );
    for (const port of ctx.top.ports) port.width = lint.portWidths.get(port.name) ?? port.width;
    const plan = planHarness(ctx.top, ctx.instance, ctx.design.parameters);
    const gen = new StimulusGenerator(plan.inputs, new Rng(req.seed), [], Boolean(plan.clock));
    const tbName = `tb_${ctx.top.name}`;
    const harness = join(workDir, 'chorus_vector_harness.sv');
    await writeFileAtomic(harness, harnessSource(plan, tbName));
    const simOpts: SimOptions = { ...sim, design: ctx.design, workspaceRoot: workDir };
    const input = { dutFiles: ctx.rtlFiles, testbench: harness, tbTop: tbName, ownHarness: true };
    const { build, plan: fsmPlan } = req.fsm
      ? await buildWithFsm(
          input,
          fsmModels(ctx.rtlFiles.map((f) => ({ name: f, content: ctx.sources.get(f) ?? '' }))),
          simOpts,
        )
      : { build: await buildSimulation(input, simOpts), plan: { flags: [] } };
    if (build.status !== 'ok' || !build.binary)
      throw new Error(`plain random: the harness does not build: ${build.diagnostics[0]?.message ?? build.status}`);
    // The engine's own runner over the harness binary: the same stimulus file, bounds and coverage reading.
    const runner = new HarnessRunner({
      binary: build.binary,
      workDir,
      rtlFiles: ctx.rtlFiles,
      fsmPlan,
      sim: simOpts,
      simTimeoutMs: 60_000,
      logger: silentLogger,
    });
    let merged: CoveragePoint[] = [];
    let cycles = 0;
    const started = Date.now();
    const more = () =>
      req.cycles !== undefined
        ? cycles < req.cycles
        : req.wallMs !== undefined
          ? Date.now() - t0 < req.wallMs
          : Date.now() - started < req.budgetMs;
    while (runner.runs === 0 || more()) {
      const candidate = gen.plain(PLAIN_RUN_CYCLES, PLAIN_RESET_RATE);
      cycles += totalCycles(candidate.rows);
      const points = await runner.candidate(candidate);
      if (!points) throw new Error(`plain random: run ${runner.runs} wrote no coverage`);
      merged = mergePoints(merged, scopeToTop(points, ctx.top.name));
    }
    const runs = runner.runs;
    const simMs = runner.simMs;
    return {
      coverage: summarize(merged),
      runs,
      cycles,
      ms: { build: build.ms, sim: simMs, total: Date.now() - t0 },
      points: merged,
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
