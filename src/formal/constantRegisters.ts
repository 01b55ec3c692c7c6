/**
 * Registers that never leave their start value, and the flags they hold at 0: a three-valued (0, 1, unknown)
 * evaluation of the prepared netlist, iterated to the largest set of register bits that is inductive. Assume every
 * bit of the set holds its start value and everything else (inputs, the other registers, memories, unknown cells) is
 * unknown; a bit whose next value is then that start value, whatever the unknowns are, stays in the set; the others
 * leave it, and the rest is evaluated again until nothing leaves. The set holds at the start (Verilator's zeros,
 * initializers kept) and every update keeps it, whichever clock ticks and in whatever order, so in every state the
 * simulator reaches those bits hold their values; a flag that evaluates to 0 under them is 0 in every such state.
 *
 * What it proves: code a parameter disables behind register stages (a decoder that never produces a vector-mode
 * operation, so the pipeline register holding the mode stays at its reset value and the ALU's vector arms are dead).
 * k-induction on one flag does not see that: a state where the register holds a value no run reaches, and the flag
 * is 0 because another condition is false, is a counterexample to every induction length, and on a core those cones
 * cross clock domains and take most of the design. This takes milliseconds for the whole netlist at once.
 */

/** A bit's value: 0, 1, or unknown. */
const ZERO = 0;
const ONE = 1;
const X = 2;
type Tri = 0 | 1 | 2;

/** Bit ids 0, 1 and 2 stand for the constants; wire bits follow. */
const CONST_BITS = 3;

interface Cell {
  type: string;
  params: Map<string, string>;
  ports: Map<string, number[]>;
}

/** A register bit: where its value sits (`q`) and what makes its next one. */
interface RegisterBit {
  cell: Cell;
  index: number;
  q: number;
  start: Tri;
}

/** Registers whose every control this evaluation models (async2sync has made asynchronous ones synchronous). */
const REGISTERS = new Set(['$dff', '$dffe', '$sdff', '$sdffe', '$sdffce', '$ff', '$dlatch']);
/** Ports a cell drives. */
const OUTPUTS = new Set(['\\Y', '\\Q', '\\X', '\\CO', '\\RD_DATA', '\\F']);

interface Netlist {
  cells: Cell[];
  /** Canonical bit of each bit (union-find over `connect`). */
  find: (b: number) => number;
  wires: Map<string, number[]>;
  /** Start values from `init` attributes, per canonical bit (unknown where two disagree). */
  init: Map<number, Tri>;
  /** Bits in all, the constants included. */
  size: number;
}

function parseConstant(token: string): Tri[] | undefined {
  const m = /^(\d+)'([01xzm-]*)$/.exec(token);
  if (!m) return /^-?\d+$/.test(token) ? bitsOfInteger(BigInt(token), 32) : undefined;
  const width = Number(m[1]);
  const text = m[2];
  const out: Tri[] = [];
  // Most significant first in the text; bit 0 first here.
  for (let i = text.length - 1; i >= 0; i--) out.push(text[i] === '0' ? ZERO : text[i] === '1' ? ONE : X);
  while (out.length < width) out.push(ZERO);
  return out.slice(0, width);
}

function bitsOfInteger(v: bigint, width: number): Tri[] {
  const out: Tri[] = [];
  for (let i = 0; i < width; i++) out.push(((v >> BigInt(i)) & 1n) === 1n ? ONE : ZERO);
  return out;
}

const constantBit = (t: Tri) => t as number;

/** Splits a sigspec into its top-level parts (`\a [3:0]`, `4'0101`, `{ … }`). */
function sigTokens(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === ' ') {
      i++;
      continue;
    }
    let j = i;
    if (text[i] === '{') {
      let depth = 0;
      for (; j < text.length; j++) {
        if (text[j] === '{') depth++;
        else if (text[j] === '}' && --depth === 0) break;
      }
      j++;
    } else {
      while (j < text.length && text[j] !== ' ') j++;
      while (text[j] === ' ' && text[j + 1] === '[') {
        const close = text.indexOf(']', j);
        if (close < 0) break;
        j = close + 1;
      }
    }
    out.push(text.slice(i, j));
    i = j;
  }
  return out;
}

