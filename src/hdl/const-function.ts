/**
 * Constant functions (IEEE 1800 13.4.3): a function called in a width or a parameter (`[p::w(4)-1:0]`) is run on
 * its text with the call's constant arguments. Only the statements such functions are made of are read: local
 * declarations, assignments (`=`, `+=`, `++`, …), `if`/`else`, `for`, `while`, `repeat`, `begin`/`end`, `return`.
 * Anything else (a bit-select write, a case, a system task, a call of a function that is not constant) gives no
 * value rather than a guessed one, and the build then decides the width.
 */
import { evaluate, type ConstScope, type ConstValue } from './const-eval';
import { splitTopLevel } from './topLevel';

class Unsupported extends Error {}
const FAIL = new Unsupported();

/** Statements run per call at most: a loop this long is no width computation. */
const MAX_STEPS = 100_000;

type Stmt =
  | { k: 'block'; body: Stmt[] }
  | { k: 'decl'; vars: { name: string; init?: string | undefined }[]; width: Width }
  | { k: 'assign'; name: string; op: string; expr: string }
  | { k: 'if'; cond: string; then: Stmt; else?: Stmt | undefined }
  | { k: 'for'; init: Stmt[]; cond: string; step: Stmt[]; body: Stmt }
  | { k: 'while'; cond: string; body: Stmt }
  | { k: 'repeat'; count: string; body: Stmt }
  | { k: 'return'; expr?: string | undefined }
  | { k: 'empty' };

/** A variable's declared width and signedness: values assigned to it wrap as the simulator's would. */
type Width = { bits: number | undefined; signed: boolean } | { range: string; signed: boolean };

const ATOMS: Record<string, { bits: number; signed: boolean }> = {
  int: { bits: 32, signed: true },
  integer: { bits: 32, signed: true },
  shortint: { bits: 16, signed: true },
  longint: { bits: 64, signed: true },
  byte: { bits: 8, signed: true },
};
const VECTORS = new Set(['logic', 'bit', 'reg']);
const IDENT = /^[A-Za-z_][\w$]*/;

/** Reads statement text: one cursor over the flattened body. */
class Reader {
  private at = 0;
  constructor(private readonly text: string) {}

  private ws(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at])) this.at++;
  }

  done(): boolean {
    this.ws();
    return this.at >= this.text.length;
  }

  /** The next word when it is an identifier or keyword, without taking it. */
  peekWord(): string | undefined {
    this.ws();
    return IDENT.exec(this.text.slice(this.at))?.[0];
  }

  word(): string {
    const w = this.peekWord();
    if (!w) throw FAIL;
    this.at += w.length;
    return w;
  }

  peek(s: string): boolean {
    this.ws();
    return this.text.startsWith(s, this.at);
  }

  take(s: string): void {
    if (!this.peek(s)) throw FAIL;
    this.at += s.length;
  }

  /** Text up to (not including) the first `stop` character outside brackets; the stop is taken. */
  until(stops: string): string {
    return this.untilStop(stops).text;
  }

  /** As `until`, with the stop character it found. */
  untilStop(stops: string): { text: string; stop: string } {
    this.ws();
    let depth = 0;
    const start = this.at;
    for (; this.at < this.text.length; this.at++) {
      const ch = this.text[this.at];
      if (ch === '"') throw FAIL;
      if (depth === 0 && stops.includes(ch)) {
        const out = this.text.slice(start, this.at).trim();
        this.at++;
        return { text: out, stop: ch };
      }
      if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if (ch === ')' || ch === ']' || ch === '}') {
        if (--depth < 0) throw FAIL;
      }
    }
    throw FAIL;
  }

  /** `( … )` and the text inside. */
  parens(): string {
    this.take('(');
    return this.until(')');
  }

  /** A `[hi:lo]` range right here, when there is one. */
  range(): string | undefined {
    if (!this.peek('[')) return undefined;
    this.take('[');
    return `[${this.until(']')}]`;
  }
}

function typeAt(r: Reader): Width | undefined {
  const w = r.peekWord();
  if (w === undefined) return undefined;
  if (ATOMS[w]) {
    r.word();
    let signed = ATOMS[w].signed;
    if (r.peekWord() === 'unsigned') {
      r.word();
      signed = false;
    } else if (r.peekWord() === 'signed') r.word();
    return { bits: ATOMS[w].bits, signed };
  }
  if (!VECTORS.has(w) && w !== 'signed' && w !== 'unsigned') return undefined;
  if (VECTORS.has(w)) r.word();
  let signed = false;
  if (r.peekWord() === 'signed') {
    r.word();
    signed = true;
  } else if (r.peekWord() === 'unsigned') r.word();
  const range = r.range();
  if (r.peek('[')) throw FAIL; // a packed array of vectors: not a width computation
  return range ? { range, signed } : { bits: 1, signed };
}

