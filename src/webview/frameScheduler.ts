/**
 * Coalesces view updates to one per animation frame: a model streaming 50 tokens a second, or a replay of a
 * thousand events in one task, costs one DOM update per frame, not one per event.
 */
export class FrameScheduler {
  private pending = false;

  constructor(
    private readonly flush: () => void,
    private readonly requestFrame: (cb: () => void) => unknown = (cb) => requestAnimationFrame(cb),
  ) {}

  schedule(): void {
    if (this.pending) return;
    this.pending = true;
    this.requestFrame(() => {
      this.pending = false;
      this.flush();
    });
  }
}

/** Runs `fn` at most once per `ms`, always eventually after the last call (trailing). */
export function throttle(fn: () => void, ms: number): { (): void; now(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    timer = undefined;
    fn();
  };
  const call = () => {
    timer ??= setTimeout(run, ms);
  };
  call.now = () => {
    if (timer !== undefined) clearTimeout(timer);
    run();
  };
  return call;
}
