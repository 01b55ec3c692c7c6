/**
 * The verdict rule, once for every adapter (CLI `generate` and `bench`, the language server's result, the editor's
 * test state): a run's targets are judged on coverage where points proven unreachable (k-induction or the analysis)
 * and points a person waived are excluded from each kind's total, as signoff tools (URG, IMC) count exclusions;
 * `requireRaw` judges on the raw counts instead. A run is closed when every line and branch point (and FSM point,
 * when targeted) is covered or excluded. Exit code: 130 cancelled, 0 met, 1 otherwise (a failed build or run never
 * meets a target). Pure.
 */
import {
  isExcluded,
  kindTotals,
  metricPct,
  presentKinds,
  type CoverageSummary,
  type Hole,
  type ReportedKind,
  type TargetMetric,
  type Targets,
  type Verdict,
} from '../protocol';
import { closureKind } from './closure/ledger';

export interface VerdictInput {
  coverage: CoverageSummary;
  holes: readonly Hole[];
  targets: Targets;
  /** The result's testbench built and ran (`ok`): a failed run meets nothing. */
  ran: boolean;
  cancelled: boolean;
  /** Judge on raw coverage: excluded points count as missed. */
  requireRaw?: boolean | undefined;
}

// The rule of what a signoff leaves out lives in the protocol, so the editor counts with the same one.
export { isExcluded };

export function judge(input: VerdictInput): Verdict {
  const excluded: Verdict['excluded'] = {};
  for (const h of input.holes) {
    if (!isExcluded(h) || h.kind === 'user') continue;
    // A proof wins over a waiver: the count says which exclusions a reviewer needs to read.
    countExclusion(excluded, h.kind as ReportedKind, h.proof ? 'proven' : 'waived');
  }
  const closed = input.holes.every((h) => !closureKind(h.kind, input.targets) || isExcluded(h));
  return judgeExclusions({ ...input, excluded, closed });
}

/** Adds one excluded point of `kind` to the counts. */
export function countExclusion(excluded: Verdict['excluded'], kind: ReportedKind, by: 'proven' | 'waived'): void {
  (excluded[kind] ??= { proven: 0, waived: 0 })[by]++;
}

/**
 * `judge` on counts already taken: the excluded points per kind, and whether every line and branch point (FSM
 * point, when targeted) is covered or excluded. A run that is still going is judged this way on its points.
 */
export function judgeExclusions(
  input: Omit<VerdictInput, 'holes'> & { excluded: Verdict['excluded']; closed: boolean },
): Verdict {
  const { excluded } = input;
  const counting = input.requireRaw ? 'raw' : 'signoff';
  const coverage = { ...input.coverage };
  if (counting === 'signoff') {
    for (const kind of presentKinds(input.coverage)) {
      const t = input.coverage[kind];
      const e = excluded[kind];
      if (!t || !e) continue;
      coverage[kind] = kindTotals(t.covered, Math.max(t.covered, t.total - e.proven - e.waived));
    }
  }
  const unmet = (Object.keys(input.targets) as TargetMetric[])
    .map((metric) => ({ metric, pct: metricPct(coverage, metric), target: input.targets[metric] ?? 0 }))
    .filter((u) => !input.ran || u.pct + 1e-9 < u.target);
  const met = input.ran && unmet.length === 0;
  const closed = input.ran && input.closed;
  const exitCode = input.cancelled ? 130 : met ? 0 : 1;
  return { counting, coverage, excluded, met, unmet, closed, exitCode };
}
