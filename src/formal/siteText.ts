/** A source text with its line starts, and where the analysis' statement sites sit in it, as offsets. */
import type { BranchSite } from '../protocol';
import { lineStarts, offsetOf, skipBalanced, skipSpace, wordAt } from './text';

export interface SourceText {
  file: string;
  text: string;
  starts: number[];
}

export function sourceText(file: string, text: string): SourceText {
  return { file, text, starts: lineStarts(text) };
}

export const siteStart = (src: SourceText, s: BranchSite) =>
  offsetOf(src.starts, s.range.startLine, s.range.startColumn);
export const siteEnd = (src: SourceText, s: BranchSite) =>
  pastMacroCall(src.text, siteStart(src, s), offsetOf(src.starts, s.range.endLine, s.range.endColumn));

/** Compiler directives: a backtick word that is not a macro call. */
const DIRECTIVES = new Set([
  'ifdef',
  'ifndef',
  'elsif',
  'else',
  'endif',
  'define',
  'undef',
  'undefineall',
  'include',
  'timescale',
  'default_nettype',
  'resetall',
  'celldefine',
  'endcelldefine',
  'line',
  'pragma',
  'begin_keywords',
  'end_keywords',
]);

/** A macro's body as `define writes it (line continuations joined), from the given texts; undefined if none. */
export function macroBody(name: string, texts: string[]): string | undefined {
  const re = new RegExp(String.raw`^[ \t]*\`define[ \t]+${name}\b((?:\\\r?\n|[^\n])*)`, 'm');
  for (const t of texts) {
    const m = re.exec(t);
    if (m) return m[1].replace(/\\\r?\n/g, ' ');
  }
  return undefined;
}

/** The macros a text calls (backtick words that are not directives), once each. */
export function macroCalls(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/`([A-Za-z_][\w$]*)/g))
    if (!DIRECTIVES.has(m[1]) && !/^__(?:FILE|LINE)__$/.test(m[1])) names.add(m[1]);
  return [...names];
}

/** Past a macro call at an offset: its name and its argument list, if any; -1 when none starts there. */
export function macroCallEnd(text: string, at: number): number {
  if (text[at] !== '`') return -1;
  const name = wordAt(text, at + 1);
  if (!name || DIRECTIVES.has(name)) return -1;
  const after = at + 1 + name.length;
  const open = skipSpace(text, after);
  if (text[open] !== '(') return after;
  return skipBalanced(text, open);
}

/**
 * The end of a statement whose text ends with a macro call: the parser, which does not expand macros, may end it
 * before the call's arguments or its `;`, and a wrap that stops there leaves them outside (`begin … \`m(x) end;`).
 * Only backticks near the end are tried: a site's end is asked for often.
 */
export function pastMacroCall(text: string, start: number, end: number): number {
  const next = skipSpace(text, end);
  if (text[next] !== ';' && text[next] !== '(') return end;
  let j = text.lastIndexOf('`', end - 1);
  for (let tries = 0; j >= start && tries < 16; tries++, j = text.lastIndexOf('`', j - 1)) {
    const callEnd = macroCallEnd(text, j);
    if (callEnd < 0 || skipSpace(text, callEnd) < end) continue;
    const after = Math.max(end, callEnd);
    const semi = skipSpace(text, after);
    return text[semi] === ';' ? semi + 1 : after;
  }
  return end;
}

/** The if or else site that starts right after an offset with only space or comments between, if any. */
export function siteRightAfter(src: SourceText, sites: BranchSite[], offset: number): BranchSite | undefined {
  const next = skipSpace(src.text, offset);
  return sites.find((s) => (s.kind === 'if' || s.kind === 'else') && skipSpace(src.text, siteStart(src, s)) === next);
}

/**
 * The text the analysis parses: a macro call written as a statement (`` if (a) `SET(x); else … ``) becomes a task
 * call of the same length (`_SET(x);`), which the parser reads as one statement; a macro call it cannot expand
 * otherwise ends the if early and loses the else. Offsets stay those of the source, which is what gets
 * instrumented.
 */
export function macroCallsAsStatements(text: string): string {
  let out = '';
  let pos = 0;
  for (let j = text.indexOf('`'); j >= 0; j = text.indexOf('`', j + 1)) {
    const callEnd = macroCallEnd(text, j);
    if (callEnd < 0 || text[skipSpace(text, callEnd)] !== ';') continue;
    // Only in statement position: after `;`, `)` (an if's condition), `:` (a case item), `begin` or `else`.
    const before = text.slice(Math.max(0, j - 64), j).replace(/\s+$/, '');
    if (!/(?:[;):]|\bbegin|\belse)$/.test(before)) continue;
    out += `${text.slice(pos, j)}_`;
    pos = j + 1;
  }
  return out + text.slice(pos);
}
