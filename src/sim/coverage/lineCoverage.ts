/**
 * Per-line coverage for editors and lcov. Instances of one module are summed (a file shows each line once);
 * a line or branch point also covers the lines of its `S` span (the statements of its block or arm), as
 * verilator_coverage annotates them. A line's hits are the smallest count among the points on it, so any
 * missed point on the line shows as 0; `kinds` says which kinds of points stand on it (a line with only
 * `toggle` is a signal declaration). FSM states (on their case item) and arcs (on their assignment) are listed
 * in `fsm` and leave `hits` to the line's other points: a case item executed while one of its arcs was never
 * taken is still an executed line. A line with FSM points only takes its hits from them.
 */
import type { CoveragePoint, LineCoverage } from '../../protocol';
import { pointLines } from './coverageFile';

/** Points summed across instances: same file, place, kind and comment. */
function acrossInstances(points: CoveragePoint[]): CoveragePoint[] {
  const merged = new Map<string, CoveragePoint>();
  for (const p of points) {
    const id = [p.file, p.line, p.column, p.kind, p.comment].join('\u0000');
    const seen = merged.get(id);
    if (seen) seen.count += p.count;
    else merged.set(id, { ...p, hierarchy: '' });
  }
  return [...merged.values()];
}

export function lineCoverage(points: CoveragePoint[]): LineCoverage[] {
  const byLine = new Map<string, LineCoverage>();
  const entry = (file: string, line: number): LineCoverage => {
    const id = `${file}\u0000${line}`;
    let e = byLine.get(id);
    if (!e) {
      e = { file, line, hits: Number.POSITIVE_INFINITY, branches: [], missingToggles: [], kinds: [] };
      byLine.set(id, e);
    }
    return e;
  };
  const ordered = acrossInstances(points).sort((a, b) => a.line - b.line || a.column - b.column);
  const fsmOnly = new Map<string, number>();
  for (const p of ordered) {
    if (p.kind === 'fsm_state' || p.kind === 'fsm_arc') {
      const e = entry(p.file, p.line);
      if (!e.kinds?.includes(p.kind)) e.kinds?.push(p.kind);
      (e.fsm ??= []).push({ kind: p.kind, label: p.comment.slice(p.comment.indexOf('::') + 2), count: p.count });
      const id = `${p.file}\u0000${p.line}`;
      fsmOnly.set(id, Math.min(fsmOnly.get(id) ?? Number.POSITIVE_INFINITY, p.count));
      continue;
    }
    const lines = p.kind === 'line' || p.kind === 'branch' ? pointLines(p) : [p.line];
    for (const l of lines) {
      const e = entry(p.file, l);
      e.hits = Math.min(e.hits, p.count);
      if (!e.kinds?.includes(p.kind)) e.kinds?.push(p.kind);
    }
    const own = entry(p.file, p.line);
    if (p.kind === 'branch') own.branches.push({ label: p.comment || 'branch', count: p.count });
    if (p.kind === 'toggle' && p.count === 0) own.missingToggles.push(p.comment);
  }
  return [...byLine.values()]
    .map((e) => ({ ...e, hits: Number.isFinite(e.hits) ? e.hits : (fsmOnly.get(`${e.file}\u0000${e.line}`) ?? 0) }))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line);
}
