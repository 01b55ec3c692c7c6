/**
 * What the search has reached: the points covered so far (the user's regression among them when the run merges
 * one), the candidates kept because they reached something new, and how long ago that last happened.
 */
import { inHierarchyOf, mergePoints } from '../../sim';
import { pointId, type CoveragePoint } from '../../protocol';
import { closureKind } from '../closure/ledger';
import type { RunContext } from '../context';
import { hitKeys } from './finish';
import { minimize, remeasureMs, type Kept } from './shrink';
import type { Candidate } from './stimulus';

export class SearchProgress {
  readonly covered = new Set<string>();
  merged: CoveragePoint[] = [];
  /**
   * The user's regression (--merge), named in the harness's hierarchy once the first run shows it: the search's
   * starting state, so only what it leaves counts as new and the stop rules see the merge.
   */
  regression: CoveragePoint[] | undefined;
  readonly regressionHit = new Set<string>();
  readonly kept: Kept[] = [];
  private chosen = { kept: 0, ms: 0 };
  /** Runs in a row without a new point. */
  sinceNew = 0;
  /** Run count and wall time when the last new point came. */
  lastNewAt = 0;
  lastNewTime = Date.now();
  /**
   * The same for the kinds closure is judged on (line, branch, targeted FSM): the formal stage decides only those,
   * so it starts when they stall even while toggle points still come.
   */
  structuralSinceNew = 0;
  lastStructuralTime = Date.now();

  constructor(private readonly ctx: RunContext) {}

  /**
   * What measuring the kept candidates the testbench would keep now (set cover, before shrinking) takes at most:
   * the time their own runs took, `estimate` for one without. Recomputed only when something new is kept.
   */
  chosenMs(estimate: (cycles: number) => number): number {
    if (this.chosen.kept !== this.kept.length)
      this.chosen = {
        kept: this.kept.length,
        ms: minimize(this.kept).reduce((a, c) => a + remeasureMs(c.kept, estimate), 0),
      };
    return this.chosen.ms;
  }

  /**
   * Counts a candidate's points: kept when it reached a point no earlier one did. Returns how many were new. A
   * candidate cut to the part of its run that reached the new points (`whole` false) is known to cover only those.
   */
  absorb(candidate: Candidate, pts: CoveragePoint[], runs: number, ms?: number, whole = true): number {
    const reg = this.ctx.regression;
    if (reg && !this.regression) {
      this.regression = inHierarchyOf(
        { file: reg.files[0], points: reg.points },
        pts,
        this.ctx.top.name,
        "CHORUS's build of the design",
      );
      for (const k of hitKeys(this.regression)) {
        this.covered.add(k);
        this.regressionHit.add(k);
      }
      this.merged = this.regression;
    }
    const hit = hitKeys(pts);
    let fresh = 0;
    for (const k of hit) if (!this.covered.has(k)) fresh++;
    const structural =
      fresh > 0 &&
      pts.some((p) => p.count > 0 && closureKind(p.kind, this.ctx.targets) && !this.covered.has(pointId(p)));
    if (structural) {
      this.structuralSinceNew = 0;
      this.lastStructuralTime = Date.now();
    } else this.structuralSinceNew++;
    if (fresh > 0) {
      const newOnly = whole ? undefined : new Set([...hit].filter((k) => !this.covered.has(k)));
      for (const k of hit) this.covered.add(k);
      // What the regression covers is no sequence's gain: the testbench keeps only what adds to it.
      const gain =
        newOnly ?? (this.regressionHit.size ? new Set([...hit].filter((k) => !this.regressionHit.has(k))) : hit);
      this.kept.push({ candidate, newPoints: fresh, covered: gain, ms });
      this.sinceNew = 0;
      this.lastNewAt = runs;
      this.lastNewTime = Date.now();
    } else {
      this.sinceNew++;
    }
    this.merged = mergePoints(this.merged, pts);
    return fresh;
  }

  /** A run that wrote no coverage. */
  nothing(): void {
    this.sinceNew++;
    this.structuralSinceNew++;
  }

  /** Points the search reached that the regression did not: what the testbench must reach. */
  reachedByTheSearch(): string[] {
    return [...this.covered].filter((k) => !this.regressionHit.has(k));
  }
}
