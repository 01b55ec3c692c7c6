/**
 * YAML (and JSON, a subset of it) read into plain values that keep their line, so a project reader can name the
 * line of a bad entry. The `yaml` package is used here only: the readers see `Node`s.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { lineError, type Where } from '../filelist';

export type Node =
  | { kind: 'map'; line: number; entries: { key: string; line: number; value: Node }[] }
  | { kind: 'seq'; line: number; items: Node[] }
  | { kind: 'scalar'; line: number; value: string | number | boolean | null };

/** Parses `text` of `file`; a syntax error names its line. */
export function parseTree(text: string, file: string): Node {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, merge: true });
  const error = doc.errors[0];
  if (error) {
    const line = error.linePos?.[0].line ?? 1;
    throw lineError({ list: file, line }, `Not valid YAML/JSON: ${error.message.split('\n')[0]}`);
  }
  const lineOf = (n: YamlNode | null | undefined): number =>
    n?.range ? lines.linePos(n.range[0]).line : doc.contents?.range ? lines.linePos(doc.contents.range[0]).line : 1;
  const convert = (n: unknown): Node => {
    if (isAlias(n)) return convert(n.resolve(doc));
    if (isMap(n)) {
      const entries = n.items.map((pair) => {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const keyLine = isScalar(pair.key) ? lineOf(pair.key) : lineOf(n);
        const value =
          pair.value === null ? { kind: 'scalar' as const, line: keyLine, value: null } : convert(pair.value);
        return { key, line: keyLine, value };
      });
      return { kind: 'map', line: lineOf(n), entries };
    }
    if (isSeq(n)) return { kind: 'seq', line: lineOf(n), items: n.items.map(convert) };
    if (isScalar(n)) {
      const v = n.value;
      const value =
        typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null ? v : String(v);
      return { kind: 'scalar', line: lineOf(n), value };
    }
    return { kind: 'scalar', line: lineOf(doc.contents), value: null };
  };
  return convert(doc.contents);
}

/** The entry `key` of a map node; undefined when absent or `node` is no map. */
export function field(node: Node | undefined, key: string): Node | undefined {
  return node?.kind === 'map' ? node.entries.find((e) => e.key === key)?.value : undefined;
}

/** A scalar's text (numbers and booleans as written in YAML); undefined for null, maps and lists. */
export function text(node: Node | undefined): string | undefined {
  return node?.kind === 'scalar' && node.value !== null ? String(node.value) : undefined;
}

/** The items of a list node; a single value stands for a list of one; absent or null is empty. */
export function items(node: Node | undefined): Node[] {
  if (!node || (node.kind === 'scalar' && node.value === null)) return [];
  return node.kind === 'seq' ? node.items : [node];
}

export function at(file: string, node: { line: number }): Where {
  return { list: file, line: node.line };
}

/** A string scalar, or an error on its line naming `what` it should be. */
export function needText(file: string, node: Node, what: string): string {
  const t = text(node);
  if (t === undefined) throw lineError(at(file, node), `Expected ${what} here`);
  return t;
}
