/**
 * Holes grouped by source line: a line with 22 untoggled bits is one row to click, not 22. Points proven
 * unreachable are grouped apart from the holes of their line, and listed after every hole.
 */
import { proofText, type CoverageKind, type Hole } from '../protocol';

export interface HoleGroup {
  file: string;
  line: number;
  source?: string | undefined;
  /** How many holes of each kind the line has. */
  kinds: Partial<Record<CoverageKind, number>>;
  details: string[];
  /** The group's points are proven unreachable: the proof in words (`k-induction (depth 3)`, `analysis: …`). */
  proof?: string;
  /** Why the formal engine decided none of the group's holes (the first reason given), when it ran. */
  formal?: string;
  count: number;
}

const KIND_ORDER: CoverageKind[] = ['line', 'branch', 'toggle', 'user'];

export function groupHoles(holes: Hole[]): HoleGroup[] {
  const groups = new Map<string, HoleGroup>();
  for (const h of holes) {
    const proof = proofText(h);
    const key = `${h.file}\u0000${h.line}\u0000${proof === undefined ? 'open' : 'proven'}`;
    let g = groups.get(key);
    if (!g) {
      g = {
        file: h.file,
        line: h.line,
        source: h.source,
        kinds: {},
        details: [],
        count: 0,
        ...(proof !== undefined ? { proof } : {}),
      };
      groups.set(key, g);
    }
    g.kinds[h.kind] = (g.kinds[h.kind] ?? 0) + 1;
    g.details.push(h.detail);
    g.count++;
    // Points of one line proven by different means: the group names each proof once.
    if (proof !== undefined && g.proof !== undefined && !g.proof.split('; ').includes(proof))
      g.proof = `${g.proof}; ${proof}`;
    g.source ??= h.source;
    if (proof === undefined && h.formal) g.formal ??= h.formal;
  }
  const proven = (g: HoleGroup) => (g.proof === undefined ? 0 : 1);
  return [...groups.values()].sort((a, b) => proven(a) - proven(b) || a.file.localeCompare(b.file) || a.line - b.line);
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
