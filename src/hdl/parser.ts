/**
 * The tree-sitter SystemVerilog parser, loaded once (setting the language costs tens of milliseconds).
 * The last trees of a few files are kept: when a file comes back edited (the editor re-analyses on every
 * keystroke), tree-sitter reparses only around the edit.
 */
import Parser from 'tree-sitter';
import { ChorusError } from '../protocol';

let parser: Parser | undefined;

function load(): Parser {
  try {
    // N-API prebuilds: no compiler needed, loads in Electron and Node alike. Kept outside the bundles.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const language = require('tree-sitter-systemverilog') as Parser.Language;
    const p = new Parser();
    p.setLanguage(language);
    return p;
  } catch (err) {
    throw new ChorusError(
      'missing_tool',
      'The SystemVerilog parser (tree-sitter-systemverilog) could not be loaded: reinstall the dependencies with `npm ci`.',
      undefined,
      { cause: err },
    );
  }
}

/** Trees kept for incremental reparsing, by file name, least recently used first. */
const recent = new Map<string, { text: string; tree: Parser.Tree }>();
const KEEP = 4;

function pointAt(text: string, index: number): Parser.Point {
  let row = 0;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) {
    row++;
    lineStart = i + 1;
  }
  return { row, column: index - lineStart };
}

/** The single edit that turns `before` into `after`: common prefix and suffix kept, the middle replaced. */
export function editBetween(before: string, after: string): Parser.Edit {
  const max = Math.min(before.length, after.length);
  let start = 0;
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let tail = 0;
  while (
    tail < max - start &&
    before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)
  )
    tail++;
  const oldEnd = before.length - tail;
  const newEnd = after.length - tail;
  return {
    startIndex: start,
    oldEndIndex: oldEnd,
    newEndIndex: newEnd,
    startPosition: pointAt(before, start),
    oldEndPosition: pointAt(before, oldEnd),
    newEndPosition: pointAt(after, newEnd),
  };
}

/**
 * Wall-clock budget of one parse: finite for inputs that send error recovery in circles (it never returns on
 * them), generous for real files. The largest corpus file (131 KB, cv32e40p's decoder) parses in 41 ms, but a
 * process's first parse pays for the language's tables (53 ms for a 1.3 KB file at load average 4) and a busy
 * machine slows both: a 0.5 s base gave up on real designs under load.
 */
export function parseBudgetMs(text: string): number {
  return 2000 + Math.ceil(text.length / 50);
}

/**
 * Texts the parser gave up on, remembered so that asking again (the editor's several requests over one file, the
 * DUT analysis and the counter reader over one text) fails at once instead of costing the whole budget again.
 */
const givenUp = new Set<string>();
const REMEMBER_GIVEN_UP = 16;

function gaveUp(file: string | undefined, budget: number): ChorusError {
  return new ChorusError(
    'bad_input',
    `The SystemVerilog parser gave up after ${(budget / 1000).toFixed(1)} s on this text: check the syntax near your last edit.`,
    file !== undefined ? { file } : undefined,
  );
}

/** Parses a text; with a file name, reuses that file's previous tree when the text is an edit of it. */
export function parseText(text: string, file?: string): Parser.Tree {
  parser ??= load();
  const prev = file !== undefined ? recent.get(file) : undefined;
  // tree-sitter's error recovery can loop on some malformed input (seen on a mutated example): stop it.
  const budget = parseBudgetMs(text);
  if (givenUp.has(text)) throw gaveUp(file, budget);
  const deadline = Date.now() + budget;
  const options = { progressCallback: () => Date.now() > deadline };
  let tree: Parser.Tree | undefined;
  if (prev && prev.text !== text) {
    prev.tree.edit(editBetween(prev.text, text));
    tree = parser.parse(text, prev.tree, options);
    // Error recovery can settle differently when it starts from an old tree: a broken text is parsed afresh,
    // so the editor reports the same syntax errors as `chorus inspect` does.
    if (tree?.rootNode.hasError) tree = parser.parse(text, null, options);
  } else tree = prev ? prev.tree : parser.parse(text, null, options);
  if (!tree || Date.now() > deadline) {
    if (file !== undefined) recent.delete(file);
    parser.reset();
    givenUp.add(text);
    if (givenUp.size > REMEMBER_GIVEN_UP) givenUp.delete(givenUp.values().next().value as string);
    throw gaveUp(file, budget);
  }
  if (file !== undefined) {
    recent.delete(file);
    recent.set(file, { text, tree });
    if (recent.size > KEEP) recent.delete(recent.keys().next().value as string);
  }
  return tree;
}

export type { Parser };
