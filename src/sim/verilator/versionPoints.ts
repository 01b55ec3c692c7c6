/**
 * The same design and testbench give the same line, branch and toggle points on every Verilator CHORUS
 * supports (5.006 … 5.050). Two newer habits are undone here (docs/verilator-versions.md):
 * - 5.040+ counts each toggle bit twice, `sig[3]:0->1` and `sig[3]:1->0`; 5.006 counted one point per bit,
 *   incremented on every change. The two directions' sum is exactly 5.006's count, so the pair becomes one point.
 * - 5.036+ adds a branch point per arm of every `?:` (`cond_then`, `cond_else`) under line coverage; 5.006 has
 *   none, and IMC reads them as expression (condition) coverage, not branches: they are left out.
 */
import type { CoveragePoint } from '../../protocol';

const DIRECTION = /^(.*):(?:0->1|1->0)$/;
const TERNARY_ARM = /^cond_(?:then|else)$/;

export function samePointsOnEveryVersion(points: CoveragePoint[]): CoveragePoint[] {
  return mergeToggleDirections(points.filter((p) => !(p.kind === 'branch' && TERNARY_ARM.test(p.comment))));
}

/** Toggle points with a direction merged into one point per bit (count: both directions' sum); others untouched, order kept. */
export function mergeToggleDirections(points: CoveragePoint[]): CoveragePoint[] {
  const merged: CoveragePoint[] = [];
  const byBit = new Map<string, CoveragePoint>();
  for (const p of points) {
    const m = p.kind === 'toggle' ? DIRECTION.exec(p.comment) : null;
    if (!m) {
      merged.push(p);
      continue;
    }
    const key = JSON.stringify([p.file, p.line, p.column, p.hierarchy, p.module, m[1]]);
    const seen = byBit.get(key);
    if (seen) {
      seen.count += p.count;
      continue;
    }
    const bit: CoveragePoint = { ...p, comment: m[1] };
    byBit.set(key, bit);
    merged.push(bit);
  }
  return merged;
}
