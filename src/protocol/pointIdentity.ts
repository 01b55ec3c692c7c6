/**
 * One identity for a coverage point, used by every layer: `pointId` (the point in one instance), `siteId` (its
 * place in the source, shared by every instance of the module) and `pointLines` (the source lines it stands for).
 * Paths are compared as given: every engine and wire type carries absolute paths.
 */
import type { CoveragePoint } from './coverage';

type Site = Pick<CoveragePoint, 'file' | 'line' | 'column' | 'kind' | 'comment'>;

/** A point's place in the source: file, line, column, kind and Verilator's comment. */
export function siteId(p: Site): string {
  return [p.file, p.line, p.column, p.kind, p.comment].join('\u0000');
}

/** A point in one instance: its site and its hierarchy (`TOP.tb.uut.u_fifo`). */
export function pointId(p: Site & Pick<CoveragePoint, 'hierarchy'>): string {
  return `${siteId(p)}\u0000${p.hierarchy}`;
}

/** A `pointId` read back: the point's file, line and kind (a file name never holds the separator). */
export function pointOfId(id: string): { file: string; line: number; kind: CoveragePoint['kind'] } {
  const [file = '', line = '0', , kind = ''] = id.split('\u0000');
  return { file, line: Number(line), kind: kind as CoveragePoint['kind'] };
}

/** The source lines of a point: its own line plus its `S` span (`17-20`, `25,27`, `3-4,9`), sorted. */
export function pointLines(point: Pick<CoveragePoint, 'line' | 'span'>): number[] {
  const lines = new Set<number>([point.line]);
  for (const part of (point.span ?? '').split(',')) {
    // At most 9 digits: a damaged span such as 99999999999999999999 would make `l++` stand still (1e20 + 1 === 1e20).
    const m = /^\s*(\d{1,9})(?:\s*-\s*(\d{1,9}))?\s*$/.exec(part);
    if (!m) continue;
    const from = Number(m[1]);
    const to = Math.min(Number(m[2] ?? m[1]), from + 10_000);
    for (let l = from; l <= to; l++) lines.add(l);
  }
  return [...lines].sort((a, b) => a - b);
}
