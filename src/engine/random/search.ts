/**
 * The model-free engine: build the vector harness once, run many candidate stimuli through the same binary, keep
 * those that reach new points, mutate them, stop at the targets, a stall or the budget, then emit and re-simulate
 * one readable testbench whose measured coverage is what gets reported.
 */
import { rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { countersOf, fsmModels, literalsOf, readSourceText, unreachableDefaults } from '../../hdl';
import {
  buildWithFsm,
  findHoles,
  inHierarchyOf,
  lineCoverage,
  mergePoints,
  readCoverageWithFsm,
  runSimulation,
  scopeToTop,
  summarize,
  summarizeByInstance,
} from '../../sim';
import {
  ChorusError,
  type CoveragePoint,
  type CoverageReport,
  type GenerateResult,
  type LoopEvent,
  type RegressionReport,
  type RoundSummary,
  type StopReason,
  pointId,
} from '../../protocol';
import type { EngineServices } from '../api';
import type { Emit } from '../channel';
import type { RunContext } from '../context';
import { evaluateTestbench, explainHoles } from '../evaluate';
import { closureKind } from '../closure/ledger';
import { writeFileAtomic } from '../fs';
import { simOptionsFor } from '../simOptions';
import { meetsTargets } from '../targets';
import { deepCandidate, deepPlans, enableHolds } from './deep';
import { hasStructuralHoles, proveSearchHoles, witnessCandidate, type FormalStageOptions } from './formal';
import { emitTestbench, tableStimulus, testbenchRows, type KeptSequence } from './emit';
import { HALF_PERIOD, harnessSource, planHarness } from './harness';
import { Rng } from './rng';
import {
  MAX_CYCLES,
  prefixRows,
  StimulusGenerator,
  stimulusText,
  toCycles,
  toRows,
  totalCycles,
  type Candidate,
  type Row,
} from './stimulus';

export interface RandomOptions {
  seed: number;
  budgetMs: number;
  /** Upper bound on candidate runs. */
  maxRuns: number;
  /** Stop after this many runs in a row without a new point. */
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
  maxRuns: 5_000,
  stallRuns: 300,
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
/** Orderings tried for a DUT without a reset input (see orderWithoutReset). */
const MAX_REORDERS = 3;

/** Fewest runs without a new point before the search may call it a stall. */
const MIN_STALL_RUNS = 100;
/** The formal stage runs once the search finds nothing new for this many runs, or this share of its budget. */
const FORMAL_AFTER_RUNS = 30;
const FORMAL_AFTER_BUDGET_SHARE = 0.1;
const FORMAL_AFTER_MIN_MS = 3_000;

/** Wall-clock allowance per simulated cycle on top of the base timeout: a deep hold runs millions of cycles. */
const MS_PER_MILLION_CYCLES = 20_000;

const pointKey = pointId;

interface Kept extends KeptSequence {
  covered: Set<string>;
}

interface Chosen {
  kept: Kept;
  /** The points this sequence was chosen for: no sequence before it covers them. */
  gain: Set<string>;
}

/** Keeps the fewest sequences that still cover every point the search reached (greedy set cover). */
function minimize(kept: Kept[]): Chosen[] {
  const left = new Set<string>();
  for (const k of kept) for (const p of k.covered) left.add(p);
  const chosen: Chosen[] = [];
  const pool = [...kept];
  while (left.size && pool.length) {
    let bestIdx = 0;
    let bestGain = -1;
    pool.forEach((k, i) => {
      let g = 0;
      for (const p of k.covered) if (left.has(p)) g++;
      if (g > bestGain) {
        bestGain = g;
        bestIdx = i;
      }
    });
    if (bestGain <= 0) break;
    const [k] = pool.splice(bestIdx, 1);
    const gain = new Set<string>();
    for (const p of k.covered) if (left.delete(p)) gain.add(p);
    chosen.push({ kept: k, gain });
  }
  // Found order reads better than gain order; every sequence starts from reset, so order does not change coverage.
  if (!chosen.length && kept.length) chosen.push({ kept: kept[0], gain: new Set() });
  return chosen.sort((a, b) => kept.indexOf(a.kept) - kept.indexOf(b.kept));
}

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
  const sim = simOptionsFor(ctx, services);
  const plan = planHarness(ctx.top, ctx.instance, ctx.design.parameters);
  const rng = new Rng(opts.seed);
  const literals = literalsOf(ctx.analysis, ctx.top.name);
  const gen = new StimulusGenerator(plan.inputs, rng, literals, Boolean(plan.clock));
  const tbName = `tb_${ctx.top.name}`;
  const filename = `${tbName}.sv`;

  // Build once. The harness's top carries the testbench's name, so its coverage hierarchy is the testbench's.
  const harnessPath = join(ctx.workDir, 'chorus_vector_harness.sv');
  await writeFileAtomic(harnessPath, harnessSource(plan, tbName));
  emit({ type: 'roundStart', round: 1 });
  // With the FSM probe: new FSM states and arcs count as progress like any other point.
  const fsms = fsmModels(ctx.rtlFiles.map((f) => ({ name: f, content: ctx.sources.get(f) ?? '' })));
  const { build, plan: fsmPlan } = await buildWithFsm(
    { dutFiles: ctx.rtlFiles, testbench: harnessPath, tbTop: tbName, ownHarness: true },
    fsms,
    sim,
  );
  emit({ type: 'build', round: 1, status: build.status, ms: build.ms, diagnostics: build.diagnostics });
  if (build.status !== 'ok' || !build.binary) {
    const d = build.diagnostics[0];
    throw new ChorusError(
      build.status === 'rejected' ? 'rejected' : 'bad_input',
      `The DUT does not build with Verilator${d ? `: ${d.message}` : ''}`,
      d ? { file: d.file, line: d.line, column: d.column } : undefined,
    );
  }

  const started = Date.now();
  const covered = new Set<string>();
  let merged: CoveragePoint[] = [];
  // The user's regression (--merge), named in the harness's hierarchy once its first run shows it: the search's
  // starting state, so only what it leaves counts as new and the stop rules see the merge.
  let seed: CoveragePoint[] | undefined;
  const regressionHit = new Set<string>();
  const kept: Kept[] = [];
  const rounds: RoundSummary[] = [];
  let runs = 0;
  let sinceNew = 0;
  let lastNewAt = 0;
  let lastNewTime = Date.now();
  const ledger = ctx.formal;
  let simMs = 0;
  let roundSim = 0;
  let roundRuns = 0;
  let stopReason: StopReason = 'budget';
  const phaseMs = { plain: 0, deep: 0, search: 0, formal: 0, shrink: 0, final: 0 };
  // Line/branch/FSM targets stop early once only points proven unreachable (by analysis or by the formal stage) are left.
  const unreachable = new Set(unreachableDefaults(ctx.analysis).map((u) => `${u.file}:${u.line}`));
  const structuralTargets = Object.keys(ctx.targets).every(
    (k) => k === 'line' || k === 'branch' || k === 'fsm_state' || k === 'fsm_arc',
  );
  const proven = (p: CoveragePoint) => unreachable.has(`${p.file}:${p.line}`) || ledger.provenDepth(p) !== undefined;
  // FSM points count only when targeted (a line/branch run does not wait for FSM proofs).
  const awaited = (p: CoveragePoint) => closureKind(p.kind, ctx.targets);
  const onlyReachableLeft = (pts: CoveragePoint[]) =>
    structuralTargets &&
    hasStructuralHoles(pts, ctx.targets) &&
    pts.every((p) => p.count > 0 || !awaited(p) || proven(p));
  // Toggle points count as new too: a testbench is judged on toggles as well, and the shrinker keeps sequences short.
  const hitKeys = (pts: CoveragePoint[]) => new Set(pts.filter((p) => p.count > 0).map(pointKey));
  const stimPath = join(ctx.workDir, 'stimulus.hex');
  const covPath = join(ctx.workDir, 'candidate.dat');

  /** Runs rows (stimulus text) through the harness; whether it wrote coverage to covPath. */
  const runRows = async (
    text: string,
    cycles: number,
  ): Promise<{ written: boolean; status: string; ms: number; output: string }> => {
    await writeFile(stimPath, text);
    await rm(covPath, { force: true });
    const run = await runSimulation(
      {
        binary: build.binary!,
        coverageFile: covPath,
        plusargs: [`+stim=${stimPath}`],
        timeoutMs: opts.simTimeoutMs + Math.ceil((cycles / 1e6) * MS_PER_MILLION_CYCLES),
        // Two half periods a cycle, plus slack: the run ends at the end of its rows, never at this bound.
        maxSimTime: (cycles + 16) * 2 * HALF_PERIOD,
        cwd: ctx.workDir,
        trusted: true,
      },
      sim,
    );
    simMs += run.ms;
    roundSim += run.ms;
    return { written: run.coverageWritten, status: run.status, ms: run.ms, output: run.output };
  };

  /** Runs one candidate through the harness; the points it hit, or null when it wrote no coverage. */
  const runCandidate = async (candidate: Candidate): Promise<CoveragePoint[] | null> => {
    const run = await runRows(stimulusText(candidate), totalCycles(candidate.rows));
    runs++;
    roundRuns++;
    if (!run.written) {
      services.logger.debug(`candidate ${runs}: ${run.status}, no coverage written`);
      return null;
    }
    return (await readCoverageWithFsm(covPath, ctx.rtlFiles, fsmPlan)).points;
  };

  const reaches = async (rows: Row[], gain: Set<string>): Promise<boolean> => {
    const hit = hitKeys((await runCandidate({ rows, origin: '' })) ?? []);
    for (const k of gain) if (!hit.has(k)) return false;
    return true;
  };

  /**
   * Shrinks a kept sequence while it still reaches the points it was chosen for: the shortest prefix (binary
   * search), then chunks deleted from the middle, halving the chunk size, within a run budget. A long hold is
   * only cut at its end: its length is what reaches the points.
   */
  const shorten = async (c: Chosen, budgetRuns: number): Promise<Candidate> => {
    const cand = c.kept.candidate;
    const start = runs;
    let rows = cand.rows;
    if (totalCycles(rows) > MAX_CYCLES) {
      // A long hold: every probe costs a long run, so only whole rows are cut from the end.
      let lo = 1;
      let hi = rows.length;
      while (lo < hi && runs - start < budgetRuns && !services.signal.aborted) {
        const mid = Math.floor((lo + hi) / 2);
        if (await reaches(rows.slice(0, mid), c.gain)) hi = mid;
        else lo = mid + 1;
      }
      rows = rows.slice(0, hi);
      if (totalCycles(rows) > MAX_CYCLES) return { rows, origin: cand.origin };
    }
    let lo = gen.prologue + 1;
    let hi = totalCycles(rows);
    while (lo < hi && runs - start < budgetRuns && !services.signal.aborted) {
      const mid = Math.floor((lo + hi) / 2);
      if (await reaches(prefixRows(rows, mid), c.gain)) hi = mid;
      else lo = mid + 1;
    }
    rows = prefixRows(rows, hi);
    let cycles = toCycles(rows);
    for (let chunk = Math.floor((cycles.length - gen.prologue) / 2); chunk >= 1; chunk = Math.floor(chunk / 2)) {
      let i = gen.prologue;
      while (i < cycles.length && runs - start < budgetRuns && !services.signal.aborted) {
        const without = [...cycles.slice(0, i), ...cycles.slice(i + chunk)];
        if (without.length > gen.prologue && (await reaches(toRows(without), c.gain))) cycles = without;
        else i += chunk;
      }
      if (runs - start >= budgetRuns) break;
    }
    return { rows: toRows(cycles), origin: cand.origin };
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
  };

  // First the plain random run (the easy points in one simulation), then one hold per counter (the deep ones),
  // then the coverage-guided search.
  const scheduled: { candidate: Candidate; phase: 'plain' | 'deep' }[] = [];
  if (opts.plainCycles > 0) scheduled.push({ candidate: gen.plain(opts.plainCycles), phase: 'plain' });
  if (plan.clock) {
    const params = new Map(ctx.top.params.filter((p) => p.value !== undefined).map((p) => [p.name, BigInt(p.value!)]));
    const counters = countersOf(ctx.analysis, ctx.top.name, ctx.sources);
    const plans = deepPlans(counters, plan.inputs, literals, params);
    if (counters.length)
      services.logger.debug(
        `random search: ${counters.length} counter(s), ${plans.length} hold(s): ${plans.map((p) => `${p.counter} ${p.cycles}`).join(', ')}`,
      );
    for (const p of [...plans, ...enableHolds(plan.inputs, plans)])
      scheduled.push({ candidate: deepCandidate(p, gen.prologueRows()), phase: 'deep' });
  }

  /** Counts a candidate's points: kept when it reached a point no earlier one did. */
  const absorb = (candidate: Candidate, pts: CoveragePoint[]) => {
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
      sinceNew = 0;
      lastNewAt = runs;
      lastNewTime = Date.now();
    } else {
      sinceNew++;
    }
    merged = mergePoints(merged, pts);
  };

  /**
   * The formal stage (Yosys in a worker thread): started when the search stalls, its verdicts land in the run's
   * ledger; once it is done each witness trace is run through the harness like any candidate.
   */
  const formalAbort = new AbortController();
  const stopFormal = () => formalAbort.abort();
  services.signal.addEventListener('abort', stopFormal, { once: true });
  let formalRun: Promise<void> | undefined;
  let formalSettled = false;
  let formalCollected = false;
  let formalStarted = 0;
  const startFormal = (bounds: FormalStageOptions) => {
    formalStarted = Date.now();
    formalRun = proveSearchHoles(ctx, { ...services, signal: formalAbort.signal }, merged, bounds)
      .catch((err: unknown) => {
        // Stopped by this search (it finished first) or by the user's cancel, which the loop reports itself.
        if (!formalAbort.signal.aborted)
          services.logger.warn(`formal: ${err instanceof Error ? err.message : String(err)}`);
      })
      .finally(() => {
        formalSettled = true;
        phaseMs.formal = Date.now() - formalStarted;
      });
  };
  const collectFormal = async () => {
    formalCollected = true;
    for (const { witness, point } of ledger.takeWitnesses()) {
      if (services.signal.aborted) break;
      const candidate = witnessCandidate(plan, witness, `${basename(point.file)}:${point.line}`);
      const pts = await runCandidate(candidate);
      if (pts) absorb(candidate, pts);
      else sinceNew++;
    }
  };

  try {
    for (;;) {
      if (services.signal.aborted) {
        stopReason = 'cancelled';
        break;
      }
      if (formalSettled && !formalCollected) {
        await collectFormal();
        if (onlyReachableLeft(merged)) {
          stopReason = 'all reachable points covered';
          break;
        }
      }
      let stop: StopReason | undefined;
      if (Date.now() - started > opts.budgetMs) stop = 'budget';
      else if (runs >= opts.maxRuns) stop = 'runs';
      // A stall is judged against how long the search took to find its last new point: a design whose points all
      // came in the first dozen runs has little left that more runs will find.
      else if (runs > 0 && sinceNew >= Math.min(opts.stallRuns, Math.max(MIN_STALL_RUNS, 2 * lastNewAt)))
        stop = 'stalled';
      // The formal stage once the search stalls (or would stop): a proven rest ends the run, witnesses go on.
      const stalling =
        sinceNew >= FORMAL_AFTER_RUNS ||
        Date.now() - lastNewTime >= Math.max(FORMAL_AFTER_MIN_MS, opts.budgetMs * FORMAL_AFTER_BUDGET_SHARE);
      if (opts.formal && !formalRun && runs > 0 && (stop || stalling) && hasStructuralHoles(merged, ctx.targets)) {
        // The search waits for it: on two loaded cores Yosys beside the simulator slows both more than it saves.
        startFormal(opts.formal);
        await formalRun;
        continue;
      }
      if (stop && formalRun && !formalCollected) {
        // The search is done: what the formal stage says decides whether the run is closed (it is bounded).
        await formalRun;
        await collectFormal();
        if (onlyReachableLeft(merged)) {
          stopReason = 'all reachable points covered';
          break;
        }
        // Witnesses that reached new points give a stalled search something to mutate.
        if (stop === 'stalled' && sinceNew === 0) continue;
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
      const explore = !kept.length || rng.chance(0.35);
      const candidate: Candidate = next
        ? next.candidate
        : explore
          ? gen.fresh()
          : gen.mutate(rng.pick(kept).candidate, rng.pick(kept).candidate);
      const t0 = Date.now();
      const pts = await runCandidate(candidate);
      phaseMs[next ? next.phase : 'search'] += Date.now() - t0;
      if (services.signal.aborted) {
        stopReason = 'cancelled';
        break;
      }
      if (!pts) {
        sinceNew++;
      } else {
        absorb(candidate, pts);
        if (onlyReachableLeft(merged)) {
          stopReason = 'all reachable points covered';
          break;
        }
      }
      if (roundRuns >= opts.roundSize) {
        closeRound();
        emit({ type: 'roundStart', round: rounds.length + 1 });
      }
    }
  } finally {
    // A formal stage still running when the search ends another way (targets met, cancel) is stopped and awaited.
    if (formalRun && !formalSettled) {
      formalAbort.abort();
      await formalRun;
    }
    services.signal.removeEventListener('abort', stopFormal);
  }
  if (stopReason === 'cancelled') throw new ChorusError('cancelled', 'Cancelled.');
  if (roundRuns > 0 || rounds.length === 0) closeRound();
  if (!kept.length) {
    if (!merged.length) {
      throw new ChorusError(
        'failed',
        `No candidate stimulus produced coverage in ${runs} run(s): check the simulation log with CHORUS_LOG=debug.`,
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

  // Emit, then measure the testbench's own rows: the reported coverage is the testbench's.
  const tShrink = Date.now();
  const chosen = minimize(kept);
  const sequences: KeptSequence[] = [];
  const shrinkStart = runs;
  // Shrinking only makes the testbench shorter to read: a run budget per sequence and for all of them, no more
  // than the search itself took (a design closed by the first candidate is not worth a dozen more runs).
  const shrinkTotal = Math.min(SHRINK_RUNS_TOTAL, Math.max(MIN_SHRINK_RUNS, runs));
  for (const c of chosen) {
    const left = shrinkTotal - (runs - shrinkStart);
    sequences.push({
      candidate: left > 0 ? await shorten(c, Math.min(SHRINK_RUNS_PER_SEQUENCE, left)) : c.kept.candidate,
      newPoints: c.gain.size,
    });
  }
  phaseMs.shrink = Date.now() - tShrink;
  if (services.signal.aborted) throw new ChorusError('cancelled', 'Cancelled.');
  await orderWithoutReset(
    sequences,
    chosen.map((c) => c.gain),
  );
  const testbench = emitTestbench(plan, sequences, { seed: opts.seed, tbName });
  const table = testbenchRows(sequences);
  const cycles = table.reduce((a, r) => a + r.cycles, 0);
  emit({
    type: 'parsed',
    round: rounds.length,
    outcome: `testbench with ${sequences.length} of ${kept.length} kept sequence(s), ${cycles} cycles`,
    testbench,
  });
  const tFinal = Date.now();
  const own = opts.rebuildTestbench
    ? await evaluateTestbench(ctx, testbench, {
        filename,
        sim,
        timeoutMs: Math.max(opts.simTimeoutMs, 60_000) + Math.ceil((cycles / 1e6) * MS_PER_MILLION_CYCLES),
        maxSimTime: (cycles + 16) * 2 * HALF_PERIOD,
      })
    : await measureThroughHarness(table, cycles);
  const ev = seed && own.report.status === 'ok' ? await onRegression(seed, own) : { ...own, regression: undefined };
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
    `random search: ${runs} runs in ${Date.now() - started} ms (${simMs} ms simulating; plain ${phaseMs.plain} ms, deep ${phaseMs.deep} ms, ` +
      `search ${phaseMs.search} ms, formal ${phaseMs.formal} ms, shrink ${phaseMs.shrink} ms, final ${phaseMs.final} ms; harness build ${build.ms} ms), ${kept.length} kept, stop: ${stopReason}`,
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

  async function dutSources(): Promise<Map<string, string>> {
    const sources = new Map<string, string>();
    for (const f of ctx.rtlFiles) sources.set(f, ctx.sources.get(f) ?? (await readSourceText(f).catch(() => '')));
    return sources;
  }

  /**
   * The testbench's measurement merged with the regression, counts summed as `verilator_coverage --write` sums
   * them: the run's report, holes and verdict are the merge's; the regression, the testbench and what it adds are
   * reported beside it.
   */
  async function onRegression(
    regression: CoveragePoint[],
    tb: { report: CoverageReport; points: CoveragePoint[] },
  ): Promise<{ report: CoverageReport; points: CoveragePoint[]; regression: RegressionReport }> {
    const points = mergePoints(regression, tb.points);
    const added = points.map((p) => (regressionHit.has(pointKey(p)) ? { ...p, count: 0 } : p));
    const report: CoverageReport = {
      ...tb.report,
      coverage: summarize(points),
      instances: summarizeByInstance(points),
      holes: explainHoles(ctx, findHoles(points, await dutSources())),
    };
    return {
      report,
      points,
      regression: {
        files: ctx.regression?.files ?? [],
        coverage: summarize(regression),
        testbench: tb.report.coverage,
        added: summarize(added),
      },
    };
  }

  /**
   * Without a reset input each sequence starts from the state the one before it left, not from the state it was
   * found from: a point a sequence reached from power-up may be missed after another. Moves the sequence whose
   * points the whole table misses most to the front (power-up state), a few times, checking with harness runs.
   */
  async function orderWithoutReset(seqs: KeptSequence[], gains: Set<string>[]): Promise<void> {
    if (gen.prologue || seqs.length < 2) return;
    const order = seqs.map((_, i) => i);
    for (let attempt = 0; attempt < MAX_REORDERS && !services.signal.aborted; attempt++) {
      const rows = testbenchRows(order.map((i) => seqs[i]));
      const run = await runRows(
        tableStimulus(rows),
        rows.reduce((a, r) => a + r.cycles, 0),
      );
      if (!run.written) return;
      const hit = hitKeys((await readCoverageWithFsm(covPath, ctx.rtlFiles, fsmPlan)).points);
      const missed = (i: number) => [...gains[i]].filter((k) => !hit.has(k)).length;
      let best = 0;
      for (let pos = 1; pos < order.length; pos++)
        if (missed(order[pos]) > (best ? missed(order[best]) : 0)) best = pos;
      if (!best) break;
      order.unshift(...order.splice(best, 1));
    }
    const reordered = order.map((i) => seqs[i]);
    seqs.splice(0, seqs.length, ...reordered);
  }

  /**
   * The testbench's table re-run through the harness binary: the same rows with the same timing as the
   * testbench's own loop, so the same points, without a second Verilator build. The testbench is written too.
   */
  async function measureThroughHarness(
    rows: ReturnType<typeof testbenchRows>,
    n: number,
  ): Promise<{ report: CoverageReport; points: CoveragePoint[] }> {
    await writeFileAtomic(join(ctx.workDir, filename), testbench);
    const run = await runRows(tableStimulus(rows), n);
    const failed = (message: string): { report: CoverageReport; points: CoveragePoint[] } => ({
      report: {
        status: run.status === 'timeout' ? 'timeout' : 'sim_error',
        coverage: summarize([]),
        instances: {},
        holes: [],
        diagnostics: [{ file: join(ctx.workDir, filename), line: 0, column: 0, severity: 'error', message }],
        ms: { build: 0, sim: run.ms },
      },
      points: [],
    });
    if (!run.written)
      return failed(`The emitted testbench's stimulus wrote no coverage (${run.status}): ${run.output.slice(-400)}`);
    const points = scopeToTop((await readCoverageWithFsm(covPath, ctx.rtlFiles, fsmPlan)).points, ctx.top.name);
    if (!points.length) return failed(`No coverage of the DUT top module '${ctx.top.name}' was measured.`);
    const report: CoverageReport = {
      status: run.status === 'ok' ? 'ok' : run.status === 'timeout' ? 'timeout' : 'sim_error',
      coverage: summarize(points),
      instances: summarizeByInstance(points),
      holes: explainHoles(ctx, findHoles(points, await dutSources())),
      diagnostics: [],
      ms: { build: 0, sim: run.ms },
    };
    return { report, points };
  }
}
