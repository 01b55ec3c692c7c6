/**
 * A thin layer over a tree-sitter TreeCursor. Node objects cost a native call per property, so the analysis
 * moves one cursor and reads text by slicing the source: several times faster on large files.
 */
import type { SourceRange } from '../protocol';
import type { Parser } from './parser';

export class Walker {
  constructor(
    private readonly cursor: Parser.TreeCursor,
    private readonly source: string,
    readonly file: string,
  ) {}

  get type(): string {
    return this.cursor.nodeType;
  }

  get named(): boolean {
    return this.cursor.nodeIsNamed;
  }

  get field(): string {
    return this.cursor.currentFieldName;
  }

  text(): string {
    return this.source.substring(this.cursor.startIndex, this.cursor.endIndex);
  }

  /** Text with every run of whitespace (and comments inside) collapsed to one space. */
  flatText(): string {
    return flatten(this.text());
  }

  line(): number {
    return this.cursor.startPosition.row + 1;
  }

  start(): { line: number; column: number } {
    const p = this.cursor.startPosition;
    return { line: p.row + 1, column: p.column + 1 };
  }

  end(): { line: number; column: number } {
    const p = this.cursor.endPosition;
    return { line: p.row + 1, column: p.column + 1 };
  }

  range(from?: { line: number; column: number }): SourceRange {
    const s = from ?? this.start();
    const e = this.end();
    return { file: this.file, startLine: s.line, startColumn: s.column, endLine: e.line, endColumn: e.column };
  }

  /** Calls `fn` with the cursor on each child in turn, then returns to this node. `fn` must leave it there. */
  each(fn: (type: string) => void): void {
    if (!this.cursor.gotoFirstChild()) return;
    do fn(this.cursor.nodeType);
    while (this.cursor.gotoNextSibling());
    this.cursor.gotoParent();
  }

  /** Runs `fn` on the first descendant (depth first, this node included) of one of `types`; false if none. */
  find(types: ReadonlySet<string>, fn: () => void, prune?: ReadonlySet<string>): boolean {
    if (types.has(this.type)) {
      fn();
      return true;
    }
    if (prune?.has(this.type)) return false;
    let found = false;
    if (!this.cursor.gotoFirstChild()) return false;
    do found = this.find(types, fn, prune);
    while (!found && this.cursor.gotoNextSibling());
    this.cursor.gotoParent();
    return found;
  }
}

export function flatten(text: string): string {
  // most texts are short and already flat
  if (!/[\n\r\t/]| {2}/.test(text)) return text.trim();
  return text
    .replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
