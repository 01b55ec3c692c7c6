// A clock a test moves forward itself (the engine's `Clock`, injected through `EngineServices.clock`): a budget
// that runs out mid-run is checked at the moment the test chooses, without waiting for it in real time.
import type { Clock } from '../../src/engine';

export class ManualClock implements Clock {
  private time = 0;
  private timers: { at: number; fn: () => void }[] = [];

  now(): number {
    return this.time;
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + ms, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves the time on by `ms` and calls, in time order, every callback that is due by then. */
  advance(ms: number): void {
    this.time += ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= this.time).sort((a, b) => a.at - b.at)[0];
      if (!due) return;
      this.timers = this.timers.filter((t) => t !== due);
      due.fn();
    }
  }
}
