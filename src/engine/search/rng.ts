/** A small seeded generator (sfc32): runs are reproducible from `--seed`. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 16; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor((this.u32() / 4294967296) * n);
  }

  chance(p: number): boolean {
    return this.u32() / 4294967296 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Uniform random bits of the given width. */
  bits(width: number): bigint {
    let v = 0n;
    for (let done = 0; done < width; done += 32) v = (v << 32n) | BigInt(this.u32());
    return v & ((1n << BigInt(width)) - 1n);
  }
}