function parseNetlist(il: string): Netlist {
  const wires = new Map<string, number[]>();
  const init = new Map<number, Tri>();
  let next = CONST_BITS;
  const parent: number[] = [0, 1, 2];
  const find = (b: number): number => {
    let r = b;
    while (parent[r] !== r) r = parent[r];
    while (parent[b] !== r) [b, parent[b]] = [parent[b], r];
    return r;
  };
  /** Joins two bits; a wire bit joined to a constant takes the constant (two different constants: unknown). */
  const join = (a: number, b: number) => {
    const [x, y] = [find(a), find(b)];
    if (x === y) return;
    if (x < CONST_BITS && y < CONST_BITS) return;
    if (x < CONST_BITS) parent[y] = x;
    else parent[x] = y;
  };
  /** Wires that cannot be read bit for bit here (a non-zero offset or a reversed range): their bits stay unknown. */
  const opaque = new Set<string>();
  const bitsOf = (sig: string): number[] | undefined => {
    const out: number[] = [];
    // Concatenations list the most significant part first.
    const parts = sigTokens(sig.trim().replace(/^\{(.*)\}$/s, '$1'));
    for (let p = parts.length - 1; p >= 0; p--) {
      const part = parts[p];
      if (part.startsWith('{')) {
        const inner = bitsOf(part);
        if (!inner) return undefined;
        out.push(...inner);
        continue;
      }
      const c = parseConstant(part);
      if (c) {
        out.push(...c.map(constantBit));
        continue;
      }
      const m = /^(\S+)(?: \[(\d+)(?::(\d+))?\])?$/.exec(part);
      if (!m) return undefined;
      const w = wires.get(m[1]);
      if (!w) return undefined;
      if (m[2] === undefined) {
        out.push(...w);
        continue;
      }
      if (opaque.has(m[1])) return undefined;
      const hi = Number(m[2]);
      const lo = m[3] === undefined ? hi : Number(m[3]);
      for (let i = lo; i <= hi; i++) {
        if (i >= w.length) return undefined;
        out.push(w[i]);
      }
    }
    return out;
  };
  const parsed: { cell: Cell; raw: [string, string][] }[] = [];
  let cell: { cell: Cell; raw: [string, string][] } | undefined;
  let attributes: string[] = [];
  const connects: [string, string][] = [];
  for (const raw of il.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('attribute ')) {
      attributes.push(line);
      continue;
    }
    if (line.startsWith('wire ')) {
      const t = line.split(/\s+/);
      const name = t[t.length - 1];
      const wi = t.indexOf('width');
      const width = wi >= 0 ? Number(t[wi + 1]) : 1;
      if (t.includes('offset') || t.includes('upto')) opaque.add(name);
      const bits: number[] = [];
      for (let i = 0; i < width; i++) {
        parent.push(next);
        bits.push(next++);
      }
      wires.set(name, bits);
      const initAttr = attributes.find((a) => a.startsWith('attribute \\init '));
      if (initAttr && !opaque.has(name)) {
        const v = parseConstant(initAttr.split(/\s+/)[2]);
        if (v) bits.forEach((b, i) => init.set(b, v[i] ?? ZERO));
      }
      attributes = [];
    } else if (line.startsWith('cell ')) {
      const t = line.split(/\s+/);
      cell = { cell: { type: t[1], params: new Map(), ports: new Map() }, raw: [] };
      attributes = [];
    } else if (cell && line.startsWith('parameter ')) {
      const t = line.split(/\s+/);
      cell.cell.params.set(t[t.length - 2], t[t.length - 1]);
    } else if (cell && line.startsWith('connect ')) {
      const rest = line.slice('connect '.length);
      const space = rest.indexOf(' ');
      cell.raw.push([rest.slice(0, space), rest.slice(space + 1)]);
    } else if (cell && line === 'end') {
      parsed.push(cell);
      cell = undefined;
    } else if (!cell && line.startsWith('connect ')) {
      const sides = sigTokens(line.slice('connect '.length));
      if (sides.length === 2) connects.push([sides[0], sides[1]]);
    } else if (line.length) attributes = [];
  }
  const unknownBits = (n: number) => Array.from({ length: n }, () => X as number);
  for (const [lhs, rhs] of connects) {
    const l = bitsOf(lhs);
    const r = bitsOf(rhs);
    if (!l || !r) {
      // A connection this cannot read: its left side is left unknown (never joined to a value it might not have).
      if (l) for (const b of l) join(b, X);
      continue;
    }
    for (let i = 0; i < l.length; i++) join(l[i], r[i] ?? ZERO);
  }
  for (const { cell: c, raw } of parsed)
    for (const [port, sig] of raw) {
      const bits = bitsOf(sig);
      const width = Number(c.params.get(`\\${port.slice(1)}_WIDTH`) ?? c.params.get('\\WIDTH') ?? 0);
      c.ports.set(port, bits ?? unknownBits(Math.max(width, 1)));
    }
  const cells = parsed.map((p) => p.cell);
  // Start values by net: an initializer on any wire of it. Two that disagree leave the net's start unknown.
  const initByNet = new Map<number, Tri>();
  for (const [b, v] of init) {
    const n = find(b);
    const before = initByNet.get(n);
    initByNet.set(n, before === undefined || before === v ? v : X);
  }
  return { cells, find, wires, init: initByNet, size: next };
}

