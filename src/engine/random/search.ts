/**
 * The model-free engine: build the vector harness once, run many candidate stimuli through the same binary, keep
 * those that reach new points, mutate them, stop at the targets, a stall or the budget, then emit and re-simulate
 * one readable testbench whose measured coverage is what gets reported.
 */
import { join } from 'node:path';
import { countersOf, fsmModels, inputDictionary, literalsOf, unreachableDefaults } from '../../hdl';
import { buildWithFsm, inHierarchyOf, lineCoverage, mergePoints, summarize, type SimOptions } from '../../sim';
import {
  ChorusError,
  type CoveragePoint,
  type CoverageReport,
  type GenerateResult,
  type LoopEvent,
  type RoundSummary,
  type StopReason,
} from '../../protocol';
import type { EngineServices } from '../api';
import type { Emit } from '../channel';
import type { RunContext } from '../context';
import { evaluateTestbench } from '../evaluate';
import { closureKind } from '../closure/ledger';
import { writeFileAtomic } from '../fs';
import { simOptionsFor } from '../simOptions';
import { meetsTargets } from '../targets';
import { SearchBudget } from './budget';
import { deepCandidate, deepPlans, enableHolds } from './deep';
import { emitTestbench, testbenchRows, type KeptSequence } from './emit';
import { hitKeys, measureTable, onRegression, orderWithoutReset } from './finish';
import { hasStructuralHoles, type FormalStageOptions } from './formal';
import { FormalStage } from './formalStage';
import { HALF_PERIOD, harnessSource, planHarness, type HarnessPlan } from './harness';
import { Rng } from './rng';
import { HarnessRunner } from './runner';
import { minimize, shorten, type Kept } from './shrink';
import { MAX_CYCLES, prefixRows, StimulusGenerator, totalCycles, type Candidate, type Row } from './stimulus';
import { Strategies, type StrategyName } from './strategies';

export interface RandomOptions {
  seed: number;
  budgetMs: number;
  /** When the run started (the design check and build count against the budget); default: when the search starts. */
  startedAt?: number | undefined;
  /** Upper bound on candidate runs; default none (the budget bounds the run). */
  maxRuns: number;
  /**
   * Stop after this many runs in a row without a new point; default never: the search switches strategy instead,
   * and ends at its targets, when only proven points are left, or at its budget.
   */
  stallRuns: number;
  simTimeoutMs: number;
  /** Candidates per reported round. */
  roundSize: number;
  /** Cycles of the plain random candidate run first (fresh inputs every cycle); 0: none. */
  plainCycles: number;
  /**
   * Measure the emitted testbench with its own Verilator build instead of re-running its table through the
   * already built harness (same rows, same timing, so the same points; the build costs as much as the harness's).
   */
  rebuildTestbench: boolean;
  /**
   * The formal stage (Yosys) on the holes the search stalls on, with its bounds; null: off. Proofs end the run
   * when only proven points are left; witnesses become candidates.
   */
  formal: FormalStageOptions | null;
}

export const DEFAULT_RANDOM: RandomOptions = {
  seed: 1,
  budgetMs: 60_000,
  maxRuns: Number.POSITIVE_INFINITY,
  stallRuns: Number.POSITIVE_INFINITY,
  simTimeoutMs: 20_000,
  roundSize: 50,
  plainCycles: 2_000,
  rebuildTestbench: false,
  formal: null,
};

/** Shrinking budgets, in runs (not time, so a seed gives the same testbench on any machine). */
const SHRINK_RUNS_PER_SEQUENCE = 30;
const SHRINK_RUNS_TOTAL = 80;
const MIN_SHRINK_RUNS = 6;
/** Fewest runs without a new point before an explicit stall rule may call it a stall. */
const MIN_STALL_RUNS = 100;
/** Wall-clock allowance per simulated cycle when the emitted testbench is rebuilt and re-simulated on its own. */
const MS_PER_MILLION_CYCLES = 20_000;

