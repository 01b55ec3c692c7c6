/**
 * Evaluates constant expressions as written in declarations (`WIDTH-1`, `$clog2(DEPTH)`, `{W{1'b1}}`,
 * `pkg::N*2`). Works on text, so it needs no syntax tree: widths and parameters are short expressions.
 */
import { bitLength, clog2, mask, parseNumber } from './numbers';

export interface ConstValue {
  value: bigint;
  /** Bit width when it is known (sized literals, casts, concatenations). */
  width?: number | undefined;
}

export interface ConstScope {
  /** A parameter, localparam, enum member or package constant (`pkg::N`); undefined when unknown. */
  value(name: string): ConstValue | undefined;
  /** Width of a named type, for `$bits(T)` and casts `T'(x)`. */
  typeWidth?(name: string): number | undefined;
  /** Text of an object-like `define, for `` `NAME ``. */
  macro?(name: string): string | undefined;
  /** A constant function's result for constant arguments (`pkg::f(4)`); undefined when it cannot be worked out. */
  call?(name: string, args: ConstValue[]): ConstValue | undefined;
}

type Tok = { k: 'num'; lit: string } | { k: 'id'; name: string } | { k: 'sys'; name: string } | { k: 'op'; op: string };

const OPS = [
  '<<<',
  '>>>',
  '===',
  '!==',
  '**',
  '<<',
  '>>',
  '<=',
  '>=',
  '==',
  '!=',
  '&&',
  '||',
  '~&',
  '~|',
  '~^',
  '^~',
  "'(",
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '!',
  '~',
  '&',
  '|',
  '^',
  '?',
  ':',
  '(',
  ')',
  '{',
  '}',
  ',',
  '[',
  ']',
  "'",
];

/**
 * One sticky pattern for every token kind, tried at the current position: number, macro, system function,
 * identifier (with `pkg::`), operator. Group order matters: numbers before identifiers (`'hFF`).
 */
