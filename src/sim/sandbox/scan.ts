/**
 * A small SystemVerilog lexer for the sandbox check. It knows just enough to find what the rules look at
 * (system task names, keywords, strings, comments, compiler directives) and never throws: random bytes
 * come out as punctuation. It follows `line directives so every token carries its original file:line.
 * Linear in the text; character classes are table lookups because it may see megabytes of expanded macros.
 */

export type TokenKind =
  'system' | 'ident' | 'escaped' | 'string' | 'number' | 'comment' | 'directive' | 'line' | 'punct';

export interface Token {
  kind: TokenKind;
  /** The token's text; for strings and comments, without the delimiters; for system tasks, with the `$`. */
  text: string;
  file: string;
  /** 1-based, in `file` (after `line mapping). */
  line: number;
  /** 1-based column in the scanned text's line. */
  column: number;
  /** Index of the token's first character in the scanned text. */
  offset: number;
  /** For `line directives: the file, line and level they name. */
  lineTarget?: { file: string; line: number; level: number };
}

const IDENT_START = 1;
const IDENT_PART = 2;
const DIGIT = 4;
const SPACE = 8;
const charClass = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z_]/.test(ch)) charClass[c] |= IDENT_START | IDENT_PART;
  if (/[0-9$]/.test(ch)) charClass[c] |= IDENT_PART;
  if (/[0-9]/.test(ch)) charClass[c] |= DIGIT;
  if (/[ \t\r\f\v]/.test(ch)) charClass[c] |= SPACE;
}
const is = (code: number, cls: number): boolean => code < 128 && (charClass[code] & cls) !== 0;

// `line 12 "file.sv" 1  (level 0 = plain, 1 = entering an include, 2 = returning from one)
const lineDirective = /^`line[ \t]+(\d+)[ \t]+"((?:[^"\\\n]|\\.)*)"(?:[ \t]+(\d+))?[^\n]*/;

const NL = 10;
const QUOTE = 34;
const DOLLAR = 36;
const TICK = 39;
const STAR = 42;
const SLASH = 47;
const BACKSLASH = 92;
const BACKTICK = 96;

export function scan(text: string, fallbackFile: string): Token[] {
  const tokens: Token[] = [];
  const n = text.length;
  let file = fallbackFile;
  let line = 1;
  let lineStart = 0;
  let i = 0;

  const push = (kind: TokenKind, value: string, start: number, startLine: number, startCol: number): Token => {
    const tok: Token = { kind, text: value, file, line: startLine, column: startCol, offset: start };
    tokens.push(tok);
    return tok;
  };
  // Moves to `to`, counting the newlines passed.
  const advance = (to: number): void => {
    for (let k = text.indexOf('\n', i); k >= 0 && k < to; k = text.indexOf('\n', k + 1)) {
      line++;
      lineStart = k + 1;
    }
    i = to;
  };
  const identEnd = (from: number): number => {
    let k = from;
    while (k < n && is(text.charCodeAt(k), IDENT_PART)) k++;
    return k;
  };

  while (i < n) {
    const start = i;
    const c = text.charCodeAt(i);
    const col = i - lineStart + 1;
    const startLine = line;
    if (c === NL) {
      advance(i + 1);
    } else if (is(c, SPACE)) {
      i++;
    } else if (c === SLASH && text.charCodeAt(i + 1) === SLASH) {
      let end = text.indexOf('\n', i);
      if (end < 0) end = n;
      push('comment', text.slice(i + 2, end), start, startLine, col);
      i = end;
    } else if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      const close = text.indexOf('*/', i + 2);
      push('comment', text.slice(i + 2, close < 0 ? n : close), start, startLine, col);
      advance(close < 0 ? n : close + 2);
    } else if (c === QUOTE) {
      let k = i + 1;
      for (;;) {
        const q = text.charCodeAt(k);
        if (k >= n || q === QUOTE || q === NL) break;
        k += q === BACKSLASH && k + 1 < n ? 2 : 1;
      }
      k = Math.min(k, n);
      push('string', text.slice(i + 1, k), start, startLine, col);
      advance(text.charCodeAt(k) === QUOTE ? k + 1 : k);
    } else if (c === BACKTICK) {
      const m = text.startsWith('`line', i) ? lineDirective.exec(text.slice(i, i + 4096)) : null;
      if (m) {
        const target = { file: (m[2] ?? '').replace(/\\(.)/g, '$1'), line: Number(m[1]), level: Number(m[3] ?? 0) };
        push('line', m[0], start, startLine, col).lineTarget = target;
        const end = i + m[0].length;
        advance(text.charCodeAt(end) === NL ? end + 1 : end);
        // The directive names the line that follows it.
        if (Number.isSafeInteger(target.line)) line = target.line;
        file = target.file || file;
      } else {
        const k = identEnd(i + 1);
        push('directive', text.slice(i + 1, k), start, startLine, col);
        i = k;
      }
    } else if (c === DOLLAR) {
      const k = identEnd(i + 1);
      push(k > i + 1 ? 'system' : 'punct', text.slice(i, k > i + 1 ? k : i + 1), start, startLine, col);
      i = Math.max(k, i + 1);
    } else if (c === BACKSLASH) {
      let k = i + 1;
      while (k < n && !/\s/.test(text[k] ?? ' ')) k++;
      push('escaped', text.slice(i + 1, k), start, startLine, col);
      i = k;
    } else if (is(c, IDENT_START)) {
      const k = identEnd(i + 1);
      push('ident', text.slice(i, k), start, startLine, col);
      i = k;
    } else if (is(c, DIGIT)) {
      const k = skipNumber(text, i);
      push('number', text.slice(i, k), start, startLine, col);
      i = k;
    } else if (c === TICK && skipBased(text, i) > i + 1) {
      const k = skipBased(text, i);
      push('number', text.slice(i, k), start, startLine, col);
      i = k;
    } else {
      // One UTF-16 unit: a lone surrogate or any other byte is punctuation, never an error.
      push('punct', text[i] ?? '', start, startLine, col);
      i++;
    }
  }
  return tokens;
}

// Numbers are read whole (so `8'hdead` yields no identifier) but never swallow letters that could start
// a keyword: only exponents, time units and the digits of a based literal.
function skipNumber(text: string, start: number): number {
  let k = start;
  while (k < text.length && /[0-9_.]/.test(text[k] ?? '')) k++;
  if (text.charCodeAt(k) === TICK) return Math.max(k + 1, skipBased(text, k));
  const rest = text.slice(k, k + 8);
  const exp = /^[eE][+-]?[0-9]+/.exec(rest);
  if (exp) return k + exp[0].length;
  const unit = /^(?:s|ms|us|ns|ps|fs|step)(?![A-Za-z0-9_$])/.exec(rest);
  return unit ? k + unit[0].length : k;
}

const baseDigits: Record<string, RegExp> = {
  b: /[01_xXzZ?]/,
  o: /[0-7_xXzZ?]/,
  d: /[0-9_xXzZ?]/,
  h: /[0-9A-Fa-f_xXzZ?]/,
};

// `'[s]<base> digits` from the quote, with Verilator's digit set per base; returns `start` + 1 when it is not
// a based literal (a cast or an assignment pattern).
function skipBased(text: string, start: number): number {
  let k = start + 1;
  if (/[sS]/.test(text[k] ?? '')) k++;
  const digits = baseDigits[(text[k] ?? '').toLowerCase()];
  if (!digits) return start + 1;
  k++;
  while (k < text.length && /[ \t]/.test(text[k] ?? '')) k++;
  while (k < text.length && digits.test(text[k] ?? '')) k++;
  return k;
}
