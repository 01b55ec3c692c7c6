/**
 * The model-free search: build the vector harness once, run many candidate stimuli through the same binary, keep
 * those that reach new points, switch between strategies by what they find, stop at the targets, when only proven
 * points are left, or at the budget (which counts the build); then emit and measure one readable testbench whose
 * measured coverage is what gets reported. The steps live beside it: explore.ts (the loop), conclude.ts (the
 * testbench), finish.ts (measurement and merge), budget.ts, runner.ts, strategies.ts, progress.ts, rounds.ts.
 */
import { join } from 'node:path';
import { echoInputs, fsmModels, inputDictionary, literalsOf } from '../../hdl';
import { buildWithFsm, lineCoverage, summarize, type SimOptions } from '../../sim';
import {
  ChorusError,
  type CoveragePoint,
  type CoverageReport,
  type GenerateResult,
  type LoopEvent,
} from '../../protocol';
import type { EngineServices } from '../api';
import type { Emit } from '../channel';
import type { RunContext } from '../context';
import { writeFileAtomic } from '../fs';
import { simOptionsFor } from '../simOptions';
import { meetsTargets } from '../targets';
import { SearchBudget } from './budget';
import { conclude } from './conclude';
import { explore, type SearchParts } from './explore';
import { labelledHoles, onRegression } from './finish';
import { FormalStage } from './formalStage';
import { harnessSource, planHarness, type HarnessPlan } from './harness';
import { DEFAULT_SEARCH, type SearchOptions } from './options';
import { SearchProgress } from './progress';
import { Rng } from './rng';
import { RoundReporter } from './rounds';
import { LiveTable } from './liveTable';
import { HarnessRunner } from './runner';
import { prefixRows, StimulusGenerator, type Candidate } from './stimulus';
import { Strategies } from './strategies';

export { DEFAULT_SEARCH, type SearchOptions } from './options';

export interface SearchOutcome {
  result: GenerateResult;
  report: CoverageReport;
  points: CoveragePoint[];
  filename: string;
}

export async function runSearch(
  ctx: RunContext,
  services: EngineServices,
  options: Partial<SearchOptions>,
  emit: Emit<LoopEvent>,
): Promise<SearchOutcome> {
  const opts = { ...DEFAULT_SEARCH, ...options };
  const budget = new SearchBudget(opts.budgetMs, opts.startedAt ?? Date.now());
  const sim = simOptionsFor(ctx, services);
  // Inputs that read back a line the design drives (open drain) are driven as the bus would drive them.
  const echoes = echoInputs(ctx.analysis, ctx.top.name);
  const plan = planHarness(ctx.top, ctx.instance, ctx.design.parameters, echoes);
  if (echoes.length)
    services.logger.debug(
      `search: inputs read back as a wired AND: ${echoes.map((e) => `${e.input} (${e.output})`).join(', ')}`,
    );
  const rng = new Rng(opts.seed);
  const literals = literalsOf(ctx.analysis, ctx.top.name);
  const dictionary = inputDictionary(ctx.analysis, ctx.top.name, ctx.sources, {
    parameters: ctx.design.parameters,
    defines: ctx.design.defines,
  });
  const gen = new StimulusGenerator(plan.inputs, rng, literals, Boolean(plan.clock), dictionary);
  if (dictionary.length)
    services.logger.debug(
      `search: dictionary of ${dictionary.length} field(s): ${dictionary
        .slice(0, 8)
        .map((f) => `${f.input}[${f.lsb + f.width - 1}:${f.lsb}] (${f.values.length})`)
        .join(', ')}${dictionary.length > 8 ? ', …' : ''}`,
    );
  const tbName = `tb_${ctx.top.name}`;
  const filename = `${tbName}.sv`;

  emit({ type: 'roundStart', round: 1 });
  const { build, fsmPlan } = await buildHarness(ctx, plan, tbName, sim);
  emit({ type: 'build', round: 1, status: build.status, ms: build.ms, diagnostics: build.diagnostics });
  if (build.status !== 'ok' || !build.binary) {
    const d = build.diagnostics[0];
    throw new ChorusError(
      build.status === 'rejected' ? 'rejected' : 'bad_input',
      `The DUT does not build with Verilator${d ? `: ${d.message}` : ''}`,
      d ? { file: d.file, line: d.line, column: d.column } : undefined,
    );
  }
  const slowBuild = budget.afterBuild(build.ms);
  if (slowBuild) services.logger.warn(slowBuild);
  const runner = new HarnessRunner({
    binary: build.binary,
    workDir: ctx.workDir,
    rtlFiles: ctx.rtlFiles,
    fsmPlan,
    sim,
    simTimeoutMs: opts.simTimeoutMs,
    logger: services.logger,
  });
  const started = Date.now();
  const progress = new SearchProgress(ctx);
  const rounds = new RoundReporter(emit, opts.roundSize, build.ms);
  // The finish keeps its share of the budget (shrinking, emitting) and the time the final measurement of what
  // the testbench would keep now takes (the set cover's sequences before shrinking, with a margin for a repair).
  // Where the table is measured as it is written, only what that run has left to simulate.
  const live = new LiveTable(
    runner,
    budget,
    services.logger,
    gen.prologue > 0 && !opts.rebuildTestbench ? opts.liveTable : 'never',
  );
  const reserve = () =>
    live.active
      ? live.reserveMs()
      : budget.finishAllowance() + budget.finalReserve(progress.chosenMs((cycles) => runner.estimateMs(cycles, true)));
  const parts: SearchParts = {
    ctx,
    signal: services.signal,
    logger: services.logger,
    opts,
    sim,
    plan,
    rng,
    gen,
    literals,
    budget,
    runner,
    progress,
    rounds,
    strategies: new Strategies(rng, {
      hasReset: gen.hasReset,
      clocked: Boolean(plan.clock),
      dictionary: gen.hasDictionary,
    }),
    formal: new FormalStage(ctx, services, plan, opts.formal),
    live,
    reserve,
    run: async (candidate: Candidate, share?: number) => {
      const before = runner.simMs;
      const pts = await runner.candidate(candidate, budget.runAllowance(reserve(), share));
      rounds.ran(runner.simMs - before);
      return pts;
    },
  };

  try {
    return await searchAndFinish(parts, emit, { tbName, filename, started, buildMs: build.ms });
  } finally {
    // A formal stage still running when the search ends another way (targets met, cancel) is stopped and awaited,
    // and a live table's run that did not finish is stopped.
    await parts.formal.close();
    await live.close();
  }
}

