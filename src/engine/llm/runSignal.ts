import { systemClock, type Clock } from '../clock';

/** The loop's own abort signal: the caller's cancel, or the wall-clock budget running out mid-generation. */
export interface RunSignal {
  signal: AbortSignal;
  /** True once the budget (not the caller) stopped the run. */
  budgetSpent(): boolean;
  dispose(): void;
}

export function runSignal(
  parent: AbortSignal,
  budgetMs: number | undefined,
  startedAt?: number,
  clock: Clock = systemClock,
): RunSignal {
  const started = startedAt ?? clock.now();
  const controller = new AbortController();
  let spent = false;
  const onParent = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onParent, { once: true });
  let cancelTimer: (() => void) | undefined;
  if (budgetMs !== undefined) {
    cancelTimer = clock.after(Math.max(0, budgetMs - (clock.now() - started)), () => {
      spent = !parent.aborted;
      controller.abort(new Error('the wall-clock budget ran out'));
    });
  }
  return {
    signal: controller.signal,
    budgetSpent: () => spent,
    dispose() {
      cancelTimer?.();
      parent.removeEventListener('abort', onParent);
    },
  };
}
