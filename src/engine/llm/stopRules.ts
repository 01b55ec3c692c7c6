/** When the loop stops: before a round (cancelled, out of time) and after one (targets met, stalled, out of tokens). */
import type { StopReason as WireStopReason } from '../../protocol';
import type { Attempt } from './attempt';

/**
 * `rounds` means the loop ran every round it was given; `error` that the backend (or a tool) failed after a
 * testbench was measured, and `context` that the next prompt could not fit the model's context: both keep the best.
 */
export type StopReason = Extract<
  WireStopReason,
  'rounds' | 'targets met' | 'cancelled' | 'budget' | 'stalled' | 'error' | 'context'
>;

export interface StopLimits {
  /** Stop after this many rounds in a row without a coverage gain. */
  stallRounds: number;
  /** Wall-clock budget for the whole loop, in ms. */
  budgetMs?: number | undefined;
  /** Generated-token budget for the whole loop. */
  tokenBudget?: number;
}

/** `now` is the run's clock (`EngineServices.clock`), the time `startedAt` was read on. */
export function stopBeforeRound(
  signal: AbortSignal,
  startedAt: number,
  limits: StopLimits,
  now: number,
): StopReason | null {
  if (signal.aborted) return 'cancelled';
  if (limits.budgetMs !== undefined && now - startedAt > limits.budgetMs) return 'budget';
  return null;
}

export interface LoopProgress {
  best: Attempt;
  /** Rounds in a row without a coverage gain. */
  stall: number;
  tokensUsed: number;
}

/** `met`: the verdict's rule on the best testbench's points (src/engine/standing.ts). */
export function stopAfterRound(progress: LoopProgress, limits: StopLimits, met: boolean): StopReason | null {
  if (progress.best.report?.status === 'ok' && met) return 'targets met';
  if (progress.stall >= limits.stallRounds) return 'stalled';
  if (limits.tokenBudget !== undefined && progress.tokensUsed >= limits.tokenBudget) return 'budget';
  return null;
}
