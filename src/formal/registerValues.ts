/**
 * The values registers can hold, and the flags they hold at 0: an abstract evaluation of the prepared netlist from
 * the start state to a fixpoint. Each register word holds a small set of values (at most `MAX_VALUES`) or, past
 * that, three-valued bits (0, 1, unknown); inputs, memories and cells this does not model are unknown. One round
 * evaluates the logic from the registers' values and adds each register's possible next values to its own; rounds go
 * on until nothing grows. The start values (Verilator's zeros, initializers kept) are in, and from any state the
 * values cover every update lands in them too, whichever clock ticks and in whatever order, so every state the
 * simulator reaches is covered. A flag that evaluates to 0 there is 0 in every such state.
 *
 * What it proves: code a parameter disables behind register stages. A decoder that never produces a vector-mode
 * operation leaves the pipeline register holding the mode at its reset value, and the ALU's vector arms are dead; a
 * decoder that produces only the base ISA's operations leaves the operation register among their codes, and the
 * ALU's bit-manipulation arms are dead. k-induction on one flag does not see that: a state where the register holds
 * a value no run reaches, and the flag is 0 because another condition is false, is a counterexample at every
 * induction length, and on a core those cones cross clock domains and take most of the design.
 */
import {
  CONST_BITS,
  ONE,
  OUTPUTS,
  parseConstant,
  parseNetlist,
  X,
  ZERO,
  type Cell,
  type Netlist,
  type Tri,
} from './rtlilBits';
import { bool, evaluate, num } from './threeValued';
import { fromBits, join, mask, MAX_VALUES, sameSet, sameValue, type Value } from './valueSet';

/** A register whose set grew this many rounds in a row keeps bits instead (a counter would take a round a value). */
const WIDEN_AFTER = 3;
/**
 * Bound of the whole evaluation, and of what a caller's bound may be. cv32e40p_core (2,461 register bits): 39 rounds,
 * about 0.4 s. The values are proven only at the fixpoint: a netlist that takes longer gets no proof from it, and its
 * flags go to k-induction.
 */
const MAX_MS = 15_000;

/** Registers whose every control this models (async2sync has made asynchronous ones synchronous). */
const REGISTERS = new Set(['$dff', '$dffe', '$sdff', '$sdffe', '$sdffce', '$ff', '$dlatch']);

