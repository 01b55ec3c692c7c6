/**
 * Candidate stimulus: a sequence of cycles, each one value per driven input. Fresh candidates mix biased sources
 * (uniform bits, corner values, one-hot, the RTL's own literals, held values, reset pulses, long and short runs);
 * mutation edits the candidates that reached new points (FIELD-NOTES, "Coverage search").
 */
import type { InputField } from '../../hdl';
import type { DrivenInput } from './harness';
import { expandSegment, resetThreshold, type RandomSegment } from './prng';
import type { Rng } from './rng';

export type Cycle = bigint[];

/** Input values held for a number of cycles: a deep candidate holds one row for millions of cycles. */
export interface Row {
  count: number;
  values: Cycle;
}

export interface Candidate {
  rows: Row[];
  /** How it was made, for the testbench comments. */
  origin: string;
  /** Cycles of it that are a plain random segment (the testbench regenerates them instead of listing them). */
  random?: RandomSegment | undefined;
  /**
   * Where it holds several sequences back to back, each from reset: the cycle each starts at (the first at 0), so
   * a run keeps only those that reached something.
   */
  starts?: number[] | undefined;
}

/** Longest candidate that mutation edits cycle by cycle; longer ones (deep holds) are edited row by row. */
export const MAX_CYCLES = 50_000;

/** Plain random's reset density: a reset pulse about one cycle in 50. */
export const PLAIN_RESET_RATE = 1 / 50;

function sameCycle(a: Cycle, b: Cycle): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

export function totalCycles(rows: readonly Row[]): number {
  let n = 0;
  for (const r of rows) n += r.count;
  return n;
}

/** Rows from cycles, equal neighbours merged. */
export function toRows(cycles: readonly Cycle[]): Row[] {
  const out: Row[] = [];
  for (const c of cycles) {
    const last = out[out.length - 1];
    if (last && sameCycle(last.values, c)) last.count++;
    else out.push({ count: 1, values: c });
  }
  return out;
}

/** One entry per cycle; only for candidates up to MAX_CYCLES long. */
export function toCycles(rows: readonly Row[]): Cycle[] {
  const out: Cycle[] = [];
  for (const r of rows) for (let i = 0; i < r.count; i++) out.push(r.values);
  return out;
}

/** Rows merged where neighbours hold the same values. */
export function mergeRows(rows: readonly Row[]): Row[] {
  const out: Row[] = [];
  for (const r of rows) {
    if (r.count <= 0) continue;
    const last = out[out.length - 1];
    if (last && sameCycle(last.values, r.values)) last.count += r.count;
    else out.push({ count: r.count, values: r.values });
  }
  return out;
}

/** Cycles [from, to) as rows. */
export function sliceRows(rows: readonly Row[], from: number, to: number): Row[] {
  const out: Row[] = [];
  let at = 0;
  for (const r of rows) {
    const lo = Math.max(at, from);
    const hi = Math.min(at + r.count, to);
    if (hi > lo) out.push({ count: hi - lo, values: r.values });
    at += r.count;
    if (at >= to) break;
  }
  return out;
}

/** The first n cycles. */
export function prefixRows(rows: readonly Row[], n: number): Row[] {
  const out: Row[] = [];
  let left = n;
  for (const r of rows) {
    if (left <= 0) break;
    out.push({ count: Math.min(r.count, left), values: r.values });
    left -= r.count;
  }
  return out;
}

/**
 * The first `cycles` cycles of a candidate, its plain random segment cut to match: what a run that hit nothing new
 * after that cycle keeps (the testbench then replays only the part that counted).
 */
export function prefixCandidate(c: Candidate, cycles: number): Candidate {
  const total = totalCycles(c.rows);
  if (cycles >= total) return c;
  const seg = c.random;
  const random = seg && cycles > seg.start ? { ...seg, cycles: Math.min(seg.cycles, cycles - seg.start) } : undefined;
  const starts = c.starts?.filter((s) => s < cycles);
  return {
    rows: prefixRows(c.rows, cycles),
    origin: `${c.origin}, its first ${cycles} of ${total} cycles`,
    random,
    starts,
  };
}

/**
 * Of sequences back to back (starting at cycles `starts`, `full` cycles in all), how much of each reaches the new
 * points of a run that had hit them by each of the cycles `freshBy`, each hit within `window` cycles before: the
 * sequence a hit fell in up to that cycle, any other the window began in whole (the hit may have needed the state
 * it left); 0 for a sequence that reached nothing.
 */