/** The formal stage runs once the search finds nothing new for this many runs, or this share of its budget. */
const FORMAL_AFTER_RUNS = 30;
const FORMAL_AFTER_BUDGET_SHARE = 0.1;
const FORMAL_AFTER_MIN_MS = 3_000;

/** Plain random candidates: these lengths, each bounded by what one run may take. */
const PLAIN_LENGTHS = [2_000, 10_000, 50_000];
/** Reset densities of plain random candidates: about one cycle in 50 as plain random runs, rarer, none. */
const PLAIN_RESET_RATES = [1 / 50, 1 / 50, 1 / 500, 0];
/** Idle holds after a kept candidate: arm-then-wait timers and watchdogs. */
const HOLD_LENGTHS = [1 << 10, 1 << 14, 1 << 17, 1 << 20];
/** A hold shorter than this is not worth a run. */
const MIN_HOLD = 256;
/** A round (a progress report) closes after `roundSize` runs or this long, whichever comes first. */
const ROUND_MS = 3_000;
/** Most of the budget kept back for the final measurement of the kept sequences (beside the finish's own share). */
const FINAL_RESERVE_SHARE = 0.2;
/** Repairs of a shrunk table that misses points the search reached (each restores the original sequences). */
const MAX_REPAIRS = 2;

export interface RandomOutcome {
  result: GenerateResult;
  report: CoverageReport;
  points: CoveragePoint[];
  filename: string;
}

