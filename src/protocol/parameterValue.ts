/**
 * What a top parameter override (`-G NAME=VALUE`, `chorus.topParameters`, a bench item's `parameters`) may be: a
 * Verilog constant expression made of literals alone. The value is pasted into CHORUS's own harness
 * (`#(.NAME(VALUE))`), the testbench copies, the design lint and the formal script, so it must stay one expression:
 * numbers (decimal, sized and based, unbased `'0`, reals), quoted strings, and operators, parentheses and
 * concatenations over them. No names (the harness has no parameters of its own for one to mean), no `;`, comments,
 * `$` or backticks. Every adapter checks values with this one function before a harness or testbench is made.
 */
import { ChorusError } from './errors';

/** What to write instead, appended to every refusal. */
const WHAT_TO_WRITE = `Write a constant: a number (8, 32'hFF, 4'b10x1, 1.5), a quoted string ("text"), or such constants with operators and parentheses ((8+1)*2, 2**4, {2{4'hA}})`;

/** Longer than any literal a parameter takes (a 4096-bit hex literal is about 1030 characters). */
const MAX_VALUE_CHARS = 4096;

/** Characters or sequences that end the expression or change how the text around it is read. */
const FORBIDDEN: readonly { test: RegExp; why: string }[] = [
  { test: /[\x00-\x08\x0a-\x1f\x7f]/, why: 'it holds a line break or a control character' },
  { test: /;/, why: '`;` ends a statement' },
  { test: /\/[/*]/, why: 'comments are not allowed' },
  { test: /\$/, why: '`$` (a system function or task) is not allowed' },
  { test: /`/, why: 'a backtick (a macro or compiler directive) is not allowed' },
];

type Token = { k: 'operand' } | { k: 'op'; op: string } | { k: 'name'; text: string } | { k: 'bad'; text: string };

/** Literals, tried in this order at each position (based before decimal: `8'hFF`; real before decimal: `1.5`). */
const LITERAL = new RegExp(
  [
    /"(?:[^"\\]|\\[\\"ntvfa]|\\[0-7]{1,3}|\\x[0-9a-fA-F]{1,2})*"/.source,
    /(?:[1-9][0-9_]*[ \t]*)?'[sS]?(?:[bB][ \t]*[01xXzZ?][01xXzZ?_]*|[oO][ \t]*[0-7xXzZ?][0-7xXzZ?_]*|[dD][ \t]*(?:[0-9][0-9_]*|[xXzZ?]_*)|[hH][ \t]*[0-9a-fA-FxXzZ?][0-9a-fA-FxXzZ?_]*)(?![\w$'])/
      .source,
    /'[01xXzZ](?![\w$'])/.source,
    /[0-9][0-9_]*(?:\.[0-9][0-9_]*)?[eE][+-]?[0-9][0-9_]*(?![\w$'.])/.source,
    /[0-9][0-9_]*\.[0-9][0-9_]*(?![\w$'.])/.source,
    /[0-9][0-9_]*(?![\w$'.])/.source,
  ].join('|'),
  'y',
);
const NAME = /[A-Za-z_\\][\w$]*/y;
const OPERATORS = [
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
];
const UNARY = new Set(['+', '-', '!', '~', '&', '|', '^', '~&', '~|', '~^', '^~']);
const BINARY = new Set([
  '+',
  '-',
  '*',
  '/',
  '%',
  '**',
  '<<',
  '>>',
  '<<<',
  '>>>',
  '<',
  '>',
  '<=',
  '>=',
  '==',
  '!=',
  '===',
  '!==',
  '&&',
  '||',
  '&',
  '|',
  '^',
  '~^',
  '^~',
]);

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let at = 0;
  while (at < text.length) {
    if (text[at] === ' ' || text[at] === '\t') {
      at++;
      continue;
    }
    LITERAL.lastIndex = at;
    if (LITERAL.exec(text)) {
      out.push({ k: 'operand' });
      at = LITERAL.lastIndex;
      continue;
    }
    NAME.lastIndex = at;
    const name = NAME.exec(text);
    if (name) {
      out.push({ k: 'name', text: name[0] });
      return out;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, at));
    if (!op) {
      out.push({ k: 'bad', text: text.slice(at, at + 12) });
      return out;
    }
    out.push({ k: 'op', op });
    at += op.length;
  }
  return out;
}

class Malformed extends Error {}

/** Recursive descent over the tokens: `a ? b : c`, binary and unary operators, `( )`, `{a, b}`, `{N{a}}`. */
class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): void {
    this.expression();
    const rest = this.peek();
    if (rest === ')' || rest === '}') throw new Malformed(`an unmatched \`${rest}\``);
    if (this.at < this.tokens.length) throw new Malformed(this.unexpected());
  }

  private peek(): string | undefined {
    const t = this.tokens[this.at];
    return t?.k === 'op' ? t.op : undefined;
  }

  private take(op: string): boolean {
    if (this.peek() !== op) return false;
    this.at++;
    return true;
  }

  private expect(op: string, what: string): void {
    if (!this.take(op))
      throw new Malformed(
        this.at < this.tokens.length
          ? `${what} expected before ${this.unexpected(true)}`
          : `${what} expected at the end`,
      );
  }

  private unexpected(bare = false): string {
    const t = this.tokens[this.at];
    const shown = t?.k === 'op' ? `\`${t.op}\`` : 'a constant';
    return bare ? shown : `${shown} cannot follow what comes before it`;
  }

  private expression(): void {
    this.binary();
    if (this.take('?')) {
      this.expression();
      this.expect(':', '`:`');
      this.expression();
    }
  }

  private binary(): void {
    this.unary();
    while (this.peek() !== undefined && BINARY.has(this.peek() as string)) {
      this.at++;
      this.unary();
    }
  }

  private unary(): void {
    while (this.peek() !== undefined && UNARY.has(this.peek() as string)) this.at++;
    const t = this.tokens[this.at];
    if (!t) throw new Malformed('a constant expected at the end');
    if (t.k === 'operand') {
      this.at++;
      return;
    }
    if (this.take('(')) {
      this.expression();
      this.expect(')', 'a closing `)`');
      return;
    }
    if (this.take('{')) {
      this.expression();
      // `{N{a, b}}` repeats the inner list N times; `{a, b}` joins.
      if (this.take('{')) {
        this.list();
        this.expect('}', 'a closing `}`');
      } else {
        while (this.take(',')) this.expression();
      }
      this.expect('}', 'a closing `}`');
      return;
    }
    throw new Malformed(`a constant expected before ${this.unexpected(true)}`);
  }

  private list(): void {
    this.expression();
    while (this.take(',')) this.expression();
  }
}

/** Why `value` cannot be a top parameter's value (see the file comment); undefined when it can. */
export function parameterValueProblem(value: string): string | undefined {
  const text = value.trim();
  if (!text) return 'it is empty';
  if (text.length > MAX_VALUE_CHARS) return `it is longer than ${MAX_VALUE_CHARS} characters`;
  // Inside strings too: a value is never the place for these, and one rule is simpler to state than two.
  const forbidden = FORBIDDEN.find((f) => f.test.test(text));
  if (forbidden) return forbidden.why;
  const tokens = tokenize(text);
  const last = tokens[tokens.length - 1];
  if (last?.k === 'name')
    return `\`${last.text}\` is a name, and names (parameters, macros, signals) mean nothing where the value goes`;
  if (last?.k === 'bad') return `\`${last.text}\` is not part of a constant`;
  try {
    new Parser(tokens).parse();
  } catch (err) {
    if (err instanceof Malformed) return err.message;
    throw err;
  }
  return undefined;
}

/** A value as messages quote it: JSON-quoted, long ones cut. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
}

/**
 * The refusal of parameter `name`'s `value` (undefined when it is a constant), named as `where` says it: `-G W`,
 * `chorus.topParameters: W`. Says what to write instead.
 */
export function parameterValueError(where: string, value: string): string | undefined {
  const problem = parameterValueProblem(value);
  return problem && `${where}: ${quoted(value)} is not a constant expression: ${problem}. ${WHAT_TO_WRITE}.`;
}

/** Throws ChorusError('bad_input') for the first value that is not a constant; `where` names each parameter. */
export function checkParameterValues(
  parameters: Record<string, string> | undefined,
  where: (name: string) => string,
): void {
  for (const [name, value] of Object.entries(parameters ?? {})) {
    const message = parameterValueError(where(name), value);
    if (message) throw new ChorusError('bad_input', message);
  }
}