export function reachingLengths(starts: readonly number[], full: number, freshBy: readonly number[], window: number) {
  const ends = starts.map((_, j) => starts[j + 1] ?? full);
  const lengths = starts.map(() => 0);
  for (const by of freshBy)
    for (const [j, start] of starts.entries()) {
      if (start >= by || ends[j] <= by - window) continue;
      lengths[j] = Math.max(lengths[j], Math.min(by, ends[j]) - start);
    }
  return lengths;
}

/**
 * Of a candidate of several sequences back to back (`starts`), the first `lengths[j]` cycles of each (0: none), in
 * order.
 */
export function sequencesOf(c: Candidate, lengths: readonly number[]): Candidate {
  const starts = c.starts ?? [0];
  const rows: Row[] = [];
  const kept: number[] = [];
  let at = 0;
  for (const [j, start] of starts.entries()) {
    const n = lengths[j] ?? 0;
    if (n <= 0) continue;
    kept.push(at);
    rows.push(...sliceRows(c.rows, start, start + n));
    at += n;
  }
  return {
    rows: mergeRows(rows),
    origin: `${c.origin}: the ${kept.length} of ${starts.length} that reached something new, ${at} of ${totalCycles(c.rows)} cycles`,
    starts: kept,
  };
}

/** Wide inputs the narrow strategy may hold at a small value, and the largest value it holds. */
const NARROW_MIN_WIDTH = 4;
const NARROW_MAX_VALUE = 8;

/** Cycles from per-input columns of n values. */
function transpose(cols: bigint[][], n: number): Cycle[] {
  const cycles: Cycle[] = [];
  for (let i = 0; i < n; i++) cycles.push(cols.map((c) => c[i]));
  return cycles;
}

/** Fields drawn for one dictionary value: enough to fill a wide word, bounded on a design with thousands. */
const MAX_FIELDS_PER_VALUE = 32;

function mask(width: number): bigint {
  return (1n << BigInt(width)) - 1n;
}

export class StimulusGenerator {
  /** Cycles of asserted reset at the start of every sequential candidate, so each starts from a known state. */
  readonly prologue: number;
  private readonly resetIndex: number;

  /** Per input (by index): the fields the design compares, from the input dictionary. */
  private readonly fields: InputField[][];
  /** Per input: its fields' indices, shuffled in place as values are drawn. */
  private readonly fieldOrder: number[][];
  /** Per input: its joint fields (the bits one comparison needs in the same word). */
  private readonly jointFields: InputField[][];

  constructor(
    private readonly inputs: DrivenInput[],
    private readonly rng: Rng,
    private readonly literals: bigint[],
    private readonly sequential: boolean,
    dictionary: InputField[] = [],
  ) {
    this.resetIndex = inputs.findIndex((i) => i.reset);
    this.prologue = sequential && this.resetIndex >= 0 ? 2 : 0;
    const usable = (inp: DrivenInput, f: InputField) =>
      f.input === inp.name && f.lsb + f.width <= inp.width && f.values.length > 0;
    this.fields = inputs.map((inp) => dictionary.filter((f) => usable(inp, f) && !f.joint));
    this.jointFields = inputs.map((inp) => dictionary.filter((f) => usable(inp, f) && f.joint));
    this.fieldOrder = this.fields.map((f) => f.map((_, i) => i));
  }

  /** Whether the design gave a dictionary for any input. */
  get hasDictionary(): boolean {
    return this.inputs.some((_, k) => this.hasFields(k));
  }

  private hasFields(k: number): boolean {
    return this.fields[k].length > 0 || this.jointFields[k].length > 0;
  }

  /**
   * A value built from the dictionary: random bits, then each field the design compares (an opcode, a funct3, a
   * command code) written with one of its values, most of the time — an instruction word the decoder accepts.
   */
  private dictionaryValue(k: number): bigint {
    const input = this.inputs[k];
    const fields = this.fields[k];
    const order = this.fieldOrder[k];
    let v = this.rng.chance(0.5) ? this.rng.bits(input.width) : 0n;
    // Fields in a random order, each written only over bits no field before it took. Several sites read the same
    // bits at different offsets (a fetch aligner's halves, a compressed decoder beside the full one): written in a
    // fixed order, the later ones overwrote the opcode, funct3 and funct7 an instruction needs together.
    let taken = 0n;
    const write = (f: InputField) => {
      const fieldMask = (f.mask ?? mask(f.width)) << BigInt(f.lsb);
      if (taken & fieldMask) return;
      taken |= fieldMask;
      const value = (this.rng.pick(f.values) & mask(f.width)) << BigInt(f.lsb);
      v = (v & ~fieldMask) | (value & fieldMask);
    };
    // A fifth of the values start from one joint field: the opcode, funct3 and funct7 (or the CSR address) an
    // instruction needs together, which separate fields meet in only a handful of words per million.
    const joint = this.jointFields[k];
    if (joint.length && this.rng.chance(0.2)) write(this.rng.pick(joint));
    const tries = Math.min(fields.length, MAX_FIELDS_PER_VALUE);
    for (let t = 0; t < tries; t++) {
      // A partial Fisher–Yates shuffle: as many draws as tries, no allocation.
      const j = t + this.rng.int(order.length - t);
      [order[t], order[j]] = [order[j], order[t]];
      const f = fields[order[t]];
      // Fields read through fewer register stages are the likelier ones to matter.
      if (this.rng.chance(f.stages === 0 ? 0.8 : f.stages === 1 ? 0.7 : 0.4)) write(f);
    }
    return v & mask(input.width);
  }

