/** Totals of coverage points: per kind, per instance, and across merged runs. */
import {
  BASE_KINDS,
  REPORTED_KINDS,
  kindTotals,
  pointId,
  type CoveragePoint,
  type CoverageSummary,
} from '../../protocol';
export { emptySummary, kindTotals } from '../../protocol';

/** A point's identity across runs: the same file, place, kind, comment and instance. */
export { pointId } from '../../protocol';

/**
 * `localeCompare`'s orders, with the collators made once: given options, `localeCompare` builds one per call, which
 * made sorting a core's 25,000 points after each run take seconds of a search's time.
 */
const byLocale = new Intl.Collator().compare;
const byLocaleNumeric = new Intl.Collator(undefined, { numeric: true }).compare;

function comparePoints(a: CoveragePoint, b: CoveragePoint): number {
  return (
    (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
    a.line - b.line ||
    a.column - b.column ||
    byLocale(a.kind, b.kind) ||
    byLocale(a.hierarchy, b.hierarchy) ||
    byLocaleNumeric(a.comment, b.comment)
  );
}

/** Union of runs: counts of the same point add up. Sorted by file, line, column, kind, instance, comment. */
export function mergePoints(...sets: CoveragePoint[][]): CoveragePoint[] {
  const merged = new Map<string, CoveragePoint>();
  for (const set of sets) {
    for (const p of set) {
      const id = pointId(p);
      const seen = merged.get(id);
      if (seen) seen.count += p.count;
      else merged.set(id, { ...p });
    }
  }
  return [...merged.values()].sort(comparePoints);
}

export function isCovered(p: CoveragePoint): boolean {
  return p.count > 0;
}

export function summarize(points: CoveragePoint[]): CoverageSummary {
  const counts = Object.fromEntries(REPORTED_KINDS.map((k) => [k, { covered: 0, total: 0 }])) as Record<
    string,
    { covered: number; total: number }
  >;
  for (const p of points) {
    const c = counts[p.kind];
    if (!c) continue;
    c.total++;
    if (isCovered(p)) c.covered++;
  }
  // Line, branch and toggle always; the optional kinds (FSM, expression) only when there are points of them.
  const kinds = REPORTED_KINDS.filter((k) => (BASE_KINDS as readonly string[]).includes(k) || counts[k].total > 0);
  return Object.fromEntries(kinds.map((k) => [k, kindTotals(counts[k].covered, counts[k].total)])) as CoverageSummary;
}

/**
 * Totals per instance path, cumulative: `TOP.tb.uut` includes `TOP.tb.uut.u_fifo`, as instance targets
 * expect. Keys are the instance paths that hold DUT points.
 */
export function summarizeByInstance(points: CoveragePoint[]): Record<string, CoverageSummary> {
  const paths = [...new Set(points.map((p) => p.hierarchy).filter(Boolean))].sort();
  const out: Record<string, CoverageSummary> = {};
  for (const path of paths) {
    out[path] = summarize(points.filter((p) => p.hierarchy === path || p.hierarchy.startsWith(`${path}.`)));
  }
  return out;
}