/**
 * The search, then its finish: the kept sequences emitted as the testbench and measured. A formal stage that only
 * proves (no witness comes back from it) and is still running at the search's budget goes on beside the finish, on
 * its own core, and is waited for before the holes are labelled.
 */
async function searchAndFinish(
  parts: SearchParts,
  emit: Emit<LoopEvent>,
  meta: { tbName: string; filename: string; started: number; buildMs: number },
): Promise<SearchOutcome> {
  const { ctx, progress, rounds, runner, budget, opts, logger, signal } = parts;
  const { tbName, filename, started } = meta;
  const searched = await explore(parts);
  if (searched.stopReason !== 'budget') await parts.formal.close();
  const { stopReason, phaseMs } = searched;
  if (stopReason === 'cancelled') throw new ChorusError('cancelled', 'Cancelled.');
  rounds.finish(progress.merged);
  if (!progress.kept.length) {
    if (!progress.merged.length) throw noCoverage(runner);
    // Nothing a stimulus can reach (a design with constant outputs): keep one short sequence so the testbench exists.
    const c = parts.gen.fresh();
    progress.kept.push({
      candidate: { rows: prefixRows(c.rows, parts.gen.prologue + 4), origin: 'minimal' },
      newPoints: 0,
      covered: new Set(),
    });
  }

  // Emit, then measure the testbench's own rows: the reported coverage is the testbench's.
  const done = await conclude(parts, { tbName, filename, stopReason });
  if (signal.aborted) throw new ChorusError('cancelled', 'Cancelled.');
  phaseMs.shrink = done.shrinkMs;
  const { testbench } = done;
  // A formal stage still running beside the finish: waited for within its own bound, its proofs label the holes.
  let own = done.own;
  if (parts.formal.busy) {
    await parts.formal.settle();
    if (signal.aborted) throw new ChorusError('cancelled', 'Cancelled.');
    own = {
      ...own,
      report: { ...own.report, holes: await labelledHoles(ctx, own.points) },
    };
  }
  const cycles = done.table.reduce((a, r) => a + r.cycles, 0);
  emit({
    type: 'parsed',
    round: rounds.rounds.length,
    outcome: `testbench with ${done.sequences} of ${progress.kept.length} kept sequence(s)${done.tail ? ' and a plain random tail' : ''}, ${cycles} cycles`,
    testbench,
  });
  const tMerge = Date.now();
  const ev =
    progress.regression && own.report.status === 'ok'
      ? await onRegression(ctx, progress.regression, progress.regressionHit, own)
      : { ...own, regression: undefined };
  phaseMs.final = done.finalMs + (Date.now() - tMerge);
  const searchCov = summarize(progress.merged);
  for (const k of ['line', 'branch'] as const) {
    if (ev.report.coverage[k].covered < searchCov[k].covered) {
      logger.warn(
        `The emitted testbench reaches ${ev.report.coverage[k].covered} ${k} points, the search reached ${searchCov[k].covered}; reporting the testbench's own figure.`,
      );
    }
  }
  const last = rounds.rounds[rounds.rounds.length - 1];
  last.coverage = ev.report.coverage;
  last.status = ev.report.status;
  last.ms.build += ev.report.ms.build;
  last.ms.sim += ev.report.ms.sim;
  emit({
    type: 'build',
    round: last.index,
    status: ev.report.status,
    ms: ev.report.ms.build,
    diagnostics: ev.report.diagnostics,
  });
  emit({
    type: 'coverage',
    round: last.index,
    coverage: ev.report.coverage,
    holes: ev.report.holes,
    status: ev.report.status,
    lines: lineCoverage(ev.points),
  });
  logger.debug(
    `search: ${runner.runs} runs in ${Date.now() - started} ms (${runner.simMs} ms simulating, ${runner.readMs} ms reading coverage, ${runner.describe()}; plain ${phaseMs.plain} ms, deep ${phaseMs.deep} ms, ` +
      `search ${phaseMs.search} ms, formal ${phaseMs.formal} ms, shrink ${phaseMs.shrink} ms, final ${phaseMs.final} ms; harness build ${meta.buildMs} ms; ` +
      `run ${budget.elapsed()} ms of a ${opts.budgetMs} ms budget), ${progress.kept.length} kept, stop: ${stopReason}; strategies: ${parts.strategies.describe()}`,
  );

  const result: GenerateResult = {
    top: ctx.top.name,
    engine: 'random',
    pass: ev.report.status === 'ok' && meetsTargets(ev.report.coverage, ctx.targets),
    targets: ctx.targets,
    coverage: ev.report.coverage,
    holes: ev.report.holes,
    rounds: rounds.rounds,
    testbench,
    stopReason,
    diagnostics: ev.report.diagnostics,
    lines: lineCoverage(ev.points),
    ...(ev.regression ? { regression: ev.regression } : {}),
  };
  return { result, report: ev.report, points: ev.points, filename };
}

