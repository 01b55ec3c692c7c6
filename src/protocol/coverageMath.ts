/**
 * Coverage math, defined once for the engine, the CLI and the extension: what a kind's percentage is, what
 * "overall" means, when targets are met. Pure; no I/O.
 */
import { REPORTED_KINDS, type CoverageSummary, type KindTotals, type ReportedKind, type TargetMetric, type Targets } from './coverage';

/** A kind's totals: covered of total, percent rounded down to 0.1 (a design with no points of a kind reads 100 %). */
export function kindTotals(covered: number, total: number): KindTotals {
  return { covered, total, pct: total === 0 ? 100 : Math.floor((covered * 1000) / total) / 10 };
}

/** A summary with nothing measured (a failed build or run): 0 of 0 at 0 %, never a misleading 100 %. */
export function emptySummary(): CoverageSummary {
  return Object.fromEntries(REPORTED_KINDS.map((k) => [k, { covered: 0, total: 0, pct: 0 }])) as CoverageSummary;
}

/** The kinds this design has points of. */
export function presentKinds(s: CoverageSummary): ReportedKind[] {
  return REPORTED_KINDS.filter((k) => (s[k]?.total ?? 0) > 0);
}

/**
 * "Overall" is the mean of the percentages of the kinds that have points, so that a design with thousands of
 * toggle points and a dozen branches weighs both alike (the reading of the `overall` target everywhere).
 */
export function overallPct(s: CoverageSummary): number {
  const present = presentKinds(s);
  if (!present.length) return 0;
  return Math.round((present.reduce((a, k) => a + s[k].pct, 0) / present.length) * 10) / 10;
}

export function metricPct(s: CoverageSummary, metric: TargetMetric): number {
  return metric === 'overall' ? overallPct(s) : (s[metric]?.pct ?? 0);
}

/** The target metrics a summary falls short of. */
export function unmetTargets(s: CoverageSummary, targets: Targets): TargetMetric[] {
  return (Object.keys(targets) as TargetMetric[]).filter((m) => metricPct(s, m) + 1e-9 < (targets[m] ?? 0));
}

export function meetsTargets(s: CoverageSummary, targets: Targets): boolean {
  return unmetTargets(s, targets).length === 0;
}

/** Covered points gained from a to b, over all reported kinds. */
export function coveredGain(a: CoverageSummary, b: CoverageSummary): number {
  return REPORTED_KINDS.reduce((n, k) => n + ((b[k]?.covered ?? 0) - (a[k]?.covered ?? 0)), 0);
}
