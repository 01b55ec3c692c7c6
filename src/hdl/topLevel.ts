/** Reading expression text at its top level: outside brackets, and outside based literals (`4'b1?0?`). */

/** The index after a based literal (`4'b1?0?`, `'hff`) that starts at `i`, or `i + 1` when none does. */
export function skipBasedLiteral(text: string, i: number): number {
  const m = /^'\s*[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+/.exec(text.slice(i, i + 80));
  return m ? i + m[0].length : i + 1;
}

/** Splits at top-level commas; each part trimmed. */
export function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out;
}

/**
 * Splits `c ? a : b` at its top-level `?` and the `:` that closes it (a `?` inside a based literal is a digit, not
 * a conditional); undefined when it is not a conditional.
 */
export function splitConditional(text: string): [string, string] | undefined {
  let depth = 0;
  let question = -1;
  let pending = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'") {
      i = skipBasedLiteral(text, i) - 1;
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (depth === 0 && ch === '?') {
      if (question < 0) question = i;
      pending++;
    } else if (depth === 0 && ch === ':' && text[i + 1] !== ':' && text[i - 1] !== ':' && question >= 0) {
      if (--pending === 0) return [text.slice(question + 1, i), text.slice(i + 1)];
    }
  }
  return undefined;
}
