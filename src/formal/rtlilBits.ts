/**
 * An RTLIL module read bit by bit, for the analyses CHORUS runs on Yosys' prepared netlist itself: every wire bit an
 * id, module-level connections joined (union-find, constants included), each cell's ports as lists of bit ids.
 */

/** A bit's value: 0, 1, or unknown. */
export const ZERO = 0;
export const ONE = 1;
export const X = 2;
export type Tri = 0 | 1 | 2;

/** Bit ids 0, 1 and 2 stand for the constants; wire bits follow. */
export const CONST_BITS = 3;

export interface Cell {
  type: string;
  params: Map<string, string>;
  ports: Map<string, number[]>;
}

/** Ports a cell drives. */
export const OUTPUTS = new Set(['\\Y', '\\Q', '\\X', '\\CO', '\\RD_DATA', '\\F']);

export interface Netlist {
  cells: Cell[];
  /** Canonical bit of each bit (union-find over `connect`). */
  find: (b: number) => number;
  wires: Map<string, number[]>;
  /** Start values from `init` attributes, per canonical bit (unknown where two disagree). */
  init: Map<number, Tri>;
  /** Bits in all, the constants included. */
  size: number;
}

export function parseConstant(token: string): Tri[] | undefined {
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

export function bitsOfInteger(v: bigint, width: number): Tri[] {
  const out: Tri[] = [];
  for (let i = 0; i < width; i++) out.push(((v >> BigInt(i)) & 1n) === 1n ? ONE : ZERO);
  return out;
}

const constantBit = (t: Tri) => t as number;

/** Splits a sigspec into its top-level parts (`\a [3:0]`, `4'0101`, `{ … }`); a connection into its two sides. */
export function sigTokens(text: string): string[] {
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

export function parseNetlist(il: string): Netlist {
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
