/** Diagnostics: syntax errors from the analysis, and, when a setting asks, coverage holes as Information. */
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import type { DesignAnalysis, Hole } from '../protocol';

export function syntaxDiagnostics(analysis: DesignAnalysis): Diagnostic[] {
  return analysis.errors.map((e) => {
    const line = Math.max(0, e.line - 1);
    const character = Math.max(0, e.column - 1);
    return {
      range: { start: { line, character }, end: { line, character: character + 1 } },
      severity: DiagnosticSeverity.Error,
      source: 'chorus',
      message: e.message,
    };
  });
}

/** The non-toggle holes of one DUT file (its absolute path) as Information diagnostics. */
export function holeDiagnostics(holes: Hole[], file: string): Diagnostic[] {
  return holes
    .filter((h) => h.file === file && h.kind !== 'toggle')
    .map((h) => ({
      range: { start: { line: h.line - 1, character: 0 }, end: { line: h.line - 1, character: 1000 } },
      severity: DiagnosticSeverity.Information,
      source: 'chorus coverage',
      message: `Not covered: ${h.detail}${h.unreachable ? ` (likely unreachable: ${h.unreachable})` : ''}`,
    }));
}
