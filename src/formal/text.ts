/** Small scanners over Verilog text: positions, comments, balanced brackets. Offsets are UTF-16 indices. */

/** Line start offsets of a text (index 0 is line 1). */
export function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) out.push(i + 1);
  return out;
}

/** 1-based line and column (tree-sitter's byte column, equal to the character column on ASCII lines) → offset. */
export function offsetOf(starts: number[], line: number, column: number): number {
  return (starts[line - 1] ?? starts[starts.length - 1]) + Math.max(0, column - 1);
}

/** Skips spaces and comments; returns the first offset after them. */
export function skipSpace(text: string, i: number): number {
  for (;;) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (text.startsWith('//', i)) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl + 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (text.startsWith('(*', i) && !text.startsWith('(*)', i)) {
      // an attribute instance `(* full_case *)`
      const end = text.indexOf('*)', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else return i;
  }
}

/** The word (identifier or keyword) at an offset, or ''. */
export function wordAt(text: string, i: number): string {
  return /^[A-Za-z_][\w$]*/.exec(text.slice(i, i + 64))?.[0] ?? '';
}

/** From an opening bracket, the offset just past its matching closer (strings and comments skipped); -1 if none. */
export function skipBalanced(text: string, i: number): number {
  const open = text[i];
  const close = open === '(' ? ')' : open === '[' ? ']' : open === '{' ? '}' : '';
  if (!close) return -1;
  let depth = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    } else if (text.startsWith('//', i) || text.startsWith('/*', i)) {
      i = skipSpace(text, i);
      continue;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** The first `:` at bracket depth 0 from an offset (a case item's label end), skipping `::`; -1 if none before `limit`. */
export function labelColon(text: string, i: number, limit: number): number {
  while (i < limit) {
    const c = text[i];
    if (c === '(' || c === '[' || c === '{') {
      const j = skipBalanced(text, i);
      if (j < 0) return -1;
      i = j;
      continue;
    }
    if (text.startsWith('//', i) || text.startsWith('/*', i)) {
      i = skipSpace(text, i);
      continue;
    }
    if (c === ':') {
      if (text[i + 1] === ':') {
        i += 2;
        continue;
      }
      return i;
    }
    i++;
  }
  return -1;
}

const stripParens = (t: string) => {
  let x = t.replace(/\s+/g, '');
  while (x.startsWith('(') && x.endsWith(')') && skipBalanced(x, 0) === x.length) x = x.slice(1, -1);
  return x;
};

/** Whether a condition is true exactly when a 1-bit signal is low (`!s`, `~s`, `s == 1'b0`), high, or neither. */
export function levelTested(cond: string, signal: string): 'low' | 'high' | undefined {
  const c = stripParens(cond);
  const e = signal.replace(/[$.]/g, (m) => `\\${m}`);
  if (new RegExp(`^(?:[!~]\\(?${e}\\)?|${e}===?(?:1'[bBhHdD])?0)$`).test(c)) return 'low';
  if (new RegExp(`^(?:${e}|${e}===?(?:1'[bBhHdD])?1|!${e}===?(?:1'[bBhHdD])?0)$`).test(c)) return 'high';
  return undefined;
}
