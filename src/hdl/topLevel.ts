/** Reading expression text at its top level: outside brackets, and outside based literals (`4'b1?0?`). */

/** The index after a based literal (`4'b1?0?`, `'hff`) that starts at `i`, or `i + 1` when none does. */
export function skipBasedLiteral(text: string, i: number): number {
  const m = /^'\s*[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+/.exec(text.slice(i, i + 80));
  return m ? i + m[0].length : i + 1;
}

/**
 * The indices of `text` at its top level, in order: outside brackets (`()`, `[]`, `{}`) and based literals. Bracket
 * characters themselves are not yielded; a `?` inside `4'b1?0?` is a digit and is not yielded either.
 */
export function* topLevelIndices(text: string): Generator<number> {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'") {
      const end = skipBasedLiteral(text, i);
      if (end > i + 1) {
        i = end - 1;
        continue;
      }
    }
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (depth === 0) yield i;
  }
}

/** Splits at each top-level occurrence of `separator` (`,`, `&&`); each part trimmed. */
export function splitTopLevelAt(text: string, separator: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const i of topLevelIndices(text)) {
    if (i < start || !text.startsWith(separator, i)) continue;
    out.push(text.slice(start, i).trim());
    start = i + separator.length;
  }
  out.push(text.slice(start).trim());
  return out;
}

/** Splits at top-level commas; each part trimmed. */
export const splitTopLevel = (text: string): string[] => splitTopLevelAt(text, ',');

/**
 * Splits `c ? a : b` at its top-level `?` and the `:` that closes it (a `?` inside a based literal is a digit, not
 * a conditional); undefined when it is not a conditional.
 */
export function splitConditional(text: string): [string, string] | undefined {
  let question = -1;
  let pending = 0;
  for (const i of topLevelIndices(text)) {
    const ch = text[i];
    if (ch === '?') {
      if (question < 0) question = i;
      pending++;
    } else if (ch === ':' && text[i + 1] !== ':' && text[i - 1] !== ':' && question >= 0) {
      if (--pending === 0) return [text.slice(question + 1, i), text.slice(i + 1)];
    }
  }
  return undefined;
}

/**
 * The index of the top-level `:` of a range or a label (`7:0`, `3'd2: x = 1`), or -1: the `:` of a conditional,
 * `::` scopes and indexed part selects (`+:`, `-:`, `:/`) are not it.
 */
export function topLevelColon(text: string): number {
  let ternary = 0;
  for (const i of topLevelIndices(text)) {
    const ch = text[i];
    if (ch === '?') ternary++;
    else if (ch === ':') {
      if (text[i + 1] === ':' || text[i - 1] === ':') continue;
      if (text[i + 1] === '/' || text[i - 1] === '+' || text[i - 1] === '-') continue;
      if (ternary > 0) {
        ternary--;
        continue;
      }
      return i;
    }
  }
  return -1;
}
