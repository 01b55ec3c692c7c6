/**
 * Time for run budgets: the wall clock in the product; a test injects a clock it moves forward itself, so a
 * budget that runs out is checked without waiting for it in real time.
 */
export interface Clock {
  /** Milliseconds, as `Date.now()`. */
  now(): number;
  /** Calls `fn` once `ms` have passed on this clock; the returned function cancels it. Never keeps the process alive. */
  after(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
