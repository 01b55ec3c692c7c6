/**
 * Candidate stimulus: a sequence of cycles, each one value per driven input. Fresh candidates mix biased sources
 * (uniform bits, corner values, one-hot, the RTL's own literals, held values, reset pulses, long and short runs);
 * mutation edits the candidates that reached new points (FIELD-NOTES, "Coverage search").
 */
import type { DrivenInput } from './harness';
import type { Rng } from './rng';

export type Cycle = bigint[];

export interface Candidate {
  cycles: Cycle[];
  /** How it was made, for the testbench comments. */
  origin: string;
}

export const MAX_CYCLES = 50_000;

function mask(width: number): bigint {
  return (1n << BigInt(width)) - 1n;
}

export class StimulusGenerator {
  /** Cycles of asserted reset at the start of every sequential candidate, so each starts from a known state. */
  readonly prologue: number;
  private readonly resetIndex: number;

  constructor(
    private readonly inputs: DrivenInput[],
    private readonly rng: Rng,
    private readonly literals: bigint[],
    private readonly sequential: boolean,
  ) {
    this.resetIndex = inputs.findIndex((i) => i.reset);
    this.prologue = sequential && this.resetIndex >= 0 ? 2 : 0;
  }

  private corner(width: number): bigint {
    const m = mask(width);
    const top = 1n << BigInt(width - 1);
    return this.rng.pick([0n, m, 1n, top, m - 1n, m >> 1n, (0x5555555555555555n & m), (0xaaaaaaaaaaaaaaaan & m), top | 1n]);
  }

  private value(input: DrivenInput): bigint {
    const w = input.width;
    const roll = this.rng.int(100);
    if (w === 1) return BigInt(this.rng.int(2));
    if (roll < 40) return this.rng.bits(w);
    if (roll < 60) return this.corner(w);
    if (roll < 85 && this.literals.length) {
      const lit = this.rng.pick(this.literals) & mask(w);
      // Neighbours of a literal reach `<`/`>=` boundaries.
      return this.rng.chance(0.7) ? lit : (lit + BigInt(this.rng.pick([-1, 1]))) & mask(w);
    }
    return (1n << BigInt(this.rng.int(w))) & mask(w);
  }

  private resetValue(input: DrivenInput, asserted: boolean): bigint {
    const active = input.reset?.active ?? 1n;
    return asserted ? active : active ^ 1n;
  }

  private length(): number {
    if (!this.sequential) return this.rng.pick([4, 16, 64, 256]);
    const r = this.rng.int(100);
    if (r < 30) return 8 + this.rng.int(24);
    if (r < 60) return 32 + this.rng.int(224);
    if (r < 85) return 256 + this.rng.int(1792);
    if (r < 97) return 2048 + this.rng.int(6144);
    return 20_000 + this.rng.int(20_000);
  }

  /** One input's values over n cycles, in one of several styles. */
  private column(input: DrivenInput, n: number): bigint[] {
    const out: bigint[] = new Array(n);
    if (input.reset) {
      const pulseRate = this.rng.pick([0, 0, 0, 0.002, 0.02]);
      for (let i = 0; i < n; i++) out[i] = this.resetValue(input, this.rng.chance(pulseRate));
      return out;
    }
    const style = this.rng.int(100);
    if (input.width === 1) {
      const p = this.rng.pick([0.5, 0.5, 0.1, 0.9, 0.02, 0.98, 0, 1]);
      const hold = this.rng.chance(0.3) ? 1 + this.rng.int(16) : 1;
      for (let i = 0; i < n; i++) out[i] = i % hold === 0 || i === 0 ? (this.rng.chance(p) ? 1n : 0n) : out[i - 1];
      return out;
    }
    if (style < 35) {
      for (let i = 0; i < n; i++) out[i] = this.value(input);
    } else if (style < 65) {
      const meanRun = this.rng.pick([2, 4, 8, 32]);
      for (let i = 0; i < n; i++) out[i] = i > 0 && !this.rng.chance(1 / meanRun) ? out[i - 1] : this.value(input);
    } else if (style < 85) {
      const v = this.value(input);
      out.fill(v);
    } else {
      // A walk: addresses, counters, sweeps.
      const start = this.rng.bits(input.width);
      const step = BigInt(this.rng.pick([1, -1, 2]));
      for (let i = 0; i < n; i++) out[i] = (start + step * BigInt(i)) & mask(input.width);
    }
    return out;
  }