const num = (c: Cell, p: string, d = 0) => {
  const v = c.params.get(p);
  if (v === undefined) return d;
  const m = /^(?:\d+')?([01]+)$/.exec(v);
  return m ? parseInt(m[1], 2) : Number(v);
};

function merge(a: Tri, b: Tri): Tri {
  return a === b ? a : X;
}

/** `bits` extended (or cut) to `width`, with the sign bit when `signed`. */
function extend(bits: Tri[], width: number, signed: boolean): Tri[] {
  const fill: Tri = signed && bits.length ? bits[bits.length - 1] : ZERO;
  const out = bits.slice(0, width);
  while (out.length < width) out.push(fill);
  return out;
}

function toBigInt(bits: Tri[]): bigint | undefined {
  let v = 0n;
  for (let i = bits.length - 1; i >= 0; i--) {
    if (bits[i] === X) return undefined;
    v = (v << 1n) | BigInt(bits[i]);
  }
  return v;
}

function signedValue(bits: Tri[], signed: boolean): bigint | undefined {
  const v = toBigInt(bits);
  if (v === undefined || !signed || !bits.length || bits[bits.length - 1] === ZERO) return v;
  return v - (1n << BigInt(bits.length));
}

const bool = (bits: Tri[]): Tri => (bits.includes(ONE) ? ONE : bits.includes(X) ? X : ZERO);
const unknown = (n: number): Tri[] => Array.from({ length: n }, () => X as Tri);
const word = (v: bigint, n: number): Tri[] => bitsOfInteger(BigInt.asUintN(Math.max(n, 1), v), n);

/** A combinational cell's outputs from its inputs; undefined: a cell this does not evaluate (its outputs unknown). */
function evaluate(c: Cell, get: (port: string) => Tri[]): Map<string, Tri[]> | undefined {
  const t = c.type;
  const aSigned = num(c, '\\A_SIGNED') === 1;
  const bSigned = num(c, '\\B_SIGNED') === 1;
  const yw = num(c, '\\Y_WIDTH', num(c, '\\WIDTH', 1));
  const y = (bits: Tri[]) => new Map([['\\Y', bits]]);
  const one = (b: Tri) => y(extend([b], yw, false));
  switch (t) {
    case '$not':
      return y(extend(get('\\A'), yw, aSigned).map((b) => (b === X ? X : ((1 - b) as Tri))));
    case '$pos':
    case '$buf':
      return y(extend(get('\\A'), yw, aSigned));
    case '$and':
    case '$or':
    case '$xor':
    case '$xnor': {
      const signed = aSigned && bSigned;
      const a = extend(get('\\A'), yw, signed);
      const b = extend(get('\\B'), yw, signed);
      return y(
        a.map((p, i): Tri => {
          const q = b[i];
          if (t === '$and') return p === ZERO || q === ZERO ? ZERO : p === ONE && q === ONE ? ONE : X;
          if (t === '$or') return p === ONE || q === ONE ? ONE : p === ZERO && q === ZERO ? ZERO : X;
          if (p === X || q === X) return X;
          return ((p ^ q ^ (t === '$xnor' ? 1 : 0)) & 1) as Tri;
        }),
      );
    }
    case '$reduce_or':
    case '$reduce_bool':
      return one(bool(get('\\A')));
    case '$logic_not': {
      const a = bool(get('\\A'));
      return one(a === X ? X : ((1 - a) as Tri));
    }
    case '$reduce_and': {
      const a = get('\\A');
      return one(a.includes(ZERO) ? ZERO : a.includes(X) ? X : ONE);
    }
    case '$reduce_xor':
    case '$reduce_xnor': {
      const a = get('\\A');
      if (a.includes(X)) return one(X);
      const p = a.reduce((s: number, b) => s ^ b, t === '$reduce_xnor' ? 1 : 0) as Tri;
      return one(p);
    }
    case '$logic_and':
    case '$logic_or': {
      const a = bool(get('\\A'));
      const b = bool(get('\\B'));
      if (t === '$logic_and') return one(a === ZERO || b === ZERO ? ZERO : a === ONE && b === ONE ? ONE : X);
      return one(a === ONE || b === ONE ? ONE : a === ZERO && b === ZERO ? ZERO : X);
    }
    case '$eq':
    case '$ne':
    case '$eqx':
    case '$nex': {
      const signed = aSigned && bSigned;
      const w = Math.max(get('\\A').length, get('\\B').length);
      const a = extend(get('\\A'), w, signed);
      const b = extend(get('\\B'), w, signed);
      let r: Tri = ONE;
      for (let i = 0; i < w; i++) {
        if (a[i] !== X && b[i] !== X && a[i] !== b[i]) {
          r = ZERO;
          break;
        }
        if (a[i] === X || b[i] === X) r = X;
      }
      const neg = t === '$ne' || t === '$nex';
      return one(r === X ? X : neg ? ((1 - r) as Tri) : r);
    }
    case '$mux': {
      const s = get('\\S')[0];
      const a = get('\\A');
      const b = get('\\B');
      return y(s === ZERO ? a : s === ONE ? b : a.map((v, i) => merge(v, b[i])));
    }
    case '$bwmux': {
      const a = get('\\A');
      const b = get('\\B');
      const s = get('\\S');
      return y(a.map((v, i) => (s[i] === ZERO ? v : s[i] === ONE ? b[i] : merge(v, b[i]))));
    }
    case '$pmux': {
      const w = num(c, '\\WIDTH', 1);
      const s = get('\\S');
      const a = get('\\A');
      const b = get('\\B');
      // Every value the output may take: A when no select may be set, each slice whose select may be set. Where
      // several selects are set the cell is undefined; what the source's case does then is one of these values.
      const options: Tri[][] = [];
      if (!s.includes(ONE)) options.push(a);
      s.forEach((bit, i) => {
        if (bit !== ZERO) options.push(b.slice(i * w, (i + 1) * w));
      });
      if (s.filter((bit) => bit === ONE).length > 1) return y(unknown(w));
      return y(a.map((_, i) => options.map((o) => o[i]).reduce(merge)));
    }
    case '$bmux': {
      const w = num(c, '\\WIDTH', 1);
      const s = get('\\S');
      const a = get('\\A');
      const known = toBigInt(s);
      if (known !== undefined) return y(a.slice(Number(known) * w, (Number(known) + 1) * w));
      if (s.length > 12) return y(unknown(w));
      const options: Tri[][] = [];
      for (let i = 0; i < 1 << s.length; i++)
        if (s.every((bit, k) => bit === X || bit === ((i >> k) & 1))) options.push(a.slice(i * w, (i + 1) * w));
      return y(unknown(w).map((_, i) => options.map((o) => o[i]).reduce(merge)));
    }
    case '$demux': {
      const w = num(c, '\\WIDTH', 1);
      const s = get('\\S');
      const a = get('\\A');
      if (s.length > 12) return y(unknown(w << s.length));
      const out: Tri[] = [];
      for (let i = 0; i < 1 << s.length; i++) {
        const match = s.every((bit, k) => bit === X || bit === ((i >> k) & 1));
        const sure = match && !s.includes(X);
        for (let k = 0; k < w; k++) out.push(!match ? ZERO : sure ? a[k] : merge(a[k], ZERO));
      }
      return y(out);
    }
    case '$add':
    case '$sub':
    case '$mul':
    case '$neg':
    case '$lt':
    case '$le':
    case '$gt':
    case '$ge':
    case '$shl':
    case '$shr':
    case '$sshl':
    case '$sshr': {
      const signed = aSigned && (t === '$neg' || t.includes('sh') || bSigned);
      const a = signedValue(get('\\A'), t.includes('sh') ? aSigned : signed);
      const b = t === '$neg' ? 0n : toBigInt(get('\\B'));
      const bv = t === '$neg' || t.includes('sh') ? b : signedValue(get('\\B'), signed);
      // A signed shift amount, or a signed operand widened before a logical shift: not modelled here.
      if (t.includes('sh') && (bSigned || (t === '$shr' && aSigned && yw > get('\\A').length))) return y(unknown(yw));
      if (a === undefined || bv === undefined) return y(unknown(yw));
      const n = Number(bv);
      switch (t) {
        case '$add':
          return y(word(a + bv, yw));
        case '$sub':
          return y(word(a - bv, yw));
        case '$mul':
          return y(word(a * bv, yw));
        case '$neg':
          return y(word(-a, yw));
        case '$lt':
          return one(a < bv ? ONE : ZERO);
        case '$le':
          return one(a <= bv ? ONE : ZERO);
        case '$gt':
          return one(a > bv ? ONE : ZERO);
        case '$ge':
          return one(a >= bv ? ONE : ZERO);
        case '$shl':
        case '$sshl':
          return y(n > 4096 ? word(0n, yw) : extend(word(a << BigInt(n), yw), yw, false));
        case '$shr':
          return y(n > 4096 ? word(0n, yw) : word(BigInt.asUintN(get('\\A').length, a) >> BigInt(n), yw));
        default:
          // $sshr: arithmetic when A is signed.
          return y(n > 4096 ? word(a < 0n ? -1n : 0n, yw) : word(a >> BigInt(n), yw));
      }
    }
    default:
      return undefined;
  }
}

/** The next value of a register bit from its inputs, its current value `q` included. */
function nextOf(r: RegisterBit, get: (port: string) => Tri[]): Tri {
  const c = r.cell;
  const active = (port: string, polarity: string): Tri => {
    const v = get(port)[0];
    if (v === X) return X;
    return v === num(c, polarity, 1) ? ONE : ZERO;
  };
  const d = get('\\D')[r.index];
  const q = r.start;
  const options: Tri[] = [];
  const srst = c.type.startsWith('$sdff') ? active('\\SRST', '\\SRST_POLARITY') : ZERO;
  const resetValue = (parseConstant(c.params.get('\\SRST_VALUE') ?? '') ?? [])[r.index] ?? X;
  const en = c.type === '$dffe' || c.type === '$sdffe' || c.type === '$sdffce' || c.type === '$dlatch';
  const enable = en ? active('\\EN', '\\EN_POLARITY') : ONE;
  if (c.type === '$sdffce') {
    // The reset acts only where the enable does.
    if (enable !== ZERO) {
      if (srst !== ZERO) options.push(resetValue);
      if (srst !== ONE) options.push(d);
    }
    if (enable !== ONE) options.push(q);
  } else {
    if (srst !== ZERO) options.push(resetValue);
    if (srst !== ONE) {
      if (enable !== ZERO) options.push(d);
      if (enable !== ONE) options.push(q);
    }
  }
  return options.reduce(merge);
}

/**
 * Bound of the whole evaluation: each round evaluates the netlist once, and a round drops at least one bit, so a long
 * chain of registers (a deep shift register) takes as many rounds as it has stages. cv32e40p_core: 38 rounds, 0.3 s.
 */
const MAX_MS = 15_000;

export interface ConstantAnalysis {
  /** Flags (wire names as `select -list` gives them) that are 0 in every state the simulator reaches. */
  zeroFlags: Set<string>;
  /** Register bits found constant, of how many this evaluates. */
  constantBits: number;
  registerBits: number;
  rounds: number;
  ms: number;
}

/**
 * The flags among `flags` that the constant registers of the netlist `il` (an RTLIL module with its asynchronous
 * controls made synchronous) hold at 0.
 */
export function constantFlags(il: string, flags: readonly string[]): ConstantAnalysis {
  const started = Date.now();
  const net = parseNetlist(il);
  const { cells, find } = net;
  const value = new Uint8Array(net.size).fill(X);
  value[0] = ZERO;
  value[1] = ONE;
  value[2] = X;
  const driver = new Map<number, Cell>();
  for (const c of cells)
    for (const [port, bits] of c.ports)
      if (OUTPUTS.has(port)) for (const b of bits) if (find(b) >= CONST_BITS) driver.set(find(b), c);
  // Register bits: the ones a start value is known for (init, or Verilator's zero).
  const registers: RegisterBit[] = [];
  const combinational: Cell[] = [];
  for (const c of cells) {
    if (REGISTERS.has(c.type)) {
      const q = c.ports.get('\\Q') ?? [];
      q.forEach((b, index) => {
        const bit = find(b);
        const start = net.init.get(bit) ?? ZERO;
        if (bit >= CONST_BITS && start !== X) registers.push({ cell: c, index, q: bit, start });
      });
    } else combinational.push(c);
  }
  // Combinational cells in an order where each comes after the cells it reads; cells on a loop stay unknown.
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
  const isRegister = (c: Cell) => REGISTERS.has(c.type);
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
        if (!d || isRegister(d) || state.get(d) === 2) continue;
        if (state.get(d) === 1) continue; // a loop: its cells read an unknown there
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
  const portOf = (c: Cell) => (port: string) => (c.ports.get(port) ?? []).map((b) => value[find(b)] as Tri);
  let inSet = registers.map(() => true);
  let rounds = 0;
  const settle = () => {
    value.fill(X, CONST_BITS);
    registers.forEach((r, i) => {
      if (inSet[i]) value[r.q] = r.start;
    });
    for (const c of order) {
      const out = evaluate(c, portOf(c));
      if (!out) continue;
      for (const [port, bits] of out) {
        const targets = c.ports.get(port) ?? [];
        targets.forEach((b, i) => {
          const t = find(b);
          if (t >= CONST_BITS) value[t] = bits[i] ?? X;
        });
      }
    }
  };
  for (;;) {
    rounds++;
    // The set is proven only at its fixpoint: a netlist that takes longer than this gets no proof from it.
    if (Date.now() - started > MAX_MS)
      return {
        zeroFlags: new Set(),
        constantBits: 0,
        registerBits: registers.length,
        rounds,
        ms: Date.now() - started,
      };
    settle();
    const next = registers.map((r, i) => inSet[i] && nextOf(r, portOf(r.cell)) === r.start);
    if (next.every((v, i) => v === inSet[i])) break;
    inSet = next;
  }
  const zeroFlags = new Set<string>();
  for (const f of flags) {
    const bits = net.wires.get(`\\${f}`);
    if (bits && bits.every((b) => value[find(b)] === ZERO)) zeroFlags.add(f);
  }
  return {
    zeroFlags,
    constantBits: inSet.filter(Boolean).length,
    registerBits: registers.length,
    rounds,
    ms: Date.now() - started,
  };
}
