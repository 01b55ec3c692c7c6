/**
 * Names the likely cause when a testbench runs a build out of memory: the largest unpacked array it declares
 * or the longest loop it writes, where their bounds are plain constant expressions (`(1<<28)-1`, `1_000_000`).
 * Best effort, for the message only: a bound that uses a parameter or a function is not evaluated.
 */

export interface BigConstruct {
  kind: 'array' | 'loop';
  /** Elements of the array, or iterations of the loop. */
  count: bigint;
  /** 1-based line in the text. */
  line: number;
}

/** Smallest count worth naming. */
const NOTABLE = 1n << 16n;

/** The largest array or loop in `text` with at least 65,536 elements or iterations. */
export function biggestConstruct(text: string): BigConstruct | undefined {
  const clean = stripComments(text);
  let best: BigConstruct | undefined;
  const consider = (c: BigConstruct): void => {
    if (c.count >= NOTABLE && (!best || c.count > best.count)) best = c;
  };
  // An identifier followed by unpacked dimensions and then `;`, `,` or `=`: a declared array.
  for (const m of clean.matchAll(/\b[A-Za-z_]\w*\s*((?:\[[^\][;]*\]\s*)+)(?=[;,=])/g)) {
    let count = 1n;
    for (const dim of m[1].matchAll(/\[([^\]]*)\]/g)) {
      const size = dimensionSize(dim[1]);
      if (size === undefined) {
        count = 0n;
        break;
      }
      count *= size;
    }
    consider({ kind: 'array', count, line: lineAt(clean, m.index ?? 0) });
  }
  // for (init; i < N; …) and i <= N: iterations from the bound, counting from the initial value when known.
  for (const m of clean.matchAll(/\bfor\s*\(([^;]*);\s*[A-Za-z_]\w*\s*(<=?)\s*([^;]+);/g)) {
    const bound = evaluate(m[3]);
    if (bound === undefined) continue;
    const init = /=\s*([^,]+)$/.exec(m[1]);
    const from = (init ? evaluate(init[1]) : undefined) ?? 0n;
    consider({ kind: 'loop', count: bound - from + (m[2] === '<=' ? 1n : 0n), line: lineAt(clean, m.index ?? 0) });
  }
  return best;
}

/** "a 2^28-entry array" or "a loop of 1,000,000 iterations". */
export function describeConstruct(c: BigConstruct): string {
  const n = powerOfTwo(c.count) ?? c.count.toLocaleString('en-US');
  return c.kind === 'array' ? `a ${n}-entry array` : `a loop of ${n} iterations`;
}

function powerOfTwo(n: bigint): string | undefined {
  if (n <= 0n || (n & (n - 1n)) !== 0n) return undefined;
  return `2^${n.toString(2).length - 1}`;
}

function dimensionSize(text: string): bigint | undefined {
  const parts = text.split(':');
  if (parts.length === 1) return evaluate(parts[0]);
  if (parts.length !== 2) return undefined;
  const [a, b] = parts.map(evaluate);
  if (a === undefined || b === undefined) return undefined;
  return (a > b ? a - b : b - a) + 1n;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Comments blanked out, keeping line breaks (so line numbers stay right). */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (c) => c.replace(/[^\n]/g, ' '));
}

type Tok = bigint | string;

function tokens(text: string): Tok[] | undefined {
  const out: Tok[] = [];
  const re = /\s*(?:(\d[\d_]*)?\s*'[sS]?([hdboHDBO])\s*([0-9a-fA-F_]+)|(\d[\d_]*)|(<<|>>|\*\*|[-+*/%()]))/y;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return undefined;
    at = re.lastIndex;
    if (m[2]) {
      const radix = { h: 16, d: 10, b: 2, o: 8 }[m[2].toLowerCase() as 'h' | 'd' | 'b' | 'o'];
      const digits = m[3].replace(/_/g, '');
      if (![...digits].every((ch) => !Number.isNaN(parseInt(ch, radix)))) return undefined;
      out.push([...digits].reduce((acc, ch) => acc * BigInt(radix) + BigInt(parseInt(ch, radix)), 0n));
    } else if (m[4]) out.push(BigInt(m[4].replace(/_/g, '')));
    else out.push(m[5]);
  }
  return out;
}

/** A constant integer expression of numbers, + - * / % ** << >> and parentheses; undefined otherwise. */
export function evaluate(text: string): bigint | undefined {
  const toks = tokens(text);
  if (!toks?.length) return undefined;
  let i = 0;
  const peek = (): Tok | undefined => toks[i];
  const LIMIT = 1n << 64n;
  const primary = (): bigint | undefined => {
    const t = toks[i++];
    if (typeof t === 'bigint') return t;
    if (t === '-') {
      const v = primary();
      return v === undefined ? undefined : -v;
    }
    if (t === '(') {
      const v = shift();
      return toks[i++] === ')' ? v : undefined;
    }
    return undefined;
  };
  const power = (): bigint | undefined => {
    const base = primary();
    if (base === undefined) return undefined;
    if (peek() !== '**') return base;
    i++;
    const exp = power();
    return exp === undefined || exp < 0n || exp > 128n ? undefined : base ** exp;
  };
  const product = (): bigint | undefined => {
    let v = power();
    while (v !== undefined && (peek() === '*' || peek() === '/' || peek() === '%')) {
      const op = toks[i++];
      const r = power();
      if (r === undefined || (op !== '*' && r === 0n)) return undefined;
      v = op === '*' ? v * r : op === '/' ? v / r : v % r;
    }
    return v;
  };
  const sum = (): bigint | undefined => {
    let v = product();
    while (v !== undefined && (peek() === '+' || peek() === '-')) {
      const op = toks[i++];
      const r = product();
      if (r === undefined) return undefined;
      v = op === '+' ? v + r : v - r;
    }
    return v;
  };
  const shift = (): bigint | undefined => {
    let v = sum();
    while (v !== undefined && (peek() === '<<' || peek() === '>>')) {
      const op = toks[i++];
      const r = sum();
      if (r === undefined || r < 0n || r > 128n) return undefined;
      v = op === '<<' ? v << r : v >> r;
    }
    return v !== undefined && v > -LIMIT && v < LIMIT ? v : undefined;
  };
  const v = shift();
  return i === toks.length ? v : undefined;
}