/** The list a map holds for a key, made empty when it holds none. */
function listed<T>(map: Map<number, T[]>, key: number): T[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** A register word: a register cell's Q port. */
interface RegisterWord {
  cell: Cell;
  q: number[];
  value: Value;
  /** Rounds in a row its set grew. */
  growth: number;
}

export interface RegisterAnalysis {
  /** Flags (wire names as `select -list` gives them) that are 0 in every state the simulator reaches. */
  zeroFlags: Set<string>;
  /** Register bits whose value never changes, of how many this evaluates. */
  constantBits: number;
  registerBits: number;
  /** Register words left with a set of several values, not every value of their width. */
  valueSets: number;
  rounds: number;
  ms: number;
}

/**
 * The flags among `flags` held at 0 in every reachable state of the netlist `il` (an RTLIL module with its
 * asynchronous controls made synchronous).
 */
export async function registerValues(
  il: string,
  flags: readonly string[],
  opts: { maxMs?: number; signal?: AbortSignal } = {},
): Promise<RegisterAnalysis> {
  const maxMs = Math.min(MAX_MS, opts.maxMs ?? MAX_MS);
  const started = Date.now();
  const evaluation = new ValueEvaluation(parseNetlist(il));
  let rounds = 0;
  for (;;) {
    rounds++;
    // Each round yields to the event loop (a server answering requests meanwhile); cancelled, it proves nothing.
    await new Promise((resolve) => setImmediate(resolve));
    if (Date.now() - started > maxMs || opts.signal?.aborted)
      return { zeroFlags: new Set(), constantBits: 0, registerBits: 0, valueSets: 0, rounds, ms: Date.now() - started };
    if (!evaluation.round()) break;
  }
  return { ...evaluation.figures(flags), rounds, ms: Date.now() - started };
}

/**
 * The netlist's values: every bit three-valued, every cell output word with its set where it has one, and the
 * register words' values, grown round by round. Only the cells whose inputs changed are evaluated again.
 */
class ValueEvaluation {
  private readonly value: Uint8Array;
  /** Where each driven bit comes from: a word (a cell's output port, -1: none) and its place in it. */
  private readonly originWord: Int32Array;
  private readonly originIndex: Int32Array;
  private readonly wordSets: (bigint[] | undefined)[] = [];
  private readonly wordOf = new Map<Cell, Map<string, number>>();
  private readonly driver = new Map<number, Cell>();
  /** Register words, each from its start value (per bit: the initializer, else Verilator's zero). */
  private readonly registers: RegisterWord[] = [];
  /** The combinational cells, each after the cells it reads. */
  private readonly order: Cell[];
  /** The cells (by position in the order) and registers reading each bit: what to evaluate again when it changes. */
  private readonly readers = new Map<number, number[]>();
  private readonly registerReaders = new Map<number, RegisterWord[]>();
  private readonly dirty: Uint8Array;
  /** Registers whose inputs changed since their next values were last computed. */
  private readonly stale: Set<RegisterWord>;
  private readonly nextValues = new Map<RegisterWord, Value>();
  /** A port's value is read once, and again only after one of its bits changed (`write` drops it). */
  private readonly portCache = new Map<Cell, Map<string, Value>>();

  constructor(private readonly net: Netlist) {
    const { cells, find } = net;
    // Ports as canonical bits, once.
    for (const c of cells) for (const [port, bits] of c.ports) c.ports.set(port, bits.map(find));
    this.value = new Uint8Array(net.size).fill(X);
    [this.value[0], this.value[1], this.value[2]] = [ZERO, ONE, X];
    this.originWord = new Int32Array(net.size).fill(-1);
    this.originIndex = new Int32Array(net.size);
    for (const c of cells) {
      const ports = new Map<string, number>();
      for (const [port, bits] of c.ports) {
        if (!OUTPUTS.has(port)) continue;
        const w = this.wordSets.length;
        this.wordSets.push(undefined);
        ports.set(port, w);
        bits.forEach((b, index) => {
          if (b < CONST_BITS || this.originWord[b] >= 0) return;
          this.originWord[b] = w;
          this.originIndex[b] = index;
          this.driver.set(b, c);
        });
      }
      this.wordOf.set(c, ports);
    }
    const combinational: Cell[] = [];
    for (const c of cells) {
      if (!REGISTERS.has(c.type)) {
        combinational.push(c);
        continue;
      }
      const q = c.ports.get('\\Q') ?? [];
      const start = fromBits(q.map((b) => net.init.get(find(b)) ?? ZERO));
      this.registers.push({ cell: c, q, value: start.set?.length === 1 ? start : { bits: start.bits }, growth: 0 });
    }
    this.order = evaluationOrder(combinational, this.driver, find);
    const position = new Map(this.order.map((c, i) => [c, i]));
    // A loop's back edge (an input driven by a cell later in the order) reads unknown: the cell is evaluated before
    // its driver, as one pass in order would leave it.
    for (const c of this.order)
      for (const [port, bits] of c.ports) {
        if (OUTPUTS.has(port)) continue;
        c.ports.set(
          port,
          bits.map((b) => {
            const d = this.driver.get(b);
            return d && !REGISTERS.has(d.type) && position.get(d)! >= position.get(c)! ? X : b;
          }),
        );
      }
    this.order.forEach((c, i) => {
      for (const [port, bits] of c.ports)
        if (!OUTPUTS.has(port)) for (const b of new Set(bits)) if (b >= CONST_BITS) listed(this.readers, b).push(i);
    });
    for (const r of this.registers)
      for (const [port, bits] of r.cell.ports)
        if (port !== '\\Q') for (const b of new Set(bits)) if (b >= CONST_BITS) listed(this.registerReaders, b).push(r);
    this.dirty = new Uint8Array(this.order.length).fill(1);
    this.stale = new Set(this.registers);
  }

  /** One round: the logic evaluated from the registers' values, each register joined with its next values; whether any grew. */
  round(): boolean {
    this.settle();
    for (const r of this.stale) this.nextValues.set(r, this.nextOf(r));
    this.stale.clear();
    let changed = false;
    for (const r of this.registers) {
      let v = join(r.value, this.nextValues.get(r)!);
      if (sameValue(v, r.value)) {
        r.growth = 0;
        continue;
      }
      changed = true;
      r.growth = v.set && r.value.set && v.set.length > r.value.set.length ? r.growth + 1 : 0;
      if (r.growth >= WIDEN_AFTER) v = { bits: v.bits };
      r.value = v;
    }
    return changed;
  }

  /** At the fixpoint: the flags held at 0, and how much of the registers' state it pinned down. */
  figures(flags: readonly string[]): Omit<RegisterAnalysis, 'rounds' | 'ms'> {
    const zeroFlags = new Set<string>();
    for (const f of flags) {
      const bits = this.net.wires.get(`\\${f}`);
      if (bits && bits.every((b) => this.value[this.net.find(b)] === ZERO)) zeroFlags.add(f);
    }
    let constantBits = 0;
    let registerBits = 0;
    for (const r of this.registers) {
      registerBits += r.q.length;
      constantBits += r.value.bits.filter((b) => b !== X).length;
    }
    const valueSets = this.registers.filter((r) => {
      const n = r.value.set?.length ?? 0;
      return n > 1 && n < 2 ** r.q.length;
    }).length;
    return { zeroFlags, constantBits, registerBits, valueSets };
  }

  private bitsAt(c: Cell, port: string): Tri[] {
    return (c.ports.get(port) ?? []).map((b) => this.value[b] as Tri);
  }

  private portValue(c: Cell, port: string): Value {
    let ports = this.portCache.get(c);
    if (!ports) this.portCache.set(c, (ports = new Map()));
    let v = ports.get(port);
    if (!v) ports.set(port, (v = this.read(c.ports.get(port) ?? [])));
    return v;
  }

  /** What a list of bits holds: its three-valued bits and, where each run of it has one, the set of values. */
  private read(bitsIn: readonly number[]): Value {
    const bits = bitsIn.map((b) => this.value[b] as Tri);
    if (!bits.includes(X)) {
      let v = 0n;
      for (let i = bits.length - 1; i >= 0; i--) v = (v << 1n) | BigInt(bits[i]);
      return { bits, set: [v] };
    }
    let set: bigint[] | undefined = [0n];
    for (let i = 0; i < bitsIn.length && set;) {
      const word = this.originWord[bitsIn[i]];
      const words = word >= 0 ? this.wordSets[word] : undefined;
      let run = 1;
      let values: bigint[];
      if (words && bits[i] === X) {
        // The longest run of this word's bits in order: its values are the word's, shifted and cut.
        const from = this.originIndex[bitsIn[i]];
        while (
          i + run < bitsIn.length &&
          this.originWord[bitsIn[i + run]] === word &&
          this.originIndex[bitsIn[i + run]] === from + run
        )
          run++;
        const cut = mask(run);
        const shift = BigInt(from);
        values = [...new Set(words.map((v) => (v >> shift) & cut))];
      } else {
        while (i + run < bitsIn.length && (bits[i + run] !== X || !this.wordSets[this.originWord[bitsIn[i + run]]]))
          run++;
        const part = fromBits(bits.slice(i, i + run));
        if (!part.set) return { bits };
        values = part.set;
      }
      if (set.length * values.length > MAX_VALUES) return { bits };
      const at = BigInt(i);
      set = set.flatMap((s) => values.map((v) => s | (v << at)));
      i += run;
    }
    return { bits, set: [...new Set(set)].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)) };
  }

  /** The refined output of a cell where sets decide more than bits: muxes pass sets on, compares of sets decide. */
  private refine(c: Cell): Value | undefined {
    const t = c.type;
    const yw = num(c, '\\Y_WIDTH', num(c, '\\WIDTH', 1));
    const truth = (v: Value): Tri =>
      v.set ? (v.set.every((x) => x !== 0n) ? ONE : v.set.every((x) => x === 0n) ? ZERO : X) : bool(v.bits);
    const one = (b: Tri): Value => ({ bits: [b, ...Array.from({ length: yw - 1 }, () => ZERO as Tri)] });
    switch (t) {
      case '$mux': {
        const s = this.bitsAt(c, '\\S')[0];
        const a = this.portValue(c, '\\A');
        const b = this.portValue(c, '\\B');
        return s === ZERO ? a : s === ONE ? b : join(a, b);
      }
      case '$pmux': {
        const w = num(c, '\\WIDTH', 1);
        const s = this.bitsAt(c, '\\S');
        if (s.filter((b) => b === ONE).length > 1) return undefined;
        const bBits = c.ports.get('\\B') ?? [];
        const options: Value[] = [];
        if (!s.includes(ONE)) options.push(this.portValue(c, '\\A'));
        s.forEach((bit, i) => {
          if (bit !== ZERO) options.push(this.read(bBits.slice(i * w, (i + 1) * w)));
        });
        return options.length ? options.reduce(join) : undefined;
      }
      case '$eq':
      case '$ne':
      case '$eqx':
      case '$nex': {
        const a = this.portValue(c, '\\A');
        const b = this.portValue(c, '\\B');
        // Values compare as they are only where neither side is sign-extended.
        const signed = num(c, '\\A_SIGNED') === 1 && num(c, '\\B_SIGNED') === 1;
        if (!a.set || !b.set || (signed && a.bits.length !== b.bits.length)) return undefined;
        const bs = new Set(b.set);
        const equal: Tri = !a.set.some((v) => bs.has(v)) ? ZERO : a.set.length === 1 && b.set.length === 1 ? ONE : X;
        const neg = t === '$ne' || t === '$nex';
        return one(equal === X ? X : neg ? ((1 - equal) as Tri) : equal);
      }
      case '$logic_not': {
        const a = truth(this.portValue(c, '\\A'));
        return one(a === X ? X : ((1 - a) as Tri));
      }
      case '$reduce_or':
      case '$reduce_bool':
        return one(truth(this.portValue(c, '\\A')));
      case '$logic_and':
      case '$logic_or': {
        const a = truth(this.portValue(c, '\\A'));
        const b = truth(this.portValue(c, '\\B'));
        if (t === '$logic_and') return one(a === ZERO || b === ZERO ? ZERO : a === ONE && b === ONE ? ONE : X);
        return one(a === ONE || b === ONE ? ONE : a === ZERO && b === ZERO ? ZERO : X);
      }
      default:
        return undefined;
    }
  }

  /** Writes a cell's output; where it changed, its this.readers are evaluated again. */
  private write(c: Cell, port: string, v: Value): void {
    const w = this.wordOf.get(c)?.get(port);
    let changed = false;
    if (w !== undefined && !sameSet(this.wordSets[w], v.set)) {
      this.wordSets[w] = v.set;
      changed = true;
    }
    const bits = c.ports.get(port) ?? [];
    bits.forEach((b, i) => {
      if (b < CONST_BITS || this.originWord[b] !== w) return;
      const next = v.bits[i] ?? X;
      if (this.value[b] !== next) {
        this.value[b] = next;
        changed = true;
      }
    });
    if (!changed) return;
    for (const b of bits) {
      for (const i of this.readers.get(b) ?? []) {
        this.dirty[i] = 1;
        this.portCache.delete(this.order[i]);
      }
      for (const r of this.registerReaders.get(b) ?? []) {
        this.stale.add(r);
        this.portCache.delete(r.cell);
      }
    }
  }

  /** Evaluates the logic from the registers' values: only the cells whose inputs changed. */
  private settle(): void {
    for (const r of this.registers) this.write(r.cell, '\\Q', r.value);
    this.order.forEach((c, i) => {
      if (!this.dirty[i]) return;
      this.dirty[i] = 0;
      const out = evaluate(c, (port) => this.bitsAt(c, port));
      // Sets decide more only for a mux (which passes them on) or a compare or test the bits leave open.
      const open = !out || (out.get('\\Y') ?? []).includes(X);
      const refined = c.type === '$mux' || c.type === '$pmux' || open ? this.refine(c) : undefined;
      if (refined) {
        // Both are sound: where one decides a bit, it is decided.
        const bits = out?.get('\\Y');
        if (bits) refined.bits = refined.bits.map((b, k) => (b === X ? (bits[k] ?? X) : b));
        // A set keeps only the values the bits allow.
        if (refined.set)
          refined.set = refined.set.filter((v) =>
            refined.bits.every((b, k) => b === X || BigInt(b) === ((v >> BigInt(k)) & 1n)),
          );
        this.write(c, '\\Y', refined.set?.length === 0 ? { bits: refined.bits } : refined);
        return;
      }
      if (!out) return;
      // Bits alone: a read of them enumerates the few values they allow (`read`).
      for (const [port, bits] of out) this.write(c, port, { bits });
    });
  }

  /** A register word's next values, from its inputs and its present values. */
  private nextOf(r: RegisterWord): Value {
    const c = r.cell;
    const active = (port: string, polarity: string): Tri => {
      const v = this.bitsAt(c, port)[0];
      return v === X || v === undefined ? X : v === num(c, polarity, 1) ? ONE : ZERO;
    };
    const d = this.portValue(c, '\\D');
    const width = r.q.length;
    const srst = c.type.startsWith('$sdff') ? active('\\SRST', '\\SRST_POLARITY') : ZERO;
    const resetBits = parseConstant(c.params.get('\\SRST_VALUE') ?? '') ?? [];
    const reset = fromBits(Array.from({ length: width }, (_, i) => resetBits[i] ?? X));
    const hasEnable = c.type === '$dffe' || c.type === '$sdffe' || c.type === '$sdffce' || c.type === '$dlatch';
    const enable = hasEnable ? active('\\EN', '\\EN_POLARITY') : ONE;
    const options: Value[] = [];
    if (c.type === '$sdffce') {
      // The reset acts only where the enable does.
      if (enable !== ZERO) {
        if (srst !== ZERO) options.push(reset);
        if (srst !== ONE) options.push(d);
      }
      if (enable !== ONE) options.push(r.value);
    } else {
      if (srst !== ZERO) options.push(reset);
      if (srst !== ONE) {
        if (enable !== ZERO) options.push(d);
        if (enable !== ONE) options.push(r.value);
      }
    }
    return options.reduce(join);
  }
}