  /**
   * Dictionary stimulus: every input with fields gets a dictionary value each cycle (or held a few cycles), the
   * others as in a fresh candidate.
   */
  dictionary(): Candidate {
    const n = this.length();
    const cols = this.inputs.map((inp, k) => {
      if (!this.hasFields(k)) return this.column(inp, n);
      const hold = this.rng.pick([1, 1, 2, 4]);
      const out: bigint[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = i % hold === 0 ? this.dictionaryValue(k) : out[i - 1];
      return out;
    });
    return { rows: this.withPrologue(transpose(cols, n)), origin: 'values from the design dictionary' };
  }

  private corner(width: number): bigint {
    const m = mask(width);
    const top = 1n << BigInt(width - 1);
    return this.rng.pick([0n, m, 1n, top, m - 1n, m >> 1n, 0x5555555555555555n & m, 0xaaaaaaaaaaaaaaaan & m, top | 1n]);
  }

  private value(input: DrivenInput): bigint {
    const w = input.width;
    const roll = this.rng.int(100);
    if (w === 1) return BigInt(this.rng.int(2));
    const k = this.inputs.indexOf(input);
    if (k >= 0 && this.hasFields(k) && this.rng.chance(0.3)) return this.dictionaryValue(k);
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
    // Without a clock every step is one sample of the inputs, and a run's start costs more than thousands of them.
    if (!this.sequential) return this.rng.pick([64, 256, 512, 1024]);
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

  /** The reset asserted for `prologue` cycles, other inputs 0. */
  prologueRows(): Row[] {
    if (!this.prologue) return [];
    return [
      {
        count: this.prologue,
        values: this.inputs.map((inp, k) => (k === this.resetIndex ? this.resetValue(inp, true) : 0n)),
      },
    ];
  }

  private withPrologue(cycles: Cycle[]): Row[] {
    return [...this.prologueRows(), ...toRows(cycles)];
  }

  /** The inputs' values after reset with nothing else driven: reset deasserted, the rest 0. */
  idleValues(): Cycle {
    return this.inputs.map((inp, k) => (k === this.resetIndex ? this.resetValue(inp, false) : 0n));
  }

  private freshCycles(n: number): Cycle[] {
    return transpose(
      this.inputs.map((inp) => this.column(inp, n)),
      n,
    );
  }

  fresh(): Candidate {
    return { rows: this.withPrologue(this.freshCycles(this.length())), origin: 'random' };
  }

  /**
   * Plain random: fresh uniform values on every input every cycle, the reset kept deasserted after the prologue.
   * One long run of it takes the easy points at the cost of one simulation.
   */
  plain(n: number, resetRate = 0): Candidate {
    const random: RandomSegment = {
      seed: this.rng.u32() || 1,
      resetBelow: this.resetIndex >= 0 ? resetThreshold(resetRate) : 0,
      start: this.prologue,
      cycles: n,
    };
    const origin =
      resetRate > 0 ? `plain random, a reset about one cycle in ${Math.round(1 / resetRate)}` : 'plain random';
    return { rows: this.withPrologue(expandSegment(random, this.inputs)), origin, random };
  }

  /** Whether the DUT has a reset input the search can pulse. */
  get hasReset(): boolean {
    return this.resetIndex >= 0;
  }

  /**
   * Narrow values: some wide inputs (configuration such as a prescale or a length) held at a small value for the
   * whole candidate, the others as in a fresh one. A 16-bit prescale of 1 to 8 makes a UART run in a few cycles.
   */
  narrow(): Candidate {
    const n = this.length();
    const cols = this.inputs.map((inp) => {
      if (inp.reset || inp.width < NARROW_MIN_WIDTH || !this.rng.chance(0.6)) return this.column(inp, n);
      const v = BigInt(this.rng.int(NARROW_MAX_VALUE + 1));
      return new Array<bigint>(n).fill(v);
    });
    return { rows: this.withPrologue(transpose(cols, n)), origin: 'small values on wide inputs' };
  }

  /** One input at a time: every other input idle (the reset released, the rest 0), this one varied. */
  single(): Candidate {
    const n = this.length();
    const idle = this.idleValues();
    const free = this.inputs.map((_, k) => k).filter((k) => !this.inputs[k].reset);
    if (!free.length) return this.fresh();
    const k = this.rng.pick(free);
    const col = this.column(this.inputs[k], n);
    const cycles = col.map((v) => idle.map((x, j) => (j === k ? v : x)));
    return { rows: this.withPrologue(cycles), origin: `only ${this.inputs[k].name} driven` };
  }

  /**
   * A restart: a kept candidate cut at a random cycle, then a reset pulse and fresh cycles. It escapes the trap or
   * sink state a long run falls into (a core that traps on a bad fetch) while keeping the prefix that got somewhere.
   */
  restart(parent: Candidate): Candidate {
    if (this.resetIndex < 0 || totalCycles(parent.rows) > MAX_CYCLES) return this.fresh();
    const body = toCycles(parent.rows).slice(this.prologue);
    const cut = this.rng.int(body.length + 1);
    const pulse = 1 + this.rng.int(3);
    const reset = this.inputs[this.resetIndex];
    const resetCycles: Cycle[] = [];
    for (let i = 0; i < pulse; i++)
      resetCycles.push(this.inputs.map((_, k) => (k === this.resetIndex ? this.resetValue(reset, true) : 0n)));
    const cycles = [...body.slice(0, cut), ...resetCycles, ...this.freshCycles(this.length())];
    return { rows: this.withPrologue(cycles.slice(0, MAX_CYCLES)), origin: `${parent.origin}, reset again at ${cut}` };
  }

  /**
   * A kept candidate then a long hold of the idle values (the reset released, every other input 0): what it armed
   * (a watchdog's enable, a timer's start) keeps counting without the inputs that would clear it.
   */
  holdAfter(parent: Candidate, cycles: number, values: Cycle = this.idleValues()): Candidate {
    return {
      rows: mergeRows([...parent.rows, { count: cycles, values }]),
      origin: `${parent.origin}, then held idle for ${cycles} cycles`,
    };
  }

  /** Edits a kept candidate; `other` enables splicing. */
  mutate(parent: Candidate, other?: Candidate): Candidate {
    if (totalCycles(parent.rows) > MAX_CYCLES || (other && totalCycles(other.rows) > MAX_CYCLES))
      return this.mutateLong(parent);
    const body = toCycles(parent.rows)
      .slice(this.prologue)
      .map((c) => [...c]);
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
      case 3: {
        // splice with another kept candidate
        if (other) {
          const tail = toCycles(other.rows).slice(this.prologue);
          const cut = this.rng.int(tail.length);
          body.splice(a, body.length - a, ...tail.slice(cut).map((c) => [...c]));
          origin = 'splice';
        }
        break;
      }
      case 4: {
        // repeat a segment: goes deeper into counters and FIFOs
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
      case 6: {
        // a reset pulse mid-run
        if (this.resetIndex >= 0) {
          const r = this.inputs[this.resetIndex];
          for (let i = a; i < Math.min(body.length, a + 1 + this.rng.int(3)); i++)
            body[i][this.resetIndex] = this.resetValue(r, true);
          origin = 'reset pulse';
        }
        break;
      }
      default: {
        // append fresh cycles
        body.push(...this.freshCycles(this.length()));
        origin = 'extended';
      }
    }
    return { rows: this.withPrologue(body.slice(0, MAX_CYCLES)), origin };
  }

  /** A long candidate (a deep hold) is edited at its end only: what follows the hold is what is still unexplored. */
  private mutateLong(parent: Candidate): Candidate {
    const rows = parent.rows.map((r) => ({ count: r.count, values: r.values }));
    const op = this.rng.int(3);
    if (op === 0 && rows.length > this.prologue) {
      // hold the last row a little longer or shorter: the limits' neighbours
      const last = rows[rows.length - 1];
      last.count = Math.max(1, last.count + this.rng.pick([-2, -1, 1, 2, 16]));
      return { rows: mergeRows(rows), origin: `${parent.origin}, hold varied` };
    }
    const n = op === 1 ? 1 + this.rng.int(8) : this.length();
    return { rows: mergeRows([...rows, ...toRows(this.freshCycles(n))]), origin: `${parent.origin}, then random` };
  }
}

/** The stimulus file the harness reads: one line per row, the cycle count then the input values, in hex. */
export function stimulusText(c: Candidate): string {
  let out = '';
  for (const r of c.rows)
    out += `${r.count.toString(16)} ${r.values.length ? r.values.map((v) => v.toString(16)).join(' ') : '0'}\n`;
  return out;
}
