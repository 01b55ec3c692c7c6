/**
 * The verdict on a run's points as they stand, while the run goes on: `judge`'s rule on the points, with the same
 * exclusions its result will get (proven by the analysis or the formal engine, waived by a standing entry). The
 * search and the model loop stop on it, so a run never spends its budget on points its verdict leaves out.
 */
import { unreachableDefaults } from '../hdl';
import { OVERALL_KINDS, type CoverageKind, type CoveragePoint, type ReportedKind, type Verdict } from '../protocol';
import { isCovered, summarize } from '../sim';
import { closureKind } from './closure/ledger';
import type { RunContext } from './context';
import { countExclusion, judgeExclusions } from './verdict';

/** Why an uncovered point is left out of its kind's total; undefined when it counts (a hole). */
export type Exclusion = 'proven' | 'waived' | undefined;

/** How `explainHoles` labels a hole, on a point: a proof (analysis or formal) wins over a waiver. */
export function exclusionOf(ctx: RunContext): (p: CoveragePoint) => Exclusion {
  const unreachable = new Set(unreachableDefaults(ctx.analysis).map((u) => `${u.file}\u0000${u.line}`));
  return (p) => {
    if (isCovered(p)) return undefined;
    if (ctx.formal.provenDepth(p) !== undefined) return 'proven';
    if (p.kind !== 'toggle' && unreachable.has(`${p.file}\u0000${p.line}`)) return 'proven';
    return ctx.waiverOf(p) ? 'waived' : undefined;
  };
}

export function standingVerdict(ctx: RunContext, points: CoveragePoint[], requireRaw?: boolean): Verdict {
  return standing(ctx, points, requireRaw).verdict;
}

/**
 * Whether a next generator (the model after the search) has a point to chase: one neither covered nor excluded, of a
 * kind whose target the standing verdict has unmet. A run with no points (a failed build) has everything to chase.
 */
export function leftToChase(ctx: RunContext, points: CoveragePoint[], requireRaw?: boolean): boolean {
  if (!points.length) return true;
  const { verdict, open } = standing(ctx, points, requireRaw);
  if (verdict.met) return false;
  return verdict.unmet.some((u) => (u.metric === 'overall' ? OVERALL_KINDS : [u.metric]).some((k) => open.has(k)));
}

/** The verdict, and the kinds that have a point neither covered nor excluded. */
function standing(
  ctx: RunContext,
  points: CoveragePoint[],
  requireRaw?: boolean,
): { verdict: Verdict; open: Set<CoverageKind> } {
  const excludedBy = exclusionOf(ctx);
  const excluded: Verdict['excluded'] = {};
  const open = new Set<CoverageKind>();
  for (const p of points) {
    if (isCovered(p)) continue;
    const by = excludedBy(p);
    if (!by) open.add(p.kind);
    else if (p.kind !== 'user') countExclusion(excluded, p.kind as ReportedKind, by);
  }
  const verdict = judgeExclusions({
    coverage: summarize(points),
    excluded,
    closed: ![...open].some((k) => closureKind(k, ctx.targets)),
    targets: ctx.targets,
    ran: points.length > 0,
    cancelled: false,
    requireRaw,
  });
  return { verdict, open };
}