const TOKEN = new RegExp(
  [
    /\s+/.source,
    /((?:\d[\d_]*\s*)?'\s*[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+|'[01xXzZ](?![\w])|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)/
      .source,
    /`([A-Za-z_]\w*)/.source,
    /(\$[A-Za-z_]\w*)/.source,
    /([A-Za-z_][\w$]*(?:\s*::\s*[A-Za-z_][\w$]*)*)/.source,
    `(${OPS.map((o) => o.replace(/[|\\{}()[\]^$+*?.]/g, '\\$&')).join('|')})`,
  ].join('|'),
  'y',
);

class EvalError extends Error {}
/**
 * Unknown names are the common case (a signal where a constant could be), so failing must be cheap:
 * one preallocated error, thrown without capturing a stack each time.
 */
const FAIL = new EvalError('not a constant expression');

function tokenize(text: string, scope: ConstScope, depth = 0): Tok[] {
  const toks: Tok[] = [];
  let at = 0;
  while (at < text.length) {
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(text);
    if (!m) throw FAIL;
    at = TOKEN.lastIndex;
    const [, num, macro, sys, id, op] = m;
    if (num !== undefined) toks.push({ k: 'num', lit: num });
    else if (macro !== undefined) {
      // a macro body is tokenized with the same sticky pattern: `at` keeps this text's place
      const body = depth < 8 ? scope.macro?.(macro) : undefined;
      if (body === undefined) throw FAIL;
      toks.push({ k: 'op', op: '(' }, ...tokenize(body, scope, depth + 1), { k: 'op', op: ')' });
    } else if (sys !== undefined) toks.push({ k: 'sys', name: sys });
    else if (id !== undefined) toks.push({ k: 'id', name: id.includes(' ') ? id.replace(/\s+/g, '') : id });
    else if (op !== undefined) toks.push({ k: 'op', op });
  }
  return toks;
}

const BINARY: Record<string, number> = {
  '||': 1,
  '&&': 2,
  '|': 3,
  '^': 4,
  '~^': 4,
  '^~': 4,
  '&': 5,
  '==': 6,
  '!=': 6,
  '===': 6,
  '!==': 6,
  '<': 7,
  '<=': 7,
  '>': 7,
  '>=': 7,
  '<<': 8,
  '>>': 8,
  '<<<': 8,
  '>>>': 8,
  '+': 9,
  '-': 9,
  '*': 10,
  '/': 10,
  '%': 10,
  '**': 11,
};

const bool = (b: boolean): ConstValue => ({ value: b ? 1n : 0n, width: 1 });
const maxWidth = (a: ConstValue, b: ConstValue) =>
  a.width !== undefined && b.width !== undefined ? Math.max(a.width, b.width) : undefined;

class ExprParser {
  private pos = 0;
  constructor(
    private readonly toks: Tok[],
    private readonly scope: ConstScope,
  ) {}

  parseAll(): ConstValue {
    const v = this.ternary();
    if (this.pos !== this.toks.length) throw FAIL;
    return v;
  }

  private peekOp(): string | undefined {
    const t = this.toks[this.pos];
    return t && t.k === 'op' ? t.op : undefined;
  }

  private expect(op: string): void {
    if (this.peekOp() !== op) throw FAIL;
    this.pos++;
  }

  private ternary(): ConstValue {
    const cond = this.binary(1);
    if (this.peekOp() !== '?') return cond;
    this.pos++;
    const a = this.ternary();
    this.expect(':');
    const b = this.ternary();
    return cond.value !== 0n ? a : b;
  }

  private binary(minPrec: number): ConstValue {
    let left = this.unary();
    for (;;) {
      const op = this.peekOp();
      const prec = op !== undefined ? BINARY[op] : undefined;
      if (op === undefined || prec === undefined || prec < minPrec) return left;
      this.pos++;
      // ** is right-associative; the rest are left-associative.
      const right = this.binary(op === '**' ? prec : prec + 1);
      left = applyBinary(op, left, right);
    }
  }

  private unary(): ConstValue {
    const op = this.peekOp();
    if (op === '+' || op === '-' || op === '!' || op === '~' || op === '&' || op === '|' || op === '^') {
      this.pos++;
      const v = this.unary();
      switch (op) {
        case '+':
          return v;
        case '-':
          return { value: -v.value, width: v.width };
        case '!':
          return bool(v.value === 0n);
        case '~':
          if (v.width === undefined) return { value: -v.value - 1n };
          return { value: ~v.value & mask(v.width), width: v.width };
        case '&':
          if (v.width === undefined) throw FAIL;
          return bool((v.value & mask(v.width)) === mask(v.width));
        case '|':
          return bool(v.value !== 0n);
        default: {
          let ones = 0;
          for (let x = v.value < 0n ? -v.value : v.value; x > 0n; x >>= 1n) ones += Number(x & 1n);
          return bool(ones % 2 === 1);
        }
      }
    }
    return this.postfix(this.primary());
  }

  /** `x[3:0]`-style selects and `'(…)` casts after a primary. */
  private postfix(v: ConstValue): ConstValue {
    for (;;) {
      const op = this.peekOp();
      if (op === '[') {
        this.pos++;
        const hi = this.ternary();
        let lo = hi;
        if (this.peekOp() === ':') {
          this.pos++;
          lo = this.ternary();
        }
        this.expect(']');
        const w = Number(hi.value - lo.value) + 1;
        if (w < 1) throw FAIL;
        v = { value: (v.value >> lo.value) & mask(w), width: w };
        continue;
      }
      return v;
    }
  }

  private primary(): ConstValue {
    const t = this.toks[this.pos++];
    if (!t) throw FAIL;
    if (t.k === 'num') {
      const n = parseNumber(t.lit);
      if (!n || n.unknownMask !== 0n || n.fill === 'x' || n.fill === 'z') throw FAIL;
      if (this.peekOp() === "'(") {
        // size cast: `4'(x)`
        this.pos++;
        const v = this.ternary();
        this.expect(')');
        const w = Number(n.value);
        return { value: v.value & mask(w), width: w };
      }
      if (n.fill === '1') return { value: -1n };
      return { value: n.value, width: n.fill === '0' ? undefined : n.width };
    }
    if (t.k === 'sys') return this.systemCall(t.name);
    if (t.k === 'id') {
      if (this.peekOp() === "'(") {
        this.pos++;
        const v = this.ternary();
        this.expect(')');
        // A signedness cast keeps the value (the width is the operand's).
        if (t.name === 'unsigned' || t.name === 'signed') return v;
        const w = this.scope.typeWidth?.(t.name) ?? this.scope.value(t.name)?.value;
        if (w === undefined) throw FAIL;
        return { value: v.value & mask(Number(w)), width: Number(w) };
      }
      if (this.peekOp() === '(' && this.scope.call) {
        this.pos++;
        const args: ConstValue[] = [];
        if (this.peekOp() === ')') this.pos++;
        else
          for (;;) {
            args.push(this.ternary());
            if (this.peekOp() === ',') {
              this.pos++;
              continue;
            }
            this.expect(')');
            break;
          }
        const r = this.scope.call(t.name, args);
        if (!r) throw FAIL;
        return r;
      }
      const v = this.scope.value(t.name);
      if (!v) throw FAIL;
      return v;
    }
    switch (t.op) {
      case '(': {
        const v = this.ternary();
        this.expect(')');
        return v;
      }
      case '{':
        return this.concatenation();
      default:
        throw FAIL;
    }
  }

  private concatenation(): ConstValue {
    const first = this.ternary();
    if (this.peekOp() === '{') {
      // replication {N{...}}
      this.pos++;
      const inner = this.concatTail(this.ternary());
      this.expect('}');
      this.expect('}');
      if (inner.width === undefined) throw FAIL;
      let value = 0n;
      for (let i = 0n; i < first.value; i++) value = (value << BigInt(inner.width)) | inner.value;
      return { value, width: inner.width * Number(first.value) };
    }
    const v = this.concatTail(first);
    this.expect('}');
    return v;
  }

  private concatTail(first: ConstValue): ConstValue {
    let acc = first;
    while (this.peekOp() === ',') {
      this.pos++;
      const next = this.ternary();
      if (acc.width === undefined || next.width === undefined) throw FAIL;
      acc = {
        value: (acc.value << BigInt(next.width)) | (next.value & mask(next.width)),
        width: acc.width + next.width,
      };
    }
    if (acc.width === undefined) throw FAIL;
    return acc;
  }

  private systemCall(name: string): ConstValue {
    this.expect('(');
    if (name === '$bits') {
      const t = this.toks[this.pos];
      if (
        t?.k === 'id' &&
        this.toks[this.pos + 1]?.k === 'op' &&
        (this.toks[this.pos + 1] as { op: string }).op === ')'
      ) {
        const w = this.scope.typeWidth?.(t.name);
        if (w !== undefined) {
          this.pos += 2;
          return { value: BigInt(w), width: 32 };
        }
      }
      const v = this.ternary();
      this.expect(')');
      if (v.width === undefined) throw FAIL;
      return { value: BigInt(v.width), width: 32 };
    }
    const args: ConstValue[] = [this.ternary()];
    while (this.peekOp() === ',') {
      this.pos++;
      args.push(this.ternary());
    }
    this.expect(')');
    const a = args[0];
    switch (name) {
      case '$clog2':
        return { value: clog2(a.value), width: 32 };
      case '$signed':
      case '$unsigned':
        return a;
      case '$pow':
        return { value: a.value ** (args[1]?.value ?? 1n) };
      default:
        throw FAIL;
    }
  }
}

function applyBinary(op: string, a: ConstValue, b: ConstValue): ConstValue {
  const w = maxWidth(a, b);
  switch (op) {
    case '+':
      return { value: a.value + b.value, width: w };
    case '-':
      return { value: a.value - b.value, width: w };
    case '*':
      return { value: a.value * b.value, width: w };
    case '/':
    case '%':
      if (b.value === 0n) throw FAIL;
      return { value: op === '/' ? a.value / b.value : a.value % b.value, width: w };
    case '**':
      if (b.value < 0n) throw FAIL;
      return { value: a.value ** b.value, width: a.width };
    case '<<':
    case '<<<':
      return { value: a.value << b.value, width: a.width };
    case '>>':
    case '>>>':
      return { value: a.value >> b.value, width: a.width };
    case '<':
      return bool(a.value < b.value);
    case '<=':
      return bool(a.value <= b.value);
    case '>':
      return bool(a.value > b.value);
    case '>=':
      return bool(a.value >= b.value);
    case '==':
    case '===':
      return bool(a.value === b.value);
    case '!=':
    case '!==':
      return bool(a.value !== b.value);
    case '&&':
      return bool(a.value !== 0n && b.value !== 0n);
    case '||':
      return bool(a.value !== 0n || b.value !== 0n);
    case '&':
      return { value: a.value & b.value, width: w };
    case '|':
      return { value: a.value | b.value, width: w };
    case '^':
      return { value: a.value ^ b.value, width: w };
    default: {
      // ~^ ^~ (xnor)
      const x = a.value ^ b.value;
      return w === undefined ? { value: -x - 1n } : { value: ~x & mask(w), width: w };
    }
  }
}

/** The value of a constant expression, or undefined when it uses something unknown or unsupported. */
export function evaluate(text: string, scope: ConstScope): ConstValue | undefined {
  try {
    const toks = tokenize(text, scope);
    if (toks.length === 0) return undefined;
    return new ExprParser(toks, scope).parseAll();
  } catch (err) {
    if (err instanceof EvalError) return undefined;
    throw err;
  }
}

/** A safe JS number for a constant, when it fits. */
export function toNumber(v: ConstValue | undefined): number | undefined {
  if (!v) return undefined;
  return v.value <= BigInt(Number.MAX_SAFE_INTEGER) && v.value >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(v.value)
    : undefined;
}

/** Width of a constant value when used as a literal: its declared width or the bits it needs. */
export function widthOf(v: ConstValue): number {
  return v.width ?? bitLength(v.value);
}
