/** Every ERROR and MISSING node of a tree as `file:line:column: message`. */
import type { HdlSyntaxError } from '../protocol';
import type { Parser } from './parser';

const MAX_SHOWN = 40;

function describeToken(text: string): string {
  // control characters (a binary file handed in as text) would garble a terminal
  const t = text
    .replace(/\s+/g, ' ')
    .replace(/[\x00-\x1f\x7f]/g, '?')
    .trim();
  return t.length > MAX_SHOWN ? `${t.slice(0, MAX_SHOWN)}…` : t;
}

/** Walks only subtrees that contain errors, so a clean tree costs one check. */
export function collectSyntaxErrors(tree: Parser.Tree, file: string): HdlSyntaxError[] {
  const root = tree.rootNode;
  if (!root.hasError) return [];
  const errors: HdlSyntaxError[] = [];
  const visit = (node: Parser.SyntaxNode) => {
    if (node.isMissing) {
      const p = node.startPosition;
      // a missing token is shown as written (`;`), a missing construct by name (identifier, expression)
      const what = node.isNamed
        ? node.type.replace(/^simple_/, '').replace(/_/g, ' ')
        : `\`${describeToken(node.type)}\``;
      errors.push({ file, line: p.row + 1, column: p.column + 1, message: `syntax error: missing ${what}` });
      return;
    }
    if (node.type === 'ERROR') {
      const p = node.startPosition;
      // The first token inside the error is what the parser could not place.
      const near = describeToken(node.childCount > 0 ? node.descendantForIndex(node.startIndex).text : node.text);
      errors.push({
        file,
        line: p.row + 1,
        column: p.column + 1,
        message: near ? `syntax error: unexpected \`${near}\`` : 'syntax error',
      });
      // Errors nested in this one are the same mistake; MISSING nodes inside it are reported too.
      for (const child of node.children) if (child.hasError && child.type !== 'ERROR') visit(child);
      return;
    }
    for (const child of node.children) if (child.hasError) visit(child);
  };
  visit(root);
  return errors;
}
