/**
 * The search loop: first the plain random runs (the easy points in one simulation each: without resets, and with
 * one about every 50 cycles) and one hold per counter (the deep ones), then candidates from the strategies, each
 * drawn by what it found recently (several to a run where a run's start is costly), until the targets are met,
 * only proven points are left, or the budget (less what the finish needs) is spent. The formal stage runs once:
 * beside the search from its first holes where there is a core for it, else when progress stops, the search
 * waiting for it; its witnesses come back as candidates.
 */
import { countersOf } from '../../hdl';
import type { SimOptions } from '../../sim';
import type { CoveragePoint, Logger, StopReason } from '../../protocol';
import type { RunContext } from '../context';
import { closureKind } from '../closure/ledger';
import { exclusionOf, standingVerdict } from '../standing';
import { DEEP_RUN_SHARE, type SearchBudget } from './budget';
import { deepCandidate, deepPlans, enableHolds, type DeepPlan } from './deep';
import { hasStructuralHoles } from './formal';
import type { FormalStage } from './formalStage';
import type { HarnessPlan } from './harness';
import type { LiveTable } from './liveTable';
import type { SearchOptions } from './options';
import type { SearchProgress } from './progress';
import type { Rng } from './rng';
import type { RoundReporter } from './rounds';
import type { HarnessRunner } from './runner';
import {
  MAX_CYCLES,
  mergeRows,
  PLAIN_RESET_RATE,
  totalCycles,
  type Candidate,
  type StimulusGenerator,
} from './stimulus';
import type { Strategies, StrategyName } from './strategies';

/**
 * Runs that all end in a simulation error without writing coverage, none before them having written any: the
 * design stops every simulation (its own check rejects the parameters), so the search ends instead of its budget.
 */
const NO_COVERAGE_RUNS = 3;
/** Fewest runs without a new point before an explicit stall rule may call it a stall. */
const MIN_STALL_RUNS = 100;
/** The formal stage runs once the search finds nothing new for this many runs, or this share of its budget. */
const FORMAL_AFTER_RUNS = 30;
const FORMAL_AFTER_BUDGET_SHARE = 0.1;
const FORMAL_AFTER_MIN_MS = 3_000;
const FORMAL_AFTER_MIN_RUNS = 3;
/** The formal stage's share of the search time left when it starts. */
const FORMAL_SHARE_OF_LEFT = 0.5;
/** ...but never less than this while there is that much left (loading Yosys alone takes seconds). */
const FORMAL_FLOOR_MS = 4_000;
/**
 * Beside the search, the formal stage may take this share of what is left (the rest runs its witnesses), and Yosys
 * at most this much memory (its default bound), half the run's limit where that is less.
 */
const FORMAL_BESIDE_SHARE = 0.85;
const FORMAL_BESIDE_MAX_BYTES = 2048 * 2 ** 20;
/** Plain random candidates: these lengths, each bounded by what one run may take. */
const PLAIN_LENGTHS = [2_000, 10_000, 50_000];
/** Reset densities of plain random candidates: about one cycle in 50 as plain random runs, rarer, none. */
const PLAIN_RESET_RATES = [PLAIN_RESET_RATE, PLAIN_RESET_RATE, 1 / 500, 0];
/** Idle holds after a kept candidate: arm-then-wait timers and watchdogs. */
const HOLD_LENGTHS = [1 << 10, 1 << 14, 1 << 17, 1 << 20];
/** A hold shorter than this is not worth a run. */
const MIN_HOLD = 256;
/**
 * Strategies whose candidates each start with a reset, so several can run back to back in one simulation; where
 * a run's start is costly (the runner's costlyStart), short candidates share runs until the start is at most a
 * third of the run, as plain random's own reset pulses share one.
 */
const BATCHED: ReadonlySet<StrategyName> = new Set(['fresh', 'mutate', 'restart', 'narrow', 'single', 'dictionary']);
const MAX_BATCH = 32;

export interface PhaseMs {
  plain: number;
  deep: number;
  search: number;
  formal: number;
  shrink: number;
  final: number;
}

