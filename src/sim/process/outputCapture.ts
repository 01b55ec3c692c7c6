/**
 * Keeps a bounded view of a process's output: the first half of the budget and the most recent half, so both
 * the start of a run and its final error survive a testbench that prints in a loop.
 */
export class OutputCapture {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(private readonly capBytes: number) {}

  add(chunk: Buffer): void {
    const half = Math.max(1, Math.floor(this.capBytes / 2));
    if (this.headBytes < half) {
      const take = Math.min(chunk.length, half - this.headBytes);
      this.head.push(chunk.subarray(0, take));
      this.headBytes += take;
      chunk = chunk.subarray(take);
      if (!chunk.length) return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes > half && this.tail.length) {
      const first = this.tail[0];
      const excess = this.tailBytes - half;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
        this.dropped += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        this.dropped += excess;
      }
    }
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    if (!this.dropped) return head + tail;
    return `${head}\n… ${this.dropped} bytes of output omitted …\n${tail}`;
  }
}
