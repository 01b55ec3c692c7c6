/**
 * Build slots and the bounded queue in front of them: never more builds at once than slots, at most `queue`
 * requests waiting; one more is refused at once (429) rather than held. A waiter whose client went away leaves
 * the queue.
 */
export class QueueFull extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('The server is busy: every build slot is taken and the queue is full.');
  }
}

interface Waiter {
  grant: () => void;
}

export class BuildSlots {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** Mean seconds a slot was held, for Retry-After. */
  private meanHeldSeconds = 5;

  constructor(
    readonly slots: number,
    readonly queueBound: number,
  ) {}

  get inUse(): number {
    return this.running;
  }
  get queued(): number {
    return this.waiting.length;
  }
  /** Whether a new request would be queued or run rather than refused. */
  get accepting(): boolean {
    return this.running < this.slots || this.waiting.length < this.queueBound;
  }

  /** Waits for a slot (refusing at once with QueueFull); the returned function gives it back. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.running < this.slots && !this.waiting.length) {
      this.running += 1;
      return this.holder();
    }
    if (this.waiting.length >= this.queueBound) {
      const ahead = this.waiting.length + this.running;
      throw new QueueFull(Math.max(1, Math.ceil((this.meanHeldSeconds * ahead) / this.slots)));
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
    // The releasing request handed its slot over: `running` already counts it.
    return this.holder();
  }

  private holder(): () => void {
    const started = Date.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.meanHeldSeconds = 0.8 * this.meanHeldSeconds + 0.2 * ((Date.now() - started) / 1000);
      // Handed on directly: the slot never looks free to a newcomer while someone waits.
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.running -= 1;
    };
  }
}
