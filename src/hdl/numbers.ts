/** Verilog/SystemVerilog integer literals: `8'hFF`, `'b1??0`, `12`, `'1`. */

export interface NumberLiteral {
  /** Value with don't-care bits (x, z, ?) set to 0. */
  value: bigint;
  /** Bits that are x, z or `?` (don't-care in casez/casex items). 0n when none. */
  unknownMask: bigint;
  /** Size in bits when written (`8'h..`), 32 for plain decimals, undefined for unbased unsized (`'1`). */
  width?: number | undefined;
  signed: boolean;
  /** `'0`, `'1`, `'x`, `'z`: fills whatever width the context gives. */
  fill?: '0' | '1' | 'x' | 'z';
}

/** The low `w` bits set. */
export const mask = (w: number): bigint => (1n << BigInt(w)) - 1n;

const BASE_BITS: Record<string, number> = { b: 1, o: 3, h: 4 };

/** The widest sized literal the analysis evaluates. */
export const MAX_LITERAL_WIDTH = 65_536;

// size? ' s? base digits
const BASED = /^(\d[\d_]*)?\s*'\s*([sS])?([bBoOdDhH])\s*([0-9a-fA-FxXzZ?_]+)$/;
const UNBASED = /^'([01xXzZ])$/;
const DECIMAL = /^\d[\d_]*$/;

/** Parses one integer literal; undefined for anything else (reals, strings, identifiers). */
export function parseNumber(text: string): NumberLiteral | undefined {
  const t = text.trim();
  const first = t.charCodeAt(0);
  if (first !== 39 && (first < 48 || first > 57)) return undefined; // neither ' nor a digit: a name
  if (DECIMAL.test(t)) return { value: BigInt(t.replace(/_/g, '')), unknownMask: 0n, width: 32, signed: true };
  const u = UNBASED.exec(t);
  if (u) {
    const fill = u[1].toLowerCase() as '0' | '1' | 'x' | 'z';
    return { value: 0n, unknownMask: 0n, signed: false, fill };
  }
  const m = BASED.exec(t);
  if (!m) return undefined;
  const width = m[1] !== undefined ? Number(m[1].replace(/_/g, '')) : undefined;
  // Tools support sizes up to 2^16 bits (IEEE 1800 asks for at least 65,536); a larger size is not a number the
  // analysis can evaluate (and would exhaust BigInt), so it is left to Verilator to refuse.
  if (width !== undefined && !(width >= 1 && width <= MAX_LITERAL_WIDTH)) return undefined;
  const signed = m[2] !== undefined;
  const base = m[3].toLowerCase();
  const digits = m[4].replace(/_/g, '').toLowerCase();
  let value = 0n;
  let unknownMask = 0n;
  if (base === 'd') {
    if (/^[xz?]$/.test(digits)) {
      const w = width ?? 32;
      return { value: 0n, unknownMask: (1n << BigInt(w)) - 1n, width: w, signed };
    }
    if (!/^\d+$/.test(digits)) return undefined;
    value = BigInt(digits);
  } else {
    const bits = BASE_BITS[base];
    const digitMask = (1n << BigInt(bits)) - 1n;
    for (const ch of digits) {
      value <<= BigInt(bits);
      unknownMask <<= BigInt(bits);
      if (ch === 'x' || ch === 'z' || ch === '?') {
        unknownMask |= digitMask;
        continue;
      }
      const d = parseInt(ch, 16);
      if (Number.isNaN(d) || d > Number(digitMask)) return undefined;
      value |= BigInt(d);
    }
  }
  const w = width ?? 32;
  const keep = (1n << BigInt(w)) - 1n;
  return { value: value & keep, unknownMask: unknownMask & keep, width, signed };
}

/** Smallest width that holds `value` (at least 1). */
export function bitLength(value: bigint): number {
  let n = 0;
  for (let v = value < 0n ? -value : value; v > 0n; v >>= 1n) n++;
  return Math.max(n, 1);
}

/** `$clog2`: ceil(log2(n)), 0 for n <= 1. */
export function clog2(n: bigint): bigint {
  if (n <= 1n) return 0n;
  return BigInt(bitLength(n - 1n));
}
