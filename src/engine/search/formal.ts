/**
 * The model-free search's formal stage: the line and branch holes the search left go to Yosys with the run's design
 * options; verdicts land in the run's ledger (proofs label holes, reasons say why not) and witness traces come back
 * as candidate stimulus, which the search runs through its harness like any other: Verilator decides what they hit.
 */
import { ChorusError, pointOfId, type CoveragePoint, type Targets } from '../../protocol';
import type { EngineServices } from '../api';
import type { RunContext } from '../context';
import { closureKind, isFormalKind } from '../closure/ledger';
import {
  MAX_START_CYCLES,
  provePoints,
  type FormalServices,
  type StartState,
  type StimulusRow,
  type Witness,
} from '../closure/provePoints';
import type { HarnessPlan } from './harness';
import type { Kept } from './shrink';
import { totalCycles, type Candidate, type Row } from './stimulus';

export interface FormalStageOptions {
  /** Bound of the whole formal run, seconds. */
  timeoutSeconds: number;
  /** Its bound once it turns out to prove only (no witness comes back for the search to run), seconds. */
  proofsOnlyTimeoutSeconds?: number | undefined;
  /** Bound of one point's SAT problem, seconds. */
  pointTimeoutSeconds: number;
  /** Longest induction and witness search, cycles. */
  maxDepth: number;
  /** Memory bound of Yosys, MiB (the formal engine's default when absent). */
  memoryMb?: number | undefined;
}

/**
 * Per run: the search budget, between 20 s and 60 s (loading Yosys alone takes seconds on a loaded machine); the
 * caller bounds it further by what is left (half of it after a stall, most of it beside the search, which goes on).
 * Per point: 5 s. Depth 8: the search reaches deep points by itself (counter holds), and a point past the bound
 * costs the whole bound.
 */
export function formalBounds(budgetMs: number): FormalStageOptions {
  return {
    timeoutSeconds: Math.min(60, Math.max(20, Math.round(budgetMs / 1000))),
    pointTimeoutSeconds: 5,
    maxDepth: 8,
  };
}

const isHole = (p: CoveragePoint) => p.count === 0 && isFormalKind(p.kind);

/**
 * Whether the formal stage has something to decide: an uncovered line or branch point, or an FSM point when the
 * run targets FSM coverage (FSM holes alone do not start Yosys in a line/branch run; once it runs it decides them too).
 */
export const hasStructuralHoles = (points: CoveragePoint[], targets: Targets = {}) =>
  points.some((p) => isHole(p) && closureKind(p.kind, targets));

/**
 * Hands the uncovered line and branch points of `points` (the search's merged coverage) to the formal engine and
 * records every verdict in the run's ledger. A failure of the formal engine is a reason on each hole, not the
 * run's failure; cancellation stops it at once.
 */
export async function proveSearchHoles(
  ctx: RunContext,
  services: EngineServices & Pick<FormalServices, 'onProofsOnly'>,
  points: CoveragePoint[],
  opts: FormalStageOptions,
  /** States the search reached, for witnesses past the bound from reset. */
  starts: StartState[] = [],
): Promise<void> {
  const ledger = ctx.formal;
  const started = Date.now();
  const defines = Object.fromEntries(Object.entries(ctx.design.defines ?? {}).map(([k, v]) => [k, v ?? '']));
  try {
    const result = await provePoints(
      points,
      { rtlFiles: ctx.rtlFiles, top: ctx.top.name },
      {
        includeDirs: ctx.design.includeDirs,
        defines,
        parameters: ctx.design.parameters,
        timeoutSeconds: opts.timeoutSeconds,
        proofsOnlyTimeoutSeconds: opts.proofsOnlyTimeoutSeconds,
        pointTimeoutSeconds: opts.pointTimeoutSeconds,
        maxDepth: opts.maxDepth,
        memoryMb: opts.memoryMb,
        starts,
      },
      {
        logger: services.logger,
        signal: services.signal,
        ...(services.onProofsOnly ? { onProofsOnly: services.onProofsOnly } : {}),
      },
    );
    result.verdicts.forEach((v, i) => ledger.record(result.points[i], v.verdict));
    const counts = { unreachable: 0, witness: 0, unknown: 0 };
    for (const v of result.verdicts) counts[v.verdict.status]++;
    services.logger.debug(
      `formal: ${result.verdicts.length} hole(s): ${counts.unreachable} proven unreachable, ${counts.witness} witness(es), ${counts.unknown} unknown in ${result.yosysMs} ms${result.failure ? ` (${result.failure})` : ''}`,
    );
  } catch (err) {
    if (services.signal.aborted || (err instanceof ChorusError && err.kind === 'cancelled'))
      throw new ChorusError('cancelled', 'Cancelled.');
    const reason = `the formal engine failed: ${err instanceof Error ? err.message : String(err)}`;
    services.logger.warn(reason);
    for (const p of points.filter(isHole)) ledger.record(p, { status: 'unknown', reason });
  } finally {
    ledger.ms += Date.now() - started;
    ledger.runs++;
  }
}

function hexValue(text: string | undefined, width: number): bigint {
  const v = /^[0-9a-f]+$/i.test(text ?? '') ? BigInt(`0x${text}`) : 0n;
  return v & ((1n << BigInt(Math.max(1, width))) - 1n);
}

/** Kept sequences the witness search may start from: this many at most, the shortest first. */
const MAX_STARTS = 64;

/**
 * The search's kept sequences as start states for deep witnesses: one row per cycle up to the most the formal
 * engine unrolls (the state there was reached too), each input the harness drives as itself (array elements and
 * inputs that echo an output are left free), and the lines each covered.
 */
export function startStates(plan: HarnessPlan, kept: readonly Kept[]): StartState[] {
  const own = plan.inputs.map((input, at) => ({ input, at })).filter(({ input }) => !input.element && !input.echo);
  return [...kept]
    .sort((a, b) => totalCycles(a.candidate.rows) - totalCycles(b.candidate.rows))
    .slice(0, MAX_STARTS)
    .map((k) => {
      const rows: StimulusRow[] = [];
      for (const r of k.candidate.rows) {
        const row = Object.fromEntries(own.map(({ input, at }) => [input.name, (r.values[at] ?? 0n).toString(16)]));
        for (let n = 0; n < r.count && rows.length < MAX_START_CYCLES; n++) rows.push(row);
        if (rows.length >= MAX_START_CYCLES) break;
      }
      const reached = [...k.covered].map(pointOfId).filter((p) => p.kind === 'line');
      return { rows, reached };
    });
}

/**
 * A witness as a harness candidate: its rows in the harness's input order (an input the trace does not name is 0),
 * one cycle each, then one more cycle with the last row's values so the point's cycle is completed.
 */
export function witnessCandidate(plan: HarnessPlan, witness: Witness, label: string): Candidate {
  const rows: Row[] = witness.rows.map((r) => ({
    count: 1,
    values: plan.inputs.map((i) => hexValue(r[i.name], i.width)),
  }));
  const last = rows[rows.length - 1];
  if (last) rows.push({ count: 1, values: [...last.values] });
  return { rows, origin: `formal witness for ${label}` };
}
