/** Code lenses: a generate action above each module and, after a run, its coverage with the holes. */
import type { CodeLens, Range } from 'vscode-languageserver';
import {
  isExcluded,
  isProven,
  LensCommands,
  type DesignAnalysis,
  type GenerateResult,
  type LensCommand,
  type LensCommandArgs,
} from '../protocol';

/** A lens running one of the extension's {@link LensCommands} with its declared argument. */
function lens<C extends LensCommand>(range: Range, title: string, command: C, args: LensCommandArgs[C]): CodeLens {
  return { range, command: { title, command, arguments: [args] } };
}

export function coverageTitle(r: GenerateResult): string {
  const parts = (['line', 'branch', 'toggle'] as const)
    .filter((k) => r.coverage[k].total > 0 && (k !== 'toggle' || r.targets.toggle !== undefined))
    .map((k) => `${k} ${Math.floor(r.coverage[k].pct)}%`);
  // A point proven unreachable is no hole: counted apart (and the run called closed when nothing else is left).
  // A waived point (the waiver file's entry) is no hole either: counted apart too.
  const points = r.holes.filter((h) => h.kind !== 'toggle');
  const holes = points.filter((h) => !isProven(h) && !isExcluded(h)).length;
  const proven = points.filter((h) => isProven(h)).length;
  const waived = points.filter((h) => !isProven(h) && isExcluded(h)).length;
  const closed = r.closed ? ['closed'] : [];
  const provenPart = proven ? [`${proven} proven unreachable`] : [];
  const waivedPart = waived ? [`${waived} waived`] : [];
  return [...parts, ...closed, ...provenPart, ...waivedPart, `${holes} hole${holes === 1 ? '' : 's'}`].join(' · ');
}

export function codeLenses(uri: string, analysis: DesignAnalysis, last: GenerateResult | undefined): CodeLens[] {
  const lenses: CodeLens[] = [];
  for (const m of analysis.modules) {
    const line = Math.max(0, m.line - 1);
    const range = { start: { line, character: 0 }, end: { line, character: 0 } };
    lenses.push(lens(range, 'Generate high-coverage stimulus', LensCommands.generate, { uri, top: m.name }));
    if (last && last.top === m.name) lenses.push(lens(range, coverageTitle(last), LensCommands.showCoverage, { uri }));
  }
  return lenses;
}
