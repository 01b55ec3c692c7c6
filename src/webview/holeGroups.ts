/** Holes grouped by source line: a line with 22 untoggled bits is one row to click, not 22. */
import type { CoverageKind, Hole } from '../protocol';

export interface HoleGroup {
  file: string;
  line: number;
  source?: string;
  /** How many holes of each kind the line has. */
  kinds: Partial<Record<CoverageKind, number>>;
  details: string[];
  /** Every hole of the line was judged unreachable (with this reason). */
  unreachable?: string;
  count: number;
}

const KIND_ORDER: CoverageKind[] = ['line', 'branch', 'toggle', 'user'];

export function groupHoles(holes: Hole[]): HoleGroup[] {
  const groups = new Map<string, HoleGroup>();
  for (const h of holes) {
    const key = `${h.file}\u0000${h.line}`;
    let g = groups.get(key);
    if (!g) {
      g = { file: h.file, line: h.line, source: h.source, kinds: {}, details: [], count: 0, unreachable: h.unreachable };
      groups.set(key, g);
    }
    g.kinds[h.kind] = (g.kinds[h.kind] ?? 0) + 1;
    g.details.push(h.detail);
    g.count++;
    if (!h.unreachable) g.unreachable = undefined;
    g.source ??= h.source;
  }
  return [...groups.values()].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

/** `branch ×2 · toggle ×22`, kinds in a fixed order. */
export function describeKinds(kinds: HoleGroup['kinds']): string {
  return KIND_ORDER.filter((k) => kinds[k])
    .map((k) => (kinds[k] === 1 ? k : `${k} ×${kinds[k]}`))
    .join(' · ');
}

/** The first details, then how many more: keeps a row to one line. */
export function summarizeDetails(details: string[], max = 3): string {
  const shown = details.slice(0, max).join(', ');
  return details.length > max ? `${shown} … +${details.length - max}` : shown;
}