export async function runRandomSearch(
  ctx: RunContext,
  services: EngineServices,
  options: Partial<RandomOptions>,
  emit: Emit<LoopEvent>,
): Promise<RandomOutcome> {
  const opts = { ...DEFAULT_RANDOM, ...options };
  const budget = new SearchBudget(opts.budgetMs, opts.startedAt ?? Date.now());
  const sim = simOptionsFor(ctx, services);
  const plan = planHarness(ctx.top, ctx.instance, ctx.design.parameters);
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
  const covered = new Set<string>();
  let merged: CoveragePoint[] = [];
  // The user's regression (--merge), named in the harness's hierarchy once its first run shows it: the search's
  // starting state, so only what it leaves counts as new and the stop rules see the merge.
  let seed: CoveragePoint[] | undefined;
  const regressionHit = new Set<string>();
  const kept: Kept[] = [];
  const rounds: RoundSummary[] = [];
  let sinceNew = 0;
  let lastNewAt = 0;
  let lastNewTime = Date.now();
  let roundSim = 0;
  let roundRuns = 0;
  let roundStarted = Date.now();
  let stopReason: StopReason = 'budget';
  const phaseMs = { plain: 0, deep: 0, search: 0, formal: 0, shrink: 0, final: 0 };
  const strategies = new Strategies(rng, {
    hasReset: gen.hasReset,
    clocked: Boolean(plan.clock),
    dictionary: gen.hasDictionary,
  });
  const formal = new FormalStage(ctx, services, plan, opts.formal);
  // The finish (shrink, emit, the final measurement) keeps its share of the budget, and the time the final
  // measurement of what is kept would take (an upper bound: every kept sequence, before set cover and shrinking).
  let keptCycles = 0;
  const reserve = () =>
    budget.finishAllowance() + Math.min(runner.estimateMs(keptCycles), budget.budgetMs * FINAL_RESERVE_SHARE);
  const runLimit = () => budget.runAllowance(reserve());

  // Line/branch/FSM targets stop early once only points proven unreachable (by analysis or by the formal stage) are left.
  const unreachable = new Set(unreachableDefaults(ctx.analysis).map((u) => `${u.file}:${u.line}`));
  const structuralTargets = Object.keys(ctx.targets).every(
    (k) => k === 'line' || k === 'branch' || k === 'fsm_state' || k === 'fsm_arc',
  );
  const proven = (p: CoveragePoint) =>
    unreachable.has(`${p.file}:${p.line}`) || ctx.formal.provenDepth(p) !== undefined;
  // FSM points count only when targeted (a line/branch run does not wait for FSM proofs).
  const awaited = (p: CoveragePoint) => closureKind(p.kind, ctx.targets);
  const onlyReachableLeft = (pts: CoveragePoint[]) =>
    structuralTargets &&
    hasStructuralHoles(pts, ctx.targets) &&
    pts.every((p) => p.count > 0 || !awaited(p) || proven(p));

  /** Runs one candidate, bounded by what is left of the budget. */
  const runCandidate = async (candidate: Candidate): Promise<CoveragePoint[] | null> => {
    const before = runner.simMs;
    const pts = await runner.candidate(candidate, runLimit());
    roundRuns++;
    roundSim += runner.simMs - before;
    return pts;
  };

  const reaches = async (rows: Row[], gain: Set<string>): Promise<boolean> => {
    const hit = hitKeys((await runCandidate({ rows, origin: '' })) ?? []);
    for (const k of gain) if (!hit.has(k)) return false;
    return true;
  };

  const closeRound = () => {
    const summary: RoundSummary = {
      index: rounds.length + 1,
      status: 'ok',
      coverage: summarize(merged),
      ms: { generate: 0, build: rounds.length === 0 ? build.ms : 0, sim: roundSim },
      candidates: roundRuns,
    };
    rounds.push(summary);
    emit({ type: 'coverage', round: summary.index, coverage: summary.coverage, holes: [], status: 'ok' });
    emit({ type: 'roundEnd', round: summary });
    roundSim = 0;
    roundRuns = 0;
    roundStarted = Date.now();
  };

  // First the plain random run (the easy points in one simulation), then one hold per counter (the deep ones),
  // then the coverage-guided search, switching strategies by what they find.
  const scheduled: { candidate: Candidate; phase: 'plain' | 'deep' }[] = [];
  if (opts.plainCycles > 0) scheduled.push({ candidate: gen.plain(opts.plainCycles), phase: 'plain' });
  if (plan.clock) {
    const params = new Map(ctx.top.params.filter((p) => p.value !== undefined).map((p) => [p.name, BigInt(p.value!)]));
    const counters = countersOf(ctx.analysis, ctx.top.name, ctx.sources);
    const plans = deepPlans(counters, plan.inputs, literals, params);
    if (counters.length)
      services.logger.debug(
        `search: ${counters.length} counter(s), ${plans.length} hold(s): ${plans.map((p) => `${p.counter} ${p.cycles}`).join(', ')}`,
      );
    for (const p of [...plans, ...enableHolds(plan.inputs, plans)])
      scheduled.push({ candidate: deepCandidate(p, gen.prologueRows()), phase: 'deep' });
  }

  /** Counts a candidate's points: kept when it reached a point no earlier one did. Returns how many were new. */
  const absorb = (candidate: Candidate, pts: CoveragePoint[]): number => {
    if (ctx.regression && !seed) {
      const { files, points } = ctx.regression;
      seed = inHierarchyOf({ file: files[0], points }, pts, ctx.top.name, "CHORUS's build of the design");
      for (const k of hitKeys(seed)) {
        covered.add(k);
        regressionHit.add(k);
      }
      merged = seed;
    }
    const hit = hitKeys(pts);
    let fresh = 0;
    for (const k of hit) if (!covered.has(k)) fresh++;
    if (fresh > 0) {
      for (const k of hit) covered.add(k);
      // What the regression covers is no sequence's gain: the testbench keeps only what adds to it.
      const gain = regressionHit.size ? new Set([...hit].filter((k) => !regressionHit.has(k))) : hit;
      kept.push({ candidate, newPoints: fresh, covered: gain });
      keptCycles += totalCycles(candidate.rows);
      sinceNew = 0;
      lastNewAt = runner.runs;
      lastNewTime = Date.now();
    } else {
      sinceNew++;
    }
    merged = mergePoints(merged, pts);
    return fresh;
  };

  /** The next candidate of a strategy, sized to what one run may take. */
  const nextOf = (strategy: StrategyName): Candidate => {
    const fits = (cycles: number) => Math.min(cycles, runner.cyclesWithin(runLimit()));
    const parent = () => rng.pick(kept).candidate;
    switch (strategy) {
      case 'plain':
        return gen.plain(
          Math.max(gen.prologue + 16, Math.min(MAX_CYCLES, fits(rng.pick(PLAIN_LENGTHS)))),
          gen.hasReset ? rng.pick(PLAIN_RESET_RATES) : 0,
        );
      case 'mutate':
        return gen.mutate(parent(), parent());
      case 'restart':
        return gen.restart(parent());
      case 'narrow':
        return gen.narrow();
      case 'single':
        return gen.single();
      case 'hold': {
        const short = kept.filter((k) => totalCycles(k.candidate.rows) <= MAX_CYCLES);
        const cycles = fits(rng.pick(HOLD_LENGTHS));
        if (!short.length || cycles < MIN_HOLD) return gen.fresh();
        return gen.holdAfter(rng.pick(short).candidate, cycles);
      }
      case 'dictionary':
        return gen.dictionary();
      case 'fresh':
        return gen.fresh();
    }
  };

  /** Runs the formal stage's witnesses through the harness; whether only proven points are left after them. */
  const collectFormal = async (): Promise<boolean> => {
    for (const candidate of formal.witnesses()) {
      if (services.signal.aborted) break;
      const pts = await runCandidate(candidate);
      if (pts) absorb(candidate, pts);
      else sinceNew++;
    }
    return onlyReachableLeft(merged);
  };

  try {
    for (;;) {
      if (services.signal.aborted) {
        stopReason = 'cancelled';
        break;
      }
      if (formal.ready && (await collectFormal())) {
        stopReason = 'all reachable points covered';
        break;
      }
      let stop: StopReason | undefined;
      if (budget.searchOver(reserve())) stop = 'budget';
      else if (runner.runs >= opts.maxRuns) stop = 'runs';
      // An optional stall rule (off by default: the search switches strategy instead of stopping with budget left),
      // judged against how long the search took to find its last new point.
      else if (
        Number.isFinite(opts.stallRuns) &&
        runner.runs > 0 &&
        sinceNew >= Math.min(opts.stallRuns, Math.max(MIN_STALL_RUNS, 2 * lastNewAt))
      )
        stop = 'stalled';
      // The formal stage once the search stalls (or would stop): a proven rest ends the run, witnesses go on.
      const stalling =
        sinceNew >= FORMAL_AFTER_RUNS ||
        Date.now() - lastNewTime >= Math.max(FORMAL_AFTER_MIN_MS, opts.budgetMs * FORMAL_AFTER_BUDGET_SHARE);
      const formalTime = budget.remaining() - reserve();
      if (
        runner.runs > 0 &&
        (stop || stalling) &&
        formal.canStart(formalTime) &&
        hasStructuralHoles(merged, ctx.targets)
      ) {
        // The search waits for it: on two loaded cores Yosys beside the simulator slows both more than it saves.
        await formal.run(merged, formalTime);
        phaseMs.formal = formal.ms;
        continue;
      }
      if (stop) {
        stopReason = stop;
        break;
      }
      if (merged.length && meetsTargets(summarize(merged), ctx.targets)) {
        stopReason = 'targets met';
        break;
      }
      const next = scheduled.shift();
      if (next && next.phase === 'deep' && runner.estimateMs(totalCycles(next.candidate.rows)) > runLimit()) {
        services.logger.debug(
          `search: skipped a hold of ${totalCycles(next.candidate.rows)} cycles: about ${Math.round(runner.estimateMs(totalCycles(next.candidate.rows)))} ms, more than one run may take now (${Math.round(runLimit())} ms)`,
        );
        continue;
      }
      const strategy: StrategyName | undefined = next ? undefined : strategies.pick(kept.length > 0);
      const candidate = next ? next.candidate : nextOf(strategy!);
      const t0 = Date.now();
      const pts = await runCandidate(candidate);
      phaseMs[next ? next.phase : 'search'] += Date.now() - t0;
      if (services.signal.aborted) {
        stopReason = 'cancelled';
        break;
      }
      const fresh = pts ? absorb(candidate, pts) : (sinceNew++, 0);
      if (strategy) strategies.credit(strategy, fresh);
      if (pts && onlyReachableLeft(merged)) {
        stopReason = 'all reachable points covered';
        break;
      }
      if (roundRuns >= opts.roundSize || Date.now() - roundStarted >= ROUND_MS) {
        closeRound();
        emit({ type: 'roundStart', round: rounds.length + 1 });
      }
    }
  } finally {
    // A formal stage still running when the search ends another way (targets met, cancel) is stopped and awaited.
    await formal.close();
  }
  if (stopReason === 'cancelled') throw new ChorusError('cancelled', 'Cancelled.');
  if (roundRuns > 0 || rounds.length === 0) closeRound();
  if (!kept.length) {
    if (!merged.length) {
      throw new ChorusError(
        'failed',
        `No candidate stimulus produced coverage in ${runner.runs} run(s): check the simulation log with CHORUS_LOG=debug.`,
      );
    }
    // Nothing a stimulus can reach (a design with constant outputs): keep one short sequence so the testbench exists.
    const c = gen.fresh();
    kept.push({
      candidate: { rows: prefixRows(c.rows, gen.prologue + 4), origin: 'minimal' },
      newPoints: 0,
      covered: new Set(),
    });
  }
  const searchRuns = runner.runs;

  // Emit, then measure the testbench's own rows: the reported coverage is the testbench's.
  const tShrink = Date.now();
  const chosen = minimize(kept);
  const finalEstimate = () => runner.estimateMs(chosen.reduce((a, c) => a + totalCycles(c.kept.candidate.rows), 0));
  const shrinkOver = () => services.signal.aborted || budget.remaining() <= finalEstimate();
  const sequences: KeptSequence[] = [];
  // Shrinking only makes the testbench shorter to read: a run budget per sequence and for all of them, no more
  // than the search itself took (a design closed by the first candidate is not worth a dozen more runs).
  const shrinkTotal = Math.min(SHRINK_RUNS_TOTAL, Math.max(MIN_SHRINK_RUNS, searchRuns));
  for (const c of chosen) {
    const left = shrinkTotal - (runner.runs - searchRuns);
    sequences.push({
      candidate:
        left > 0 && !shrinkOver()
          ? await shorten(
              c,
              { runs: Math.min(SHRINK_RUNS_PER_SEQUENCE, left), over: shrinkOver, prologue: gen.prologue },
              reaches,
            )
          : c.kept.candidate,
      newPoints: c.gain.size,
    });
  }
  phaseMs.shrink = Date.now() - tShrink;
  if (services.signal.aborted) throw new ChorusError('cancelled', 'Cancelled.');
  // Without a reset each sequence starts where the one before it left off: the order matters (orderWithoutReset).
  const order =
    gen.prologue || sequences.length < 2
      ? sequences.map((_, i) => i)
      : await orderWithoutReset(
          runner,
          sequences,
          chosen.map((c) => c.gain),
          shrinkOver,
        );
  const ordered = order.map((i) => ({ sequence: sequences[i], chosen: chosen[i] }));

  const tFinal = Date.now();
  const tbPath = join(ctx.workDir, filename);
  let testbench = '';
  let table: ReturnType<typeof testbenchRows> = [];
  let own: { report: CoverageReport; points: CoveragePoint[] } | undefined;
  for (let repair = 0; ; repair++) {
    const seqs = ordered.map((o) => o.sequence);
    testbench = emitTestbench(plan, seqs, { seed: opts.seed, tbName });
    table = testbenchRows(seqs);
    const cycles = table.reduce((a, r) => a + r.cycles, 0);
    if (opts.rebuildTestbench) {
      own = await evaluateTestbench(ctx, testbench, {
        filename,
        sim,
        timeoutMs: Math.max(opts.simTimeoutMs, 60_000) + Math.ceil((cycles / 1e6) * MS_PER_MILLION_CYCLES),
        maxSimTime: (cycles + 16) * 2 * HALF_PERIOD,
      });
      break;
    }
    await writeFileAtomic(tbPath, testbench);
    const measured = await measureTable(ctx, runner, table, tbPath);
    own = measured;
    // Faithful: the testbench reaches what the search reached. A shrunk sequence that only reached its points
    // from the state its own run left (no reset between sequences, registers no reset clears) is put back whole.
    const missing = [...covered].filter((k) => !regressionHit.has(k) && !measured.hit.has(k));
    if (!missing.length || measured.report.status !== 'ok' || repair >= MAX_REPAIRS || services.signal.aborted) {
      if (missing.length)
        services.logger.debug(`search: the emitted testbench misses ${missing.length} point(s) the search reached`);
      break;
    }
    const lost = new Set(missing);
    let restored = 0;
    for (const o of ordered) {
      if (o.sequence.candidate === o.chosen.kept.candidate || ![...o.chosen.gain].some((k) => lost.has(k))) continue;
      o.sequence = { candidate: o.chosen.kept.candidate, newPoints: o.sequence.newPoints };
      restored++;
    }
    services.logger.debug(
      `search: the shrunk testbench missed ${missing.length} point(s) the search reached; ${restored} sequence(s) restored whole`,
    );
    if (!restored) break;
  }
  const cycles = table.reduce((a, r) => a + r.cycles, 0);
  emit({
    type: 'parsed',
    round: rounds.length,
    outcome: `testbench with ${ordered.length} of ${kept.length} kept sequence(s), ${cycles} cycles`,
    testbench,
  });
  const ev =
    seed && own.report.status === 'ok'
      ? await onRegression(ctx, seed, regressionHit, own)
      : { ...own, regression: undefined };
  phaseMs.final = Date.now() - tFinal;
  const searchCov = summarize(merged);
  for (const k of ['line', 'branch'] as const) {
    if (ev.report.coverage[k].covered < searchCov[k].covered) {
      services.logger.warn(
        `The emitted testbench reaches ${ev.report.coverage[k].covered} ${k} points, the search reached ${searchCov[k].covered}; reporting the testbench's own figure.`,
      );
    }
  }
  const last = rounds[rounds.length - 1];
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
  services.logger.debug(
    `search: ${runner.runs} runs in ${Date.now() - started} ms (${runner.simMs} ms simulating; plain ${phaseMs.plain} ms, deep ${phaseMs.deep} ms, ` +
      `search ${phaseMs.search} ms, formal ${phaseMs.formal} ms, shrink ${phaseMs.shrink} ms, final ${phaseMs.final} ms; harness build ${build.ms} ms; ` +
      `run ${budget.elapsed()} ms of a ${opts.budgetMs} ms budget), ${kept.length} kept, stop: ${stopReason}; strategies: ${strategies.describe()}`,
  );

  const result: GenerateResult = {
    top: ctx.top.name,
    engine: 'random',
    pass: ev.report.status === 'ok' && meetsTargets(ev.report.coverage, ctx.targets),
    targets: ctx.targets,
    coverage: ev.report.coverage,
    holes: ev.report.holes,
    rounds,
    testbench,
    stopReason,
    diagnostics: ev.report.diagnostics,
    lines: lineCoverage(ev.points),
    ...(ev.regression ? { regression: ev.regression } : {}),
  };
  return { result, report: ev.report, points: ev.points, filename };
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
