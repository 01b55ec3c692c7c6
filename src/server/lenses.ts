/** Code lenses: a generate action above each module and, after a run, its coverage with the holes. */
import type { CodeLens } from 'vscode-languageserver';
import type { DesignAnalysis, GenerateResult } from '../protocol';

export const LENS_COMMANDS = { generate: 'chorus.generate', showHoles: 'chorus.showCoverage' } as const;

export function coverageTitle(r: GenerateResult): string {
  const parts = (['line', 'branch', 'toggle'] as const)
    .filter((k) => r.coverage[k].total > 0 && (k !== 'toggle' || r.targets.toggle !== undefined))
    .map((k) => `${k} ${Math.floor(r.coverage[k].pct)}%`);
  const holes = r.holes.filter((h) => h.kind !== 'toggle').length;
  return `${parts.join(' · ')} · ${holes} hole${holes === 1 ? '' : 's'}`;
}

export function codeLenses(uri: string, analysis: DesignAnalysis, last: GenerateResult | undefined): CodeLens[] {
  const lenses: CodeLens[] = [];
  for (const m of analysis.modules) {
    const line = Math.max(0, m.line - 1);
    const range = { start: { line, character: 0 }, end: { line, character: 0 } };
    lenses.push({ range, command: { title: 'Generate high-coverage stimulus', command: LENS_COMMANDS.generate, arguments: [{ uri, top: m.name }] } });
    if (last && last.top === m.name) {
      lenses.push({ range, command: { title: coverageTitle(last), command: LENS_COMMANDS.showHoles, arguments: [{ uri }] } });
    }
  }
  return lenses;
}
