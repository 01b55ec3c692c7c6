/** The tree-sitter SystemVerilog parser, loaded once (setting the language costs tens of milliseconds). */
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

export function parseText(text: string): Parser.Tree {
  parser ??= load();
  return parser.parse(text);
}

export type { Parser };
