/** Coverage holes: the points no run reached, with their source lines, and a bounded summary for the model. */
import { basename } from 'node:path';
import type { CoverageKind, CoveragePoint, Hole } from '../../protocol';
import { isCovered } from './summary';

/** An FSM point's comment without its register (`state_q::IDLE->RUN` → `IDLE->RUN`). */
function fsmName(comment: string): string {
  const sep = comment.indexOf('::');
  return sep < 0 ? comment : comment.slice(sep + 2);
}

/** What a point that was never reached means, in words. */
export function holeDetail(p: Pick<CoveragePoint, 'kind' | 'comment'>): string {
  const c = p.comment;
  switch (p.kind) {
    case 'line':
      if (c === 'case') return 'case item never taken';
      if (c === 'elsif') return 'else-if branch never taken';
      if (c === 'else') return 'else branch never taken';
      if (c === 'if') return 'if branch never taken';
      if (c === 'block' || !c) return 'block never executed';
      return `${c} never executed`;
    case 'branch':
      if (c === 'if') return 'if arm never taken (condition never true here)';
      if (c === 'else') return 'else arm never taken (condition never false here)';
      return `${c} arm never taken`;
    case 'toggle':
      return `${c} never toggled`;
    case 'fsm_state':
      return `state ${fsmName(c)} never visited`;
    case 'fsm_arc': {
      const arc = fsmName(c);
      const reset = /^ANY->(.*)\[reset\]$/.exec(arc);
      return reset ? `reset to ${reset[1]} never taken` : `arc ${arc} never taken`;
    }
    case 'expr':
      return `expression term ${c} never seen`;
    default:
      return `cover point ${c || '(unnamed)'} never hit`;
  }
}

/**
 * The uncovered points as holes, ordered by file and line, each with its source line. `sources` maps the
 * points' file names to their text; a hole names its file as the point does (the path the build was given).
 */
export function findHoles(points: CoveragePoint[], sources: Map<string, string>): Hole[] {
  const split = new Map<string, string[]>();
  const lineOf = (file: string, line: number): string | undefined => {
    let lines = split.get(file);
    if (!lines) {
      const text = sources.get(file);
      if (text === undefined) return undefined;
      lines = text.split('\n');
      split.set(file, lines);
    }
    return lines[line - 1]?.trim();
  };
  const holes = points
    .filter((p) => !isCovered(p))
    .sort(
      (a, b) =>
        (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
        a.line - b.line ||
        a.column - b.column ||
        a.comment.localeCompare(b.comment, undefined, { numeric: true }),
    )
    .map((p): Hole => {
      const hole: Hole = { kind: p.kind, file: p.file, line: p.line, detail: holeDetail(p), hierarchy: p.hierarchy };
      const source = lineOf(p.file, p.line);
      if (source !== undefined) hole.source = source;
      if (p.span) hole.span = p.span;
      return hole;
    });
  return holes;
}

/** Control flow first (branches, then lines), then toggles, then user points; proven-unreachable ones last. */
const PRIORITY: Record<CoverageKind, number> = {
  branch: 0,
  line: 1,
  fsm_arc: 2,
  fsm_state: 3,
  expr: 4,
  toggle: 5,
  user: 6,
};

/** The signal bit of a toggle hole (`q[3]`), also when a caller appended to its detail. */
function toggleBit(h: Hole): string {
  return /^(.+?) never toggled/.exec(h.detail)?.[1] ?? h.detail;
}

/**
 * Plain text for the model: at most `maxLines` lines (3 or more), the most useful holes first (branches and lines before
 * toggles; toggles of one signal in one line), then "... and N more". Empty holes: a line saying so. `name` renders
 * a hole's file (default: its base name).
 */
export function holesFeedback(holes: Hole[], maxLines = 40, name: (file: string) => string = basename): string {
  const location = (h: Hole): string => `${name(h.file)}:${h.line}`;
  if (!holes.length) return 'No coverage holes: every line, branch and toggle point was reached.';
  const reachable = holes.filter((h) => !h.unreachable);
  const unreachable = holes.filter((h) => h.unreachable);
  const entries: { text: string; count: number }[] = [];
  const control = reachable
    .filter((h) => h.kind === 'branch' || h.kind === 'line')
    .sort(
      (a, b) =>
        PRIORITY[a.kind] - PRIORITY[b.kind] || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line,
    );
  for (const h of control)
    entries.push({ text: `- ${location(h)} ${h.kind}: ${h.detail}${h.source ? ` | ${h.source}` : ''}`, count: 1 });
  // FSM arcs and states next: the transitions a controller's stimulus has to drive.
  const fsm = reachable
    .filter((h) => h.kind === 'fsm_arc' || h.kind === 'fsm_state')
    .sort((a, b) => PRIORITY[a.kind] - PRIORITY[b.kind] || a.line - b.line);
  for (const h of fsm)
    entries.push({
      text: `- ${location(h)} ${h.kind === 'fsm_arc' ? 'fsm arc' : 'fsm state'}: ${h.detail}${h.source ? ` | ${h.source}` : ''}`,
      count: 1,
    });

  // Toggle bits grouped by signal and instance: "load_value[0] load_value[3]" reads better than two lines.
  const toggles = new Map<string, Hole[]>();
  for (const h of reachable.filter((x) => x.kind === 'toggle')) {
    const signal = toggleBit(h).replace(/\[\d+\]$/, '');
    const group = `${location(h)}\u0000${signal}\u0000${h.hierarchy ?? ''}`;
    toggles.set(group, [...(toggles.get(group) ?? []), h]);
  }
  for (const group of toggles.values()) {
    const bits = group.map(toggleBit);
    entries.push({ text: `- ${location(group[0])} toggle: ${bits.join(', ')} never toggled`, count: group.length });
  }
  for (const h of reachable.filter((x) => x.kind === 'user' || x.kind === 'expr'))
    entries.push({ text: `- ${location(h)} ${h.kind}: ${h.detail}`, count: 1 });
  for (const h of unreachable)
    entries.push({ text: `- ${location(h)} ${h.kind}: ${h.detail} (proven unreachable: ${h.unreachable})`, count: 1 });

  // The header and the "... and N more" line count toward maxLines.
  const limit = Math.max(3, maxLines);
  const shown = entries.length + 1 > limit ? entries.slice(0, limit - 2) : entries;
  const lines = [`Uncovered points (${holes.length}):`, ...shown.map((e) => e.text)];
  const rest = entries.slice(shown.length).reduce((n, e) => n + e.count, 0);
  if (rest) lines.push(`... and ${rest} more`);
  return lines.join('\n');
}
