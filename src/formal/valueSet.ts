/**
 * Values of a word in the register-value evaluation (registerValues.ts): three-valued bits, and where few enough, the
 * whole set of values they stand for. A join covers both sides; a set past `MAX_VALUES` is kept as bits.
 */
import { merge } from './threeValued';
import { ONE, X, ZERO, type Tri } from './rtlilBits';

/** Values a register word or a cell output keeps as a set; past this it keeps three-valued bits. */
export const MAX_VALUES = 64;
/** Unknown bits of a value read bit by bit that are enumerated into a set (2^4 values at most). */
const ENUMERATE_BITS = 4;

/** What a word can be: three-valued bits, and where known, the whole set of values (each `bits.length` wide). */
export interface Value {
  bits: Tri[];
  set?: bigint[] | undefined;
}

export const mask = (w: number) => (1n << BigInt(w)) - 1n;

/** Three-valued bits covering every value of a set. */
function bitsOfSet(set: readonly bigint[], width: number): Tri[] {
  const out: Tri[] = [];
  for (let i = 0; i < width; i++) {
    let bit: Tri | undefined;
    for (const v of set) {
      const b: Tri = (v >> BigInt(i)) & 1n ? ONE : ZERO;
      bit = bit === undefined ? b : merge(bit, b);
      if (bit === X) break;
    }
    out.push(bit ?? X);
  }
  return out;
}

/** A value from bits: a set where at most `ENUMERATE_BITS` are unknown. */
export function fromBits(bits: Tri[]): Value {
  const unknownAt = bits.flatMap((b, i) => (b === X ? [i] : []));
  if (unknownAt.length > ENUMERATE_BITS) return { bits };
  let base = 0n;
  bits.forEach((b, i) => {
    if (b === ONE) base |= 1n << BigInt(i);
  });
  const set: bigint[] = [];
  for (let k = 0; k < 1 << unknownAt.length; k++) {
    let v = base;
    unknownAt.forEach((at, j) => {
      if ((k >> j) & 1) v |= 1n << BigInt(at);
    });
    set.push(v);
  }
  return { bits, set };
}

/** The union of two sets; undefined past `MAX_VALUES`. */
function union(a: readonly bigint[], b: readonly bigint[]): bigint[] | undefined {
  const out = new Set([...a, ...b]);
  return out.size > MAX_VALUES ? undefined : [...out].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}

/** A value covering both. */
export function join(a: Value, b: Value): Value {
  const bits = a.bits.map((x, i) => merge(x, b.bits[i] ?? X));
  const set = a.set && b.set ? union(a.set, b.set) : undefined;
  return set ? { bits: bitsOfSet(set, bits.length), set } : { bits };
}

export const sameSet = (a: readonly bigint[] | undefined, b: readonly bigint[] | undefined) =>
  a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((v, i) => v === b[i]));

export const sameValue = (a: Value, b: Value) =>
  a.bits.every((x, i) => x === b.bits[i]) &&
  (a.set === undefined) === (b.set === undefined) &&
  (a.set?.length ?? 0) === (b.set?.length ?? 0);