  private withPrologue(cycles: Cycle[]): Cycle[] {
    if (!this.prologue) return cycles;
    const head: Cycle[] = [];
    for (let i = 0; i < this.prologue; i++) {
      head.push(this.inputs.map((inp, k) => (k === this.resetIndex ? this.resetValue(inp, true) : 0n)));
    }
    return [...head, ...cycles];
  }

  fresh(): Candidate {
    const n = this.length();
    const cols = this.inputs.map((inp) => this.column(inp, n));
    const cycles: Cycle[] = [];
    for (let i = 0; i < n; i++) cycles.push(cols.map((c) => c[i]));
    return { cycles: this.withPrologue(cycles), origin: 'random' };
  }

  /** Edits a kept candidate; `other` enables splicing. */
  mutate(parent: Candidate, other?: Candidate): Candidate {
    const body = parent.cycles.slice(this.prologue).map((c) => [...c]);
    if (!body.length || !this.inputs.length) return this.fresh();
    const op = this.rng.int(8);
    const k = this.rng.int(this.inputs.length);
    const input = this.inputs[k];
    const a = this.rng.int(body.length);
    const len = 1 + this.rng.int(Math.min(64, body.length - a));
    let origin = 'mutation';
    switch (op) {
      case 0: // re-randomize a window of one input
        for (let i = a; i < a + len; i++) body[i][k] = input.reset ? body[i][k] : this.value(input);
        origin = `mutated ${input.name}`;
        break;
      case 1: // hold one input at one value throughout
        if (!input.reset) {
          const v = this.value(input);
          for (const c of body) c[k] = v;
          origin = `held ${input.name}`;
        }
        break;
      case 2: // flip a bit here and there
        for (let i = 0; i < 1 + this.rng.int(4); i++) {
          const at = this.rng.int(body.length);
          if (!input.reset) body[at][k] ^= 1n << BigInt(this.rng.int(input.width));
        }
        origin = `bit flips on ${input.name}`;
        break;
      case 3: { // splice with another kept candidate
        if (other) {
          const tail = other.cycles.slice(this.prologue);
          const cut = this.rng.int(tail.length);
          body.splice(a, body.length - a, ...tail.slice(cut).map((c) => [...c]));
          origin = 'splice';
        }
        break;
      }
      case 4: { // repeat a segment: goes deeper into counters and FIFOs
        const seg = body.slice(a, a + len);
        const times = 1 + this.rng.int(8);
        for (let t = 0; t < times; t++) body.splice(a + len, 0, ...seg.map((c) => [...c]));
        origin = 'repeated segment';
        break;
      }
      case 5: // drop a segment
        if (body.length > len + 1) body.splice(a, len);
        origin = 'shortened';
        break;
      case 6: { // a reset pulse mid-run
        if (this.resetIndex >= 0) {
          const r = this.inputs[this.resetIndex];
          for (let i = a; i < Math.min(body.length, a + 1 + this.rng.int(3)); i++) body[i][this.resetIndex] = this.resetValue(r, true);
          origin = 'reset pulse';
        }
        break;
      }
      default: { // append fresh cycles
        const extra = this.fresh().cycles.slice(this.prologue);
        body.push(...extra);
        origin = 'extended';
      }
    }
    return { cycles: this.withPrologue(body.slice(0, MAX_CYCLES)), origin };
  }
}

/** The stimulus file the harness reads: one line per cycle, hex values in input order. */
export function stimulusText(c: Candidate): string {
  let out = '';
  for (const cycle of c.cycles) out += (cycle.length ? cycle.map((v) => v.toString(16)).join(' ') : '0') + '\n';
  return out;
}
