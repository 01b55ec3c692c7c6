/** Document symbols: modules, with their ports and parameters as children. */
import { SymbolKind, type DocumentSymbol, type Range } from 'vscode-languageserver';
import type { DesignAnalysis, SourceRange } from '../protocol';

export function toRange(r: SourceRange): Range {
  return {
    start: { line: Math.max(0, r.startLine - 1), character: Math.max(0, r.startColumn - 1) },
    end: { line: Math.max(0, r.endLine - 1), character: Math.max(0, r.endColumn - 1) },
  };
}

export function documentSymbols(analysis: DesignAnalysis): DocumentSymbol[] {
  return analysis.modules.map((m) => {
    const range = toRange(m.range);
    const params: DocumentSymbol[] = m.params.map((p) => ({
      name: p.name,
      detail: `${p.local ? 'localparam' : 'parameter'} = ${p.default}`,
      kind: SymbolKind.Constant,
      range,
      selectionRange: range,
    }));
    const ports: DocumentSymbol[] = m.ports.map((p) => ({
      name: p.name,
      detail: `${p.direction} ${p.width > 1 ? `[${p.width - 1}:0]` : ''}${p.signed ? ' signed' : ''}`.trim(),
      kind: SymbolKind.Field,
      range: toRange(p.range),
      selectionRange: toRange(p.range),
    }));
    const line = Math.max(0, m.line - 1);
    return {
      name: m.name,
      // Shown in the Outline view only; the extension's top picker asks `chorus/tops`.
      ...(m === analysis.modules.find((x) => x.name === analysis.top) ? { detail: 'top' } : {}),
      kind: SymbolKind.Module,
      range,
      selectionRange: { start: { line, character: 0 }, end: { line, character: 0 } },
      children: [...params, ...ports],
    };
  });
}
