/**
 * Top parameter overrides (`-G`) in a model's testbench: every instantiation of the DUT gets them, whatever the
 * model wrote in its `#(…)`, so the design measured is the one the user asked for. Other parameters the model
 * set by name are kept.
 */
import { splitTopLevel } from '../../hdl';
import { parameterAssignment } from '../search/harness';

/** The text with comments and strings blanked (same length), so searches skip them and offsets still match. */
function masked(text: string): string {
  return text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:\\.|[^"\\\n])*"/g, (m) => m.replace(/[^\n]/g, ' '));
}

/** Index of the `)` closing the `(` at `open`, or -1. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

/** A parameter list's entries at its top-level commas (an empty last one, after a trailing comma, left out). */
function entries(list: string): string[] {
  const parts = splitTopLevel(list);
  return parts.at(-1) === '' ? parts.slice(0, -1) : parts;
}

const skipSpace = (text: string, i: number) => {
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
};

/** The merged `#(…)` list: the model's named entries not overridden, then the overrides. */
function mergedList(existing: string | undefined, parameters: Record<string, string>): string {
  const kept: string[] = [];
  for (const e of existing !== undefined ? entries(existing) : []) {
    const named = /^\.\s*([A-Za-z_][\w$]*)\s*\(/.exec(e);
    // A positional list cannot be merged by name: the overrides replace it.
    if (!named) return parameterAssignment(parameters);
    if (parameters[named[1]] === undefined) kept.push(e);
  }
  const over = parameterAssignment(parameters).replace(/^#\(|\) $/g, '');
  return `#(${[...kept, over].filter(Boolean).join(', ')}) `;
}

export interface DutParameterPatch {
  testbench: string;
  /** Instantiations of the DUT rewritten. */
  instances: number;
}

/** Every `top [#(…)] name (` in the testbench carries the overrides. Nothing to do without overrides. */
export function withDutParameters(
  testbench: string,
  top: string,
  parameters: Record<string, string> | undefined,
): DutParameterPatch {
  if (!parameters || !Object.keys(parameters).length) return { testbench, instances: 0 };
  const search = masked(testbench);
  const edits: { from: number; to: number; text: string }[] = [];
  const name = new RegExp(`(?<![\\w$.])${top.replace(/[$]/g, '\\$')}(?![\\w$])`, 'g');
  for (const m of search.matchAll(name)) {
    const before = search.slice(Math.max(0, m.index - 20), m.index);
    if (/\b(module|endmodule|macromodule)\s*$/.test(before) || /::\s*$/.test(before)) continue;
    const afterName = m.index + m[0].length;
    let i = skipSpace(search, afterName);
    let list: string | undefined;
    let listEnd = afterName;
    if (search[i] === '#') {
      const open = skipSpace(search, i + 1);
      if (search[open] !== '(') continue;
      const close = closing(search, open);
      if (close < 0) continue;
      list = testbench.slice(open + 1, close);
      listEnd = close + 1;
      i = skipSpace(search, close + 1);
    }
    const inst = /^[A-Za-z_][\w$]*/.exec(search.slice(i));
    if (!inst) continue;
    const paren = skipSpace(search, i + inst[0].length);
    // `top name (` or `top name [N] (`: an instantiation, not a declaration or a hierarchical name.
    if (search[paren] !== '(' && search[paren] !== '[') continue;
    edits.push({
      from: afterName,
      to: list === undefined ? afterName : listEnd,
      text: ` ${mergedList(list, parameters)}`,
    });
  }
  let out = testbench;
  for (const e of edits.reverse()) {
    const rest = out.slice(e.to);
    const space = /^\s*/.exec(rest)?.[0] ?? '';
    // The line breaks of what is replaced stay, so every later line keeps its number (messages map back).
    const breaks = (out.slice(e.from, e.to) + space).split('\n').length - 1;
    out = out.slice(0, e.from) + e.text + '\n'.repeat(breaks) + rest.slice(space.length);
  }
  return { testbench: out, instances: edits.length };
}