export interface SearchParts {
  ctx: RunContext;
  signal: AbortSignal;
  logger: Logger;
  opts: SearchOptions;
  sim: SimOptions;
  plan: HarnessPlan;
  rng: Rng;
  gen: StimulusGenerator;
  literals: bigint[];
  budget: SearchBudget;
  runner: HarnessRunner;
  progress: SearchProgress;
  rounds: RoundReporter;
  strategies: Strategies;
  formal: FormalStage;
  /** The testbench's table, measured as its sequences are kept where a run's start is costly. */
  live: LiveTable;
  /** Milliseconds the finish keeps back. */
  reserve: () => number;
  /** Runs a candidate within `share` of the budget (the ordinary run's share when omitted; rounds counted). */
  run: (candidate: Candidate, share?: number) => Promise<CoveragePoint[] | null>;
}

/** Whether only points proven unreachable (by analysis or by the formal stage) are left of line/branch/FSM targets. */
export function closureCheck(ctx: RunContext): (pts: CoveragePoint[]) => boolean {
  const structuralTargets = Object.keys(ctx.targets).every(
    (k) => k === 'line' || k === 'branch' || k === 'fsm_state' || k === 'fsm_arc',
  );
  const excludedBy = exclusionOf(ctx);
  // FSM points count only when targeted (a line/branch run does not wait for FSM proofs).
  const awaited = (p: CoveragePoint) => closureKind(p.kind, ctx.targets);
  return (pts) =>
    structuralTargets &&
    hasStructuralHoles(pts, ctx.targets) &&
    pts.every((p) => p.count > 0 || !awaited(p) || excludedBy(p) === 'proven');
}

interface Scheduled {
  candidate: Candidate;
  phase: 'plain' | 'deep';
}

/**
 * The candidates run first (the plain random runs, then one hold per counter the analysis found), and the holds of
 * every enable, which wait until the search first stalls: they aim at no point the analysis knows, and on a core
 * (an instruction word of all ones traps) a long one costs seconds that fresh random stimulus uses better.
 */
function schedule(parts: SearchParts): { scheduled: Scheduled[]; onStall: Scheduled[] } {
  const { ctx, opts, plan, gen, literals, logger } = parts;
  const scheduled: Scheduled[] = [];
  if (opts.plainCycles > 0) {
    scheduled.push({ candidate: gen.plain(opts.plainCycles), phase: 'plain' });
    // And with a reset about one cycle in 50, as plain random runs: many short runs from reset in one simulation
    // reach what a core does in its first cycles after a reset (boot, the first fetches, the first traps).
    if (gen.hasReset) scheduled.push({ candidate: gen.plain(opts.plainCycles, PLAIN_RESET_RATE), phase: 'plain' });
  }
  if (!plan.clock) return { scheduled, onStall: [] };
  const params = new Map(ctx.top.params.filter((p) => p.value !== undefined).map((p) => [p.name, BigInt(p.value!)]));
  const counters = countersOf(ctx.analysis, ctx.top.name, ctx.sources);
  const plans = deepPlans(counters, plan.inputs, literals, params);
  if (counters.length)
    logger.debug(
      `search: ${counters.length} counter(s), ${plans.length} hold(s): ${plans.map((p) => `${p.counter} ${p.cycles}`).join(', ')}`,
    );
  const hold = (p: DeepPlan): Scheduled => ({ candidate: deepCandidate(p, gen.prologueRows()), phase: 'deep' });
  return { scheduled: [...scheduled, ...plans.map(hold)], onStall: enableHolds(plan.inputs, plans).map(hold) };
}

/** The next candidate of a strategy, sized to what one run may take. */
function nextOf(parts: SearchParts, strategy: StrategyName): Candidate {
  const { gen, rng, runner, budget, progress } = parts;
  const fits = (cycles: number) => Math.min(cycles, runner.cyclesWithin(budget.runAllowance(parts.reserve())));
  const parent = () => rng.pick(progress.kept).candidate;
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
      const short = progress.kept.filter((k) => totalCycles(k.candidate.rows) <= MAX_CYCLES);
      const cycles = fits(rng.pick(HOLD_LENGTHS));
      if (!short.length || cycles < MIN_HOLD) return gen.fresh();
      return gen.holdAfter(rng.pick(short).candidate, cycles);
    }
    case 'dictionary':
      return gen.dictionary();
    case 'fresh':
      return gen.fresh();
  }
}