/**
 * The error of a search whose runs never wrote coverage: where the simulation printed the design's own error (an
 * elaboration check such as `$error("… is not compatible with …")` in an initial block, for parameters the design
 * rejects), that message and its place; otherwise where to look.
 */
function noCoverage(runner: HarnessRunner): ChorusError {
  const reported = runner.lastFailure?.diagnostics.find((d) => d.severity === 'error' && d.line > 0);
  if (!reported) {
    return new ChorusError(
      'failed',
      `No candidate stimulus produced coverage in ${runner.runs} run(s): check the simulation log with CHORUS_LOG=debug.`,
    );
  }
  return new ChorusError(
    'bad_input',
    `Every simulation of the design stopped before it wrote coverage (${runner.runs} run(s)); the design reports: ${reported.message}. Check its parameters and defines.`,
    { file: reported.file, line: reported.line },
  );
}

/** Builds the vector harness once. Its top carries the testbench's name, so its coverage hierarchy is the testbench's. */
async function buildHarness(ctx: RunContext, plan: HarnessPlan, tbName: string, sim: SimOptions) {
  const harnessPath = join(ctx.workDir, 'chorus_vector_harness.sv');
  await writeFileAtomic(harnessPath, harnessSource(plan, tbName));
  // With the FSM probe: new FSM states and arcs count as progress like any other point.
  const fsms = fsmModels(ctx.rtlFiles.map((f) => ({ name: f, content: ctx.sources.get(f) ?? '' })));
  const { build, plan: fsmPlan } = await buildWithFsm(
    { dutFiles: ctx.rtlFiles, testbench: harnessPath, tbTop: tbName, ownHarness: true },
    fsms,
    sim,
  );
  return { build, fsmPlan };
}