function declaration(r: Reader, width: Width): Stmt {
  const vars: { name: string; init?: string }[] = [];
  for (;;) {
    const name = r.word();
    if (r.peek('[')) throw FAIL; // an unpacked array variable
    if (r.peek('=') && !r.peek('==')) {
      r.take('=');
      const init = r.untilStop(',;');
      vars.push({ name, init: init.text });
      if (init.stop === ';') break;
      continue;
    }
    vars.push({ name });
    if (r.peek(',')) {
      r.take(',');
      continue;
    }
    r.take(';');
    break;
  }
  return { k: 'decl', vars, width };
}

const ASSIGN_OPS = ['<<<=', '>>>=', '<<=', '>>=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '='];

function simple(r: Reader, stop: string): Stmt {
  if (r.peek('++') || r.peek('--')) {
    const op = r.peek('++') ? '+=' : '-=';
    r.take(op === '+=' ? '++' : '--');
    const name = r.word();
    r.take(stop);
    return { k: 'assign', name, op, expr: '1' };
  }
  const name = r.word();
  if (r.peek('++') || r.peek('--')) {
    const op = r.peek('++') ? '+=' : '-=';
    r.take(op === '+=' ? '++' : '--');
    r.take(stop);
    return { k: 'assign', name, op, expr: '1' };
  }
  const op = ASSIGN_OPS.find((o) => r.peek(o) && !(o === '=' && r.peek('==')));
  if (!op) throw FAIL; // a bit-select write, a task call, …
  r.take(op);
  return { k: 'assign', name, op, expr: r.until(stop) };
}

function statement(r: Reader): Stmt {
  if (r.peek(';')) {
    r.take(';');
    return { k: 'empty' };
  }
  const w = r.peekWord();
  switch (w) {
    case 'begin': {
      r.word();
      if (r.peek(':')) {
        r.take(':');
        r.word();
      }
      const body: Stmt[] = [];
      while (r.peekWord() !== 'end') {
        if (r.done()) throw FAIL;
        body.push(statement(r));
      }
      r.word();
      if (r.peek(':') && !r.peek('::')) {
        r.take(':');
        r.word();
      }
      return { k: 'block', body };
    }
    case 'if': {
      r.word();
      const cond = r.parens();
      const then = statement(r);
      if (r.peekWord() === 'else') {
        r.word();
        return { k: 'if', cond, then, else: statement(r) };
      }
      return { k: 'if', cond, then };
    }
    case 'for': {
      r.word();
      r.take('(');
      const init: Stmt[] = [];
      const type = typeAt(r);
      if (type) init.push(declaration(r, type));
      else if (!r.peek(';')) init.push(simple(r, ';'));
      else r.take(';');
      const cond = r.until(';');
      const step: Stmt[] = [];
      if (!r.peek(')')) step.push(simple(r, ')'));
      else r.take(')');
      return { k: 'for', init, cond, step, body: statement(r) };
    }
    case 'while': {
      r.word();
      const cond = r.parens();
      return { k: 'while', cond, body: statement(r) };
    }
    case 'repeat': {
      r.word();
      const count = r.parens();
      return { k: 'repeat', count, body: statement(r) };
    }
    case 'return': {
      r.word();
      if (r.peek(';')) {
        r.take(';');
        return { k: 'return' };
      }
      return { k: 'return', expr: r.until(';') };
    }
    case 'automatic':
    case 'static':
    case 'var':
      r.word();
      return statement(r);
    default: {
      const type = typeAt(r);
      if (type) return declaration(r, type);
      return simple(r, ';');
    }
  }
}

interface ParsedFunction {
  name: string;
  args: { name: string; width: Width }[];
  result: Width;
  body: Stmt[];
}

/** Splits `function automatic int w(int n); … endfunction` into its name, arguments, result type and body. */
function parseFunction(text: string): ParsedFunction {
  const t = text.trim().replace(/\bendfunction\b(\s*:\s*[\w$]+)?\s*$/, '');
  const r = new Reader(t);
  if (r.word() !== 'function') throw FAIL;
  if (r.peekWord() === 'automatic' || r.peekWord() === 'static') r.word();
  const result = typeAt(r) ?? { bits: 1, signed: false };
  const name = r.word();
  const args: { name: string; width: Width }[] = [];
  if (r.peek('(')) {
    const list = r.parens();
    for (const part of list ? splitTopLevel(list).filter(Boolean) : []) {
      const a = new Reader(part.replace(/^\s*(input|const\s+ref|ref)\b/, ''));
      const width = typeAt(a) ?? { bits: 1, signed: false };
      const argName = a.word();
      if (!a.done()) throw FAIL; // a default value or an unpacked argument
      args.push({ name: argName, width });
    }
  }
  r.take(';');
  const body: Stmt[] = [];
  while (!r.done()) {
    // Old-style argument declarations: `input [7:0] v;` in the body, in order.
    if (r.peekWord() === 'input') {
      r.word();
      const width = typeAt(r) ?? { bits: 1, signed: false };
      const decl = declaration(r, width);
      if (decl.k !== 'decl') throw FAIL;
      for (const v of decl.vars) args.push({ name: v.name, width });
      continue;
    }
    if (r.peekWord() === 'output' || r.peekWord() === 'inout' || r.peekWord() === 'ref') throw FAIL;
    body.push(statement(r));
  }
  return { name, args, result, body };
}

class Return {
  constructor(readonly value: ConstValue | undefined) {}
}

/** Runs a parsed function; values wrap to their variables' declared widths. */
class Machine {
  private steps = 0;
  private readonly vars = new Map<string, ConstValue>();
  private readonly widths = new Map<string, { bits: number; signed: boolean }>();
  private readonly scope: ConstScope;

  constructor(
    private readonly fn: ParsedFunction,
    outer: ConstScope,
  ) {
    // Locals shadow the function's surroundings; a declared local without a value yet has none.
    this.scope = {
      value: (name) => this.vars.get(name) ?? (this.widths.has(name) ? undefined : outer.value(name)),
      typeWidth: (n) => outer.typeWidth?.(n),
      macro: (n) => outer.macro?.(n),
      call: (n, a) => outer.call?.(n, a),
    };
  }

  private eval(text: string): ConstValue {
    const v = evaluate(text, this.scope);
    if (!v) throw FAIL;
    return v;
  }

  private bitsOf(w: Width): { bits: number; signed: boolean } {
    if ('range' in w) {
      const m = /^\[(.*):(.*)\]$/.exec(w.range);
      if (!m) throw FAIL;
      const hi = this.eval(m[1]).value;
      const lo = this.eval(m[2]).value;
      const bits = Number(hi > lo ? hi - lo : lo - hi) + 1;
      if (bits < 1 || bits > 4096) throw FAIL;
      return { bits, signed: w.signed };
    }
    if (w.bits === undefined) throw FAIL;
    return { bits: w.bits, signed: w.signed };
  }

  private set(name: string, v: ConstValue): void {
    const w = this.widths.get(name);
    if (!w) throw FAIL; // a write to something that is no local variable of the function
    const value = w.signed ? BigInt.asIntN(w.bits, v.value) : BigInt.asUintN(w.bits, v.value);
    this.vars.set(name, { value, width: w.bits });
  }

  private declare(name: string, w: Width): void {
    this.widths.set(name, this.bitsOf(w));
    this.vars.delete(name);
  }

  run(args: ConstValue[]): ConstValue | undefined {
    if (args.length !== this.fn.args.length) return undefined;
    this.declare(this.fn.name, this.fn.result);
    this.fn.args.forEach((a, i) => {
      this.declare(a.name, a.width);
      this.set(a.name, args[i]);
    });
    try {
      for (const s of this.fn.body) this.exec(s);
    } catch (e) {
      if (e instanceof Return) return e.value;
      throw e;
    }
    return this.vars.get(this.fn.name);
  }

  private exec(s: Stmt): void {
    if (++this.steps > MAX_STEPS) throw FAIL;
    switch (s.k) {
      case 'empty':
        return;
      case 'block':
        for (const b of s.body) this.exec(b);
        return;
      case 'decl':
        for (const v of s.vars) {
          this.declare(v.name, s.width);
          if (v.init !== undefined) this.set(v.name, this.eval(v.init));
        }
        return;
      case 'assign': {
        if (s.op === '=') {
          this.set(s.name, this.eval(s.expr));
          return;
        }
        if (!this.vars.has(s.name)) throw FAIL; // reads an unset variable
        const binary = s.op.slice(0, -1);
        this.set(s.name, this.eval(`(${s.name}) ${binary} (${s.expr})`));
        return;
      }
      case 'if':
        if (this.eval(s.cond).value !== 0n) this.exec(s.then);
        else if (s.else) this.exec(s.else);
        return;
      case 'for':
        for (const i of s.init) this.exec(i);
        while (this.eval(s.cond).value !== 0n) {
          this.exec(s.body);
          for (const st of s.step) this.exec(st);
          if (++this.steps > MAX_STEPS) throw FAIL;
        }
        return;
      case 'while':
        while (this.eval(s.cond).value !== 0n) {
          this.exec(s.body);
          if (++this.steps > MAX_STEPS) throw FAIL;
        }
        return;
      case 'repeat': {
        const n = this.eval(s.count).value;
        if (n > BigInt(MAX_STEPS)) throw FAIL;
        for (let i = 0n; i < n; i++) this.exec(s.body);
        return;
      }
      case 'return': {
        const v = s.expr !== undefined ? this.eval(s.expr) : undefined;
        if (v) this.set(this.fn.name, v);
        throw new Return(this.vars.get(this.fn.name));
      }
    }
  }
}

const parsed = new Map<string, ParsedFunction | null>();

/** The value a constant function returns for these arguments, or undefined when it cannot be worked out here. */
export function callConstFunction(text: string, args: ConstValue[], outer: ConstScope): ConstValue | undefined {
  let fn = parsed.get(text);
  if (fn === undefined) {
    try {
      fn = parseFunction(text);
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      fn = null;
    }
    if (parsed.size > 512) parsed.clear();
    parsed.set(text, fn);
  }
  if (!fn) return undefined;
  try {
    return new Machine(fn, outer).run(args);
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}
