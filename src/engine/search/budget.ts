/**
 * The search's wall-clock budget: counted from the start of the run (the design check and the harness build
 * included), so `--budget-seconds 60` ends a run in about 60 s. A build that eats most of the budget is said once,
 * and the search still gets a share of the budget after it.
 */

/** Share of the budget the search keeps for itself after a build that took longer than the rest. */
const SEARCH_SHARE_AFTER_SLOW_BUILD = 0.5;
/**
 * ...but a build shorter than the budget never moves the run's end past this share of the budget: the budget is a
 * budget (wall time within 1.1x of it, the finish's own overrun included). Only a build longer than the whole
 * budget (a core built cold on a busy machine) moves it further, to half the budget after the build.
 */
const END_SHARE_AFTER_SHORTER_BUILD = 1.05;
/**
 * Share of the budget kept for shrinking the kept sequences and emitting the testbench (its final measurement is
 * reserved apart, from its estimated length): shrinking only makes the testbench shorter, the search's time finds
 * points.
 */
const FINISH_SHARE = 0.06;
/** ...and where the table is measured as it is written (nothing to shrink), what emitting and reading it back take. */
const LIVE_FINISH_SHARE = 0.02;
/** A single candidate run may take at most this share of the budget (a deep hold on a large core is slow). */
const RUN_SHARE = 0.15;
/**
 * A planned hold to a counter's limit may take this share: it is the one way to the points behind that limit, and
 * a loaded machine (a slower measured speed) must not push it past the ordinary run's share for good.
 */
export const DEEP_RUN_SHARE = 0.35;

/**
 * The final measurement's estimate is scaled by this (a repaired table is measured again, in part), and at most
 * this share of the budget is kept for it: a core's deep hold is long, and its testbench must still be measured
 * within the budget.
 */
const FINAL_MARGIN = 1.25;
const FINAL_RESERVE_SHARE = 0.4;

export class SearchBudget {
  private deadline: number;

  constructor(
    readonly budgetMs: number,
    readonly startedAt: number,
    private readonly now: () => number = Date.now,
  ) {
    this.deadline = startedAt + budgetMs;
  }

  /**
   * After the harness build: where the build left less than half the budget, the search gets half the budget after
   * it, the run ending within 5% past the budget where the build took less than the budget, within build + budget
   * where it took longer; the message says so, for the user's log.
   */
  afterBuild(buildMs: number): string | undefined {
    const left = this.deadline - this.now();
    const share = this.budgetMs * SEARCH_SHARE_AFTER_SLOW_BUILD;
    if (left >= share) return undefined;
    const longerThanBudget = this.elapsed() >= this.budgetMs;
    this.deadline = longerThanBudget
      ? this.now() + share
      : Math.min(this.now() + share, this.startedAt + this.budgetMs * END_SHARE_AFTER_SHORTER_BUILD);
    const searchS = Math.max(0, (this.deadline - this.now()) / 1000).toFixed(0);
    return (
      `The Verilator build took ${(buildMs / 1000).toFixed(1)} s of the ${(this.budgetMs / 1000).toFixed(0)} s budget` +
      `${longerThanBudget ? ', longer than the budget itself' : ''}; the search gets ${searchS} s after it, so this run ends about ` +
      `${((this.deadline - this.startedAt) / 1000).toFixed(0)} s after it started. A larger --budget-seconds gives it more.`
    );
  }

  /** Milliseconds to the end of the run. */
  remaining(): number {
    return this.deadline - this.now();
  }

  /** What shrinking and emitting may take, at most (the final measurement's time is reserved apart). */
  finishAllowance(): number {
    return this.budgetMs * FINISH_SHARE;
  }

  /** What emitting the testbench may take where its table was measured as it was written. */
  liveFinishAllowance(): number {
    return this.budgetMs * LIVE_FINISH_SHARE;
  }

  /** The time to keep for a final measurement estimated at `estimateMs`. */
  finalNeed(estimateMs: number): number {
    return FINAL_MARGIN * estimateMs;
  }

  /** Time left beyond what a final measurement estimated at `estimateMs` needs (negative when it does not fit). */
  finalSpare(estimateMs: number): number {
    return this.remaining() / FINAL_MARGIN - estimateMs;
  }

  /** What the search keeps back for the final measurement (its need, within the share of the budget for it). */
  finalReserve(estimateMs: number): number {
    return Math.min(this.finalNeed(estimateMs), this.budgetMs * FINAL_RESERVE_SHARE);
  }

  /** Whether the search itself must stop now, keeping `reserveMs` for the finish. */
  searchOver(reserveMs: number): boolean {
    return this.remaining() <= reserveMs;
  }

  /** The longest a single candidate run may take now (`share` of the budget at most). */
  runAllowance(reserveMs: number, share = RUN_SHARE): number {
    return Math.max(0, Math.min(this.budgetMs * share, this.remaining() - reserveMs));
  }

  elapsed(): number {
    return this.now() - this.startedAt;
  }
}