/** The strategy's candidate, or several of them back to back (each from reset) where a run's start is costly. */
function batchOf(parts: SearchParts, strategy: StrategyName): Candidate {
  const { gen, runner, budget } = parts;
  const first = nextOf(parts, strategy);
  if (!gen.prologue || !BATCHED.has(strategy) || !runner.costlyStart) return first;
  const target = Math.min(
    MAX_CYCLES,
    runner.cyclesWithin(3 * runner.startMs!),
    runner.cyclesWithin(budget.runAllowance(parts.reserve())),
  );
  const rows = [...first.rows];
  let cycles = totalCycles(rows);
  const starts = [0];
  while (cycles < target && starts.length < MAX_BATCH) {
    const next = nextOf(parts, strategy);
    const more = totalCycles(next.rows);
    if (cycles + more > MAX_CYCLES) break;
    starts.push(cycles);
    rows.push(...next.rows);
    cycles += more;
  }
  const n = starts.length;
  return n === 1 ? first : { rows: mergeRows(rows), origin: `${first.origin}, and ${n - 1} more from reset`, starts };
}

/** Runs the search until a stop rule; the reason, and where the time went. */
export async function explore(parts: SearchParts): Promise<{ stopReason: StopReason; phaseMs: PhaseMs }> {
  const { ctx, opts, budget, runner, progress, formal, strategies, signal, logger } = parts;
  const phaseMs: PhaseMs = { plain: 0, deep: 0, search: 0, formal: 0, shrink: 0, final: 0 };
  const closed = closureCheck(ctx);
  // The verdict changes only with the points covered and the proofs recorded: judged again only when one did.
  let unmetAt = '';
  const targetsMet = (): boolean => {
    const at = `${progress.covered.size}:${ctx.formal.version}`;
    if (!progress.merged.length || at === unmetAt) return false;
    const met = standingVerdict(ctx, progress.merged, opts.requireRaw).met;
    if (!met) unmetAt = at;
    return met;
  };
  const { scheduled, onStall } = schedule(parts);
  const deepLimit = () => budget.runAllowance(parts.reserve(), DEEP_RUN_SHARE);
  // A kept candidate is kept up to its last new hit: the testbench replays no stretch that reached nothing.
  const absorb = (candidate: Candidate, pts: CoveragePoint[]): number => {
    const reaching = runner.reachingPart(candidate);
    const fresh = progress.absorb(reaching.candidate, pts, runner.runs, reaching.ms, reaching.whole);
    parts.live.sync(progress.kept);
    return fresh;
  };

  /** Runs the formal stage's witnesses through the harness; whether only proven points are left after them. */
  const collectFormal = async (): Promise<boolean> => {
    for (const candidate of formal.witnesses()) {
      if (signal.aborted) break;
      const pts = await parts.run(candidate);
      if (pts) absorb(candidate, pts);
      else progress.nothing();
    }
    return closed(progress.merged);
  };

  /**
   * Starts the formal stage beside the search, within `leftMs` less a share for its witnesses' runs (all of it where
   * it turns out to prove only); Yosys gets part of the run's memory limit and the runs the rest while it works.
   */
  const startBeside = (leftMs: number) => {
    const formalBytes = Math.min(FORMAL_BESIDE_MAX_BYTES, Math.floor(runner.memoryLimitBytes() / 2));
    runner.reserveMemory(formalBytes);
    logger.debug(
      `search: the formal stage starts beside the search (${Math.round(leftMs / 1000)} s left, Yosys bounded to ${Math.round(formalBytes / 2 ** 20)} MiB)`,
    );
    const runsBefore = runner.runs;
    void formal
      .start(progress.merged, leftMs * FORMAL_BESIDE_SHARE, progress.kept, Math.floor(formalBytes / 2 ** 20), leftMs)
      .finally(() => {
        runner.reserveMemory(0);
        phaseMs.formal = formal.ms;
        logger.debug(
          `search: the formal stage ended; the search ran ${runner.runs - runsBefore} candidate(s) beside it in ${formal.ms} ms`,
        );
      });
  };

  for (;;) {
    if (signal.aborted) return { stopReason: 'cancelled', phaseMs };
    if (formal.ready && (await collectFormal())) return { stopReason: 'all reachable points covered', phaseMs };
    let stop: StopReason | undefined;
    // The first candidate runs whatever the build left of the budget (a build just shorter than the budget, on a
    // loaded machine): a run with no coverage at all has no result to keep, and one plain run is short.
    if (runner.runs > 0 && budget.searchOver(parts.reserve())) stop = 'budget';
    else if (runner.runs >= opts.maxRuns) stop = 'runs';
    // An optional stall rule (off by default: the search switches strategy instead of stopping with budget left),
    // judged against how long the search took to find its last new point.
    else if (
      Number.isFinite(opts.stallRuns) &&
      runner.runs > 0 &&
      progress.sinceNew >= Math.min(opts.stallRuns, Math.max(MIN_STALL_RUNS, 2 * progress.lastNewAt))
    )
      stop = 'stalled';
    // A stall on the points the formal stage decides (toggle points still coming do not count: it decides none of
    // them) first runs the holds of every enable, then starts the formal stage (also when the search would stop):
    // a proven rest ends the run, witnesses go on.
    // A stall by time takes a few runs too: one long run that found nothing (a core's hold) is not a stall.
    const stalling =
      progress.structuralSinceNew >= FORMAL_AFTER_RUNS ||
      (progress.structuralSinceNew >= FORMAL_AFTER_MIN_RUNS &&
        Date.now() - progress.lastStructuralTime >=
          Math.max(FORMAL_AFTER_MIN_MS, opts.budgetMs * FORMAL_AFTER_BUDGET_SHARE));
    // Half of what is left at most: the search waits for it, and the points Yosys cannot decide still need runs.
    const left = budget.remaining() - parts.reserve();
    const formalTime = Math.max(Math.min(left, FORMAL_FLOOR_MS), left * FORMAL_SHARE_OF_LEFT);
    if (stalling && onStall.length) scheduled.unshift(...onStall.splice(0));
    // Beside the search: started once the plain random runs have taken the easy points, on the holes left; the
    // search goes on. At the search's end it is waited for (its own bound ends it), its witnesses then run.
    if (opts.formalBeside) {
      if (
        !stop &&
        runner.runs > 0 &&
        !scheduled.some((s) => s.phase === 'plain') &&
        formal.canStart(left) &&
        hasStructuralHoles(progress.merged, ctx.targets)
      )
        startBeside(left);
      else if (stop && formal.awaited) {
        await formal.settle();
        phaseMs.formal = formal.ms;
        continue;
      }
    }
    if (
      runner.runs > 0 &&
      (stop || (stalling && !scheduled.length)) &&
      formal.canStart(formalTime) &&
      hasStructuralHoles(progress.merged, ctx.targets)
    ) {
      // The search waits for it (one core, or beside was not started: too little left when the plain runs ended).
      await formal.run(progress.merged, formalTime, progress.kept);
      phaseMs.formal = formal.ms;
      continue;
    }
    if (stop) return { stopReason: stop, phaseMs };
    // The verdict's own rule: points proven or waived are left out, as the result will count them.
    if (targetsMet()) return { stopReason: 'targets met', phaseMs };
    const next = scheduled.shift();
    if (next && next.phase === 'deep' && runner.estimateMs(totalCycles(next.candidate.rows)) > deepLimit()) {
      logger.debug(
        `search: skipped a hold of ${totalCycles(next.candidate.rows)} cycles: about ${Math.round(runner.estimateMs(totalCycles(next.candidate.rows)))} ms, more than a hold may take now (${Math.round(deepLimit())} ms)`,
      );
      continue;
    }
    const strategy: StrategyName | undefined = next ? undefined : strategies.pick(progress.kept.length > 0);
    const candidate = next ? next.candidate : batchOf(parts, strategy!);
    const t0 = Date.now();
    const pts = await parts.run(candidate, next?.phase === 'deep' ? DEEP_RUN_SHARE : undefined);
    phaseMs[next ? next.phase : 'search'] += Date.now() - t0;
    if (signal.aborted) return { stopReason: 'cancelled', phaseMs };
    const fresh = pts ? absorb(candidate, pts) : (progress.nothing(), 0);
    if (!progress.merged.length && runner.runs >= NO_COVERAGE_RUNS && runner.lastFailure?.status === 'sim_error')
      return { stopReason: 'error', phaseMs };
    if (strategy) strategies.credit(strategy, fresh, totalCycles(candidate.rows));
    if (pts && closed(progress.merged)) return { stopReason: 'all reachable points covered', phaseMs };
    parts.rounds.maybeClose(progress.merged);
  }
}
