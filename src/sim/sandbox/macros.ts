/**
 * Macros that can open a file the include check never saw: a body whose `include takes a name that is not a
 * literal (`` `define INC(f) `include f ``), directly or through the macros it calls. The design may define one
 * legitimately; a testbench that calls it could make the preprocessor read any file, so the call is refused
 * before anything is preprocessed.
 */
import type { Token } from './scan';

/** `define NAME body, with the body's backslash-newline continuations. */
const defineRe = /`define[ \t]+([A-Za-z_][A-Za-z0-9_$]*)((?:[^\n\\]|\\\r?\n|\\.)*)/g;
/** An `include whose operand is neither "file" nor <file>. */
const computedInclude = /`include\b(?![ \t]*["<])/;
const macroRef = /`([A-Za-z_][A-Za-z0-9_$]*)/g;

/** Names of the macros defined in `texts` whose expansion can reach a computed `include. */
export function includeCapableMacros(texts: Iterable<string>): Set<string> {
  const bodies = new Map<string, string[]>();
  for (const text of texts) {
    for (const m of text.matchAll(defineRe)) {
      const name = m[1] ?? '';
      const list = bodies.get(name) ?? [];
      list.push(m[2] ?? '');
      bodies.set(name, list);
    }
  }
  const capable = new Set<string>();
  // A fixed point over "calls a capable macro": each pass adds at least one name or ends.
  for (let changed = true; changed;) {
    changed = false;
    for (const [name, list] of bodies) {
      if (capable.has(name)) continue;
      const reaches = list.some(
        (body) => computedInclude.test(body) || [...body.matchAll(macroRef)].some((r) => capable.has(r[1] ?? '')),
      );
      if (reaches) {
        capable.add(name);
        changed = true;
      }
    }
  }
  return capable;
}

/** The testbench's calls (directive tokens of its original text) of a capable macro. */
export function callsOf(tokens: Token[], capable: Set<string>): Token[] {
  return capable.size ? tokens.filter((t) => t.kind === 'directive' && capable.has(t.text)) : [];
}
