/**
 * Turns a producer that calls `emit(event)` into an AsyncIterable. Events from callbacks (streamed tokens) and from
 * the producer's own steps arrive in order; the iterable ends when the producer settles and rethrows its error.
 */
export type Emit<T> = (event: T) => void;

export function channel<T>(producer: (emit: Emit<T>) => Promise<void>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const queue: T[] = [];
      let done = false;
      let failure: { error: unknown } | null = null;
      let wake: (() => void) | null = null;
      const notify = () => {
        const w = wake;
        wake = null;
        w?.();
      };
      producer((e) => {
        queue.push(e);
        notify();
      }).then(
        () => {
          done = true;
          notify();
        },
        (error: unknown) => {
          failure = { error };
          done = true;
          notify();
        },
      );
      return {
        async next(): Promise<IteratorResult<T>> {
          for (;;) {
            if (queue.length) return { value: queue.shift() as T, done: false };
            if (done) {
              if (failure) {
                const f: { error: unknown } = failure;
                failure = null;
                throw f.error;
              }
              return { value: undefined, done: true };
            }
            await new Promise<void>((r) => (wake = r));
          }
        },
      };
    },
  };
}
