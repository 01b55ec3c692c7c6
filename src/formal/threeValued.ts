/**
 * Three-valued (0, 1, unknown) evaluation of Yosys' word-level cells, bit by bit: an unknown input bit makes an
 * output bit unknown unless the cell's function decides it anyway (`0 & x` is 0, a mux whose inputs agree).
 */
import { bitsOfInteger, ONE, X, ZERO, type Cell, type Tri } from './rtlilBits';

export const num = (c: Cell, p: string, d = 0) => {
  const v = c.params.get(p);
  if (v === undefined) return d;
  const m = /^(?:\d+')?([01]+)$/.exec(v);
  return m ? parseInt(m[1], 2) : Number(v);
};

export function merge(a: Tri, b: Tri): Tri {
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

export const bool = (bits: Tri[]): Tri => (bits.includes(ONE) ? ONE : bits.includes(X) ? X : ZERO);
const unknown = (n: number): Tri[] => Array.from({ length: n }, () => X as Tri);
const word = (v: bigint, n: number): Tri[] => bitsOfInteger(BigInt.asUintN(Math.max(n, 1), v), n);

/** A combinational cell's outputs from its inputs; undefined: a cell this does not evaluate (its outputs unknown). */
export function evaluate(c: Cell, get: (port: string) => Tri[]): Map<string, Tri[]> | undefined {
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
