/**
 * Coverage math, defined once for the engine, the CLI and the extension: what a kind's percentage is, what
 * "overall" means, when targets are met. Pure; no I/O.
 *
 * Kinds beyond line, branch and toggle (fsm_state, fsm_arc, expr) are optional in a summary: absent means the
 * design (or the Verilator) has no such points, and then they change no number: "overall" is the mean over the
 * kinds that have points, so a design without an FSM reads exactly as before these kinds existed. Expression
 * coverage is reported but stays out of "overall" and progress (only some Verilators measure it, and a user
 * targets it explicitly).
 */
import {
  BASE_KINDS,
  REPORTED_KINDS,
  type CoverageSummary,
  type KindTotals,
  type ReportedKind,
  type TargetMetric,
  type Targets,
} from './coverage';

/** The kinds "overall" and progress count: every reported kind but `expr`. */
export const OVERALL_KINDS: readonly ReportedKind[] = REPORTED_KINDS.filter((k) => k !== 'expr');

/** A kind's totals: covered of total, percent rounded down to 0.1 (a design with no points of a kind reads 100 %). */
export function kindTotals(covered: number, total: number): KindTotals {
  return { covered, total, pct: total === 0 ? 100 : Math.floor((covered * 1000) / total) / 10 };
}

/** A summary with nothing measured (a failed build or run): 0 of 0 at 0 %, never a misleading 100 %. */
export function emptySummary(): CoverageSummary {
  return Object.fromEntries(BASE_KINDS.map((k) => [k, { covered: 0, total: 0, pct: 0 }])) as CoverageSummary;
}

/** A kind's totals; a kind absent from the summary has no points (0 of 0, 100 %). */
export function totalsOf(s: CoverageSummary, kind: ReportedKind): KindTotals {
  return s[kind] ?? kindTotals(0, 0);
}

/** The kinds a view shows: line, branch and toggle always, the others when the design has points of them. */
export function shownKinds(s: CoverageSummary): ReportedKind[] {
  return REPORTED_KINDS.filter((k) => (BASE_KINDS as readonly string[]).includes(k) || (s[k]?.total ?? 0) > 0);
}

/** True when a summary counts any point: a round or run whose testbench never compiled and ran has none. */
export function isMeasured(s: CoverageSummary): boolean {
  return presentKinds(s).length > 0;
}

/** The kinds this design has points of (all reported kinds, `expr` included: what a summary line shows). */
export function presentKinds(s: CoverageSummary): ReportedKind[] {
  return REPORTED_KINDS.filter((k) => (s[k]?.total ?? 0) > 0);
}

/**
 * "Overall" is the mean of the percentages of the kinds that have points, so that a design with thousands of
 * toggle points and a dozen branches weighs both alike (the reading of the `overall` target everywhere).
 */
export function overallPct(s: CoverageSummary): number {
  const present = presentKinds(s).filter((k) => OVERALL_KINDS.includes(k));
  if (!present.length) return 0;
  return Math.round((present.reduce((a, k) => a + (s[k]?.pct ?? 0), 0) / present.length) * 10) / 10;
}

/**
 * A metric's percentage. An optional kind absent from a measured summary has no points and reads 100 %, as
 * `kindTotals` reads 0 of 0; in a summary with nothing measured (a failed run) it reads 0 %.
 */
export function metricPct(s: CoverageSummary, metric: TargetMetric): number {
  if (metric === 'overall') return overallPct(s);
  const totals = s[metric];
  if (totals) return totals.pct;
  return BASE_KINDS.some((k) => (s[k]?.total ?? 0) > 0) ? 100 : 0;
}

/** The target metrics a summary falls short of. */
export function unmetTargets(s: CoverageSummary, targets: Targets): TargetMetric[] {
  return (Object.keys(targets) as TargetMetric[]).filter((m) => metricPct(s, m) + 1e-9 < (targets[m] ?? 0));
}

export function meetsTargets(s: CoverageSummary, targets: Targets): boolean {
  return unmetTargets(s, targets).length === 0;
}

/** Covered points gained from a to b, over the kinds "overall" counts (FSM states and arcs are progress too). */
export function coveredGain(a: CoverageSummary, b: CoverageSummary): number {
  return OVERALL_KINDS.reduce((n, k) => n + ((b[k]?.covered ?? 0) - (a[k]?.covered ?? 0)), 0);
}