/** Combinational cells in an order where each comes after the cells it reads; a cell on a loop reads unknown there. */
function evaluationOrder(combinational: Cell[], driver: Map<number, Cell>, find: (b: number) => number): Cell[] {
  const order: Cell[] = [];
  const state = new Map<Cell, 1 | 2>();
  const inputCache = new Map<Cell, number[]>();
  const inputsOf = (c: Cell): number[] => {
    let ins = inputCache.get(c);
    if (!ins) {
      ins = [...new Set([...c.ports.entries()].filter(([p]) => !OUTPUTS.has(p)).flatMap(([, bits]) => bits.map(find)))];
      inputCache.set(c, ins);
    }
    return ins;
  };
  for (const root of combinational) {
    if (state.has(root)) continue;
    const stack: [Cell, number][] = [[root, 0]];
    state.set(root, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const ins = inputsOf(top[0]);
      let pushed = false;
      while (top[1] < ins.length) {
        const d = driver.get(ins[top[1]++]);
        if (!d || REGISTERS.has(d.type) || state.has(d)) continue;
        state.set(d, 1);
        stack.push([d, 0]);
        pushed = true;
        break;
      }
      if (pushed) continue;
      state.set(top[0], 2);
      order.push(top[0]);
      stack.pop();
    }
  }
  return order;
}
