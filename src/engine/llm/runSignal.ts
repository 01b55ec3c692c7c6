/** The loop's own abort signal: the caller's cancel, or the wall-clock budget running out mid-generation. */
export interface RunSignal {
  signal: AbortSignal;
  /** True once the budget (not the caller) stopped the run. */
  budgetSpent(): boolean;
  dispose(): void;
}

export function runSignal(parent: AbortSignal, budgetMs: number | undefined, startedAt = Date.now()): RunSignal {
  const controller = new AbortController();
  let spent = false;
  const onParent = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onParent, { once: true });
  let timer: NodeJS.Timeout | undefined;
  if (budgetMs !== undefined) {
    timer = setTimeout(
      () => {
        spent = !parent.aborted;
        controller.abort(new Error('the wall-clock budget ran out'));
      },
      Math.max(0, budgetMs - (Date.now() - startedAt)),
    );
    timer.unref();
  }
  return {
    signal: controller.signal,
    budgetSpent: () => spent,
    dispose() {
      if (timer) clearTimeout(timer);
      parent.removeEventListener('abort', onParent);
    },
  };
}
