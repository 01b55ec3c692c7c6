/**
 * Exports of a run's exclusions (points proven unreachable or waived, src/engine/verdict.ts) for other tools:
 * Verilator configuration that turns coverage off on wholly excluded lines, and lcov and Cobertura files without them.
 */
import { resolve } from 'node:path';
import type { CoveragePoint, Hole } from '../../protocol';
import { toCobertura, toLcov, type CoberturaOptions } from '../../sim';
import { isExcluded } from '../verdict';
import { holeOf } from './check';

/** How every `.vlt` export begins (the output rule's signature). */
export const VLT_HEADER = '`verilator_config\n// CHORUS exclusions';

/** The points whose holes are excluded. */
export function excludedPoints(points: CoveragePoint[], holes: Hole[]): Set<CoveragePoint> {
  const excluded = holes.filter(isExcluded);
  return new Set(points.filter((p) => p.count === 0 && excluded.some((h) => holeOf(h, p))));
}

/**
 * `coverage_off -file "<file>" -lines <from>[-<to>]` for each run of lines where every point, of every kind and in
 * every instance, is excluded: Verilator's configuration turns off whole lines in every instance, so a line with one
 * point that is covered or still open is never turned off. Files are named by their absolute path, as CHORUS's
 * builds give them to Verilator.
 */
export function toVlt(points: CoveragePoint[], holes: Hole[]): string {
  const excluded = excludedPoints(points, holes);
  const byLine = new Map<string, Map<number, boolean>>();
  for (const p of points) {
    const file = resolve(p.file);
    const lines = byLine.get(file) ?? new Map<number, boolean>();
    byLine.set(file, lines);
    lines.set(p.line, (lines.get(p.line) ?? true) && excluded.has(p));
  }
  const out = [VLT_HEADER, '// Lines whose every coverage point is proven unreachable or waived (docs/waivers.md).'];
  for (const file of [...byLine.keys()].sort()) {
    const off = [...(byLine.get(file) ?? new Map<number, boolean>()).entries()]
      .filter(([, all]) => all)
      .map(([line]) => line)
      .sort((a, b) => a - b);
    for (let i = 0; i < off.length;) {
      let j = i;
      while (j + 1 < off.length && off[j + 1] === off[j] + 1) j++;
      const lines = off[i] === off[j] ? `${off[i]}` : `${off[i]}-${off[j]}`;
      out.push(`coverage_off -file ${JSON.stringify(file)} -lines ${lines}`);
      i = j + 1;
    }
  }
  return `${out.join('\n')}\n`;
}

/** An lcov tracefile of the run with its excluded points left out (Codecov and genhtml then count as URG does). */
export function lcovWithoutExcluded(points: CoveragePoint[], holes: Hole[]): string {
  const excluded = excludedPoints(points, holes);
  return toLcov(points.filter((p) => !excluded.has(p)));
}

/** Cobertura XML of the run with its excluded points left out, as the lcov export (GitLab then counts as URG does). */
export function coberturaWithoutExcluded(points: CoveragePoint[], holes: Hole[], options: CoberturaOptions): string {
  const excluded = excludedPoints(points, holes);
  return toCobertura(
    points.filter((p) => !excluded.has(p)),
    options,
  );
}
