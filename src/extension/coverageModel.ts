/**
 * Coverage data → what one line of a DUT editor shows: its state and the hover text explaining its holes.
 * Pure (no `vscode`), so the gutter, the hover and the tests share one reading of the data.
 */
import {
  armHole,
  formalText,
  isExcluded,
  isProven,
  pointLines,
  proofText,
  type CoverageKind,
  type Hole,
  type HoleWaiver,
  type LineCoverage,
} from '../protocol';

/**
 * `proven`: nothing on the line is missing but points proven unreachable (dead code, not a hole). `waived`: nothing
 * is missing but excluded points, one of them by the waiver file's entry (a person's, or a kept proof): a reviewer
 * reads those, so they get a mark of their own.
 */
export type LineState = 'covered' | 'uncovered' | 'partial' | 'proven' | 'waived';

/**
 * A point the signoff leaves out of the totals (the verdict's rule, `isExcluded`; a proof label alone, as a live
 * round's holes carry it, counts too).
 */
export function excluded(h: Pick<Hole, 'unreachable' | 'proof' | 'waiver'>): boolean {
  return isProven(h) || isExcluded(h);
}

/** Excluded by a waiver, not by a proof of this run. */
function waived(h: Hole): h is Hole & { waiver: HoleWaiver } {
  return !isProven(h) && h.waiver !== undefined;
}

export interface LineMark {
  /** 1-based. */
  line: number;
  state: LineState;
  /** Markdown: the hits and every hole on the line, in words. */
  hover: string;
}

/** Lines and holes of one DUT file. */
export interface FileCoverageData {
  /** Absolute path of the file. */
  file: string;
  lines: LineCoverage[];
  holes: Hole[];
}

const KIND_WORDS: Record<CoverageKind, string> = {
  line: 'Line',
  branch: 'Branch',
  toggle: 'Toggle',
  user: 'Cover point',
  fsm_state: 'FSM state',
  fsm_arc: 'FSM arc',
  expr: 'Expression',
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

const CATEGORY_WORDS: Record<HoleWaiver['category'], string> = {
  UNR: 'UNR, proven unreachable',
  UNSUPPORTED: 'UNSUPPORTED',
  LOW_RISK: 'LOW_RISK',
};

/** `**waived** (LOW_RISK) by ana: tied off — proof: induction, depth 1, yosys 0.55`, for a hover. */
export function waiverHover(w: HoleWaiver): string {
  const proof = w.proof
    ? ` — proof: ${[
        w.proof.method === 'induction' ? 'k-induction' : 'analysis',
        w.proof.depth !== undefined ? `depth ${w.proof.depth}` : '',
        w.proof.tool ?? '',
      ]
        .filter(Boolean)
        .join(', ')}`
    : '';
  return `**waived** (${CATEGORY_WORDS[w.category]}) by ${w.who ?? 'unknown'}: ${w.reason}${proof}`;
}

function holeText(h: Hole): string {
  if (waived(h)) return `- ${KIND_WORDS[h.kind]}: ${h.detail} — ${waiverHover(h.waiver)}`;
  const proof = proofText(h);
  if (proof !== undefined) return `- ${KIND_WORDS[h.kind]}: ${h.detail} — **proven unreachable** by ${proof}`;
  const undecided = formalText(h);
  return `- ${KIND_WORDS[h.kind]}: ${h.detail}${undecided ? ` — ${undecided}` : ''}`;
}

/**
 * True for a line with toggle points only (a signal declaration). Uses `kinds` when the producer gave it;
 * otherwise a line with missing toggle bits, no branch arms and only toggle holes.
 */
export function isDeclaration(lc: LineCoverage, holes: readonly Hole[] = []): boolean {
  if (lc.kinds) return lc.kinds.length > 0 && lc.kinds.every((k) => k === 'toggle');
  return lc.branches.length === 0 && lc.missingToggles.length > 0 && holes.every((h) => h.kind === 'toggle');
}

/**
 * Classifies one line: never ran, ran but some branch arm or toggle bit was never seen, fully covered, or
 * `proven` when all it misses are points proven unreachable, `waived` when all it misses is excluded and one of
 * those points by the waiver file.
 */
export function lineState(lc: LineCoverage | undefined, holes: readonly Hole[]): LineState {
  const state = excludedLineState(lc, holes);
  return state === 'proven' && holes.some(waived) ? 'waived' : state;
}

/** {@link lineState} with every excluded point read as proven. */
function excludedLineState(lc: LineCoverage | undefined, holes: readonly Hole[]): LineState {
  const open = holes.filter((h) => !excluded(h));
  if (open.length === holes.length) return openLineState(lc, holes);
  if (!lc) return open.length ? openLineState(undefined, open) : 'proven';
  if (isDeclaration(lc, holes)) return openLineState(lc, open);
  // Arms never taken that no proof explains (a line table without holes for them) still make the line partial.
  const unexplainedArm = lc.branches.some((b) => b.count === 0 && !excluded(armHole(holes, b.label) ?? {}));
  const ran = lc.hits > 0 || lc.branches.some((b) => b.count > 0);
  if (!ran) return open.length ? 'uncovered' : 'proven';
  return open.length || unexplainedArm || lc.missingToggles.length ? 'partial' : 'proven';
}

/** {@link lineState} for a line none of whose holes is proven. */
function openLineState(lc: LineCoverage | undefined, holes: readonly Hole[]): LineState {
  if (!lc) {
    // Only holes are known (a live round before the line table arrives).
    return holes.some((h) => h.kind === 'line') ? 'uncovered' : holes.length ? 'partial' : 'covered';
  }
  const armsHit = lc.branches.filter((b) => b.count > 0).length;
  const ran = lc.hits > 0 || armsHit > 0;
  // A signal declaration has toggle points only: missing bits make it partial, never "not executed".
  if (isDeclaration(lc, holes)) return lc.missingToggles.length || holes.length ? 'partial' : 'covered';
  if (!ran) return 'uncovered';
  const missingArm = armsHit < lc.branches.length;
  if (missingArm || lc.missingToggles.length > 0 || holes.length > 0) return 'partial';
  return 'covered';
}

/** Hover text: what ran, what did not, and what to do about it. */
export function hoverText(lc: LineCoverage | undefined, holes: readonly Hole[], state: LineState): string {
  const out: string[] = [];
  if (lc && isDeclaration(lc, holes)) {
    out.push(
      state === 'covered'
        ? '**CHORUS: covered** — every bit of these signals toggled both ways'
        : '**CHORUS: partly covered** — some bits never toggled',
    );
  } else if (state === 'covered') out.push(`**CHORUS: covered**${lc ? ` — ${plural(lc.hits, 'hit')}` : ''}`);
  else if (state === 'uncovered') out.push('**CHORUS: not covered** — no stimulus reached this line');
  else if (state === 'proven' && lc?.hits)
    out.push(`**CHORUS: covered** — ${plural(lc.hits, 'hit')}; what never ran here is proven unreachable`);
  else if (state === 'proven') out.push('**CHORUS: proven unreachable** — no stimulus can reach this line');
  else if (state === 'waived' && lc && ran(lc))
    out.push(
      `**CHORUS: covered**${lc.hits ? ` — ${plural(lc.hits, 'hit')};` : ' —'} what never ran here is waived (left out of the totals)`,
    );
  else if (state === 'waived')
    out.push('**CHORUS: waived** — excluded from the totals by the waiver file, as signoff tools count it');
  else out.push(`**CHORUS: partly covered**${lc ? ` — ${plural(lc.hits, 'hit')}` : ''}`);

  if (lc?.branches.length) {
    const arms = lc.branches.map((b) => {
      if (b.count > 0) return `${b.label} ×${b.count}`;
      const arm = armHole(holes, b.label);
      if (arm && waived(arm)) return `${b.label} waived (${arm.waiver.category})`;
      return excluded(arm ?? {}) ? `${b.label} proven unreachable` : `**${b.label} never taken**`;
    });
    out.push(`Branch arms: ${arms.join(', ')}`);
  }
  if (lc?.missingToggles.length) {
    out.push(`Toggle bits never seen: ${lc.missingToggles.map((t) => `\`${t}\``).join(', ')}`);
  }
  // Holes repeat what the table says, but in the engine's words (arm names, case items, unreachable reasons).
  const listed = new Set<string>();
  for (const h of holes) {
    const t = holeText(h);
    if (!listed.has(t)) out.push(t);
    listed.add(t);
  }
  if (state !== 'covered' && state !== 'proven' && state !== 'waived' && holes.some((h) => !excluded(h))) {
    out.push('_Run **CHORUS: Generate high-coverage stimulus** again, or steer the next round from the chat panel._');
  }
  return out.join('\n\n');
}

/** One mark per line that has coverage data or a hole, ordered by line. */
export function lineMarks(data: Pick<FileCoverageData, 'lines' | 'holes'>): LineMark[] {
  const byLine = new Map<number, { lc?: LineCoverage; holes: Hole[] }>();
  const entry = (line: number) => {
    let e = byLine.get(line);
    if (!e) byLine.set(line, (e = { holes: [] }));
    return e;
  };
  for (const lc of data.lines) {
    const e = entry(lc.line);
    // Several records for one line (one per instance) add up.
    e.lc = e.lc ? mergeLine(e.lc, lc) : lc;
  }
  for (const h of data.holes) if (h.line > 0) entry(h.line).holes.push(h);
  const dead = deadBlockLines(data.holes);
  return [...byLine.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([line, { lc, holes }]) => {
      const owner = dead.get(line);
      if (owner && lc && !holes.length && !ran(lc)) {
        if (waived(owner))
          return {
            line,
            state: 'waived' as const,
            hover: `**CHORUS: waived** — in the block of line ${owner.line} (${owner.detail}), ${waiverHover(owner.waiver)}`,
          };
        return {
          line,
          state: 'proven' as const,
          hover: `**CHORUS: proven unreachable** — in the block of line ${owner.line} (${owner.detail}), proven by ${proofText(owner) ?? ''}`,
        };
      }
      const state = lineState(lc, holes);
      return { line, state, hover: hoverText(lc, holes, state) };
    });
}

function ran(lc: LineCoverage): boolean {
  return lc.hits > 0 || lc.branches.some((b) => b.count > 0);
}

/** A hole's lines: its own and its span's (`pointLines`, the one reading of a span). */
export function holeLines(h: Pick<Hole, 'line' | 'span'>): number[] {
  return pointLines(h);
}

/**
 * The statements of dead or waived blocks: lines in the span of an excluded point (besides its own line), each
 * with that point. A line also in the span of an open hole is left out: it may be that hole's.
 */
export function deadBlockLines(holes: readonly Hole[]): Map<number, Hole> {
  const open = new Set(holes.filter((h) => !excluded(h) && h.kind !== 'toggle').flatMap(holeLines));
  const out = new Map<number, Hole>();
  // Proven owners first: a line in the span of a proof and of a waiver is dead code.
  for (const h of [...holes.filter(isProven), ...holes.filter(waived)]) {
    if (!excluded(h)) continue;
    for (const l of holeLines(h)) if (l !== h.line && !open.has(l) && !out.has(l)) out.set(l, h);
  }
  return out;
}

/** Adds up two records of one line (one per DUT instance). */
export function mergeLine(a: LineCoverage, b: LineCoverage): LineCoverage {
  const arms = new Map<string, number>();
  for (const x of [...a.branches, ...b.branches]) arms.set(x.label, (arms.get(x.label) ?? 0) + x.count);
  return {
    file: a.file,
    line: a.line,
    hits: a.hits + b.hits,
    branches: [...arms.entries()].map(([label, count]) => ({ label, count })),
    // A bit is missing only if no instance saw it.
    missingToggles: a.missingToggles.filter((t) => b.missingToggles.includes(t)),
    ...(a.kinds || b.kinds ? { kinds: [...new Set([...(a.kinds ?? []), ...(b.kinds ?? [])])] } : {}),
    ...(a.fsm || b.fsm ? { fsm: mergeFsm(a.fsm ?? [], b.fsm ?? []) } : {}),
  };
}

/** FSM states and arcs of two records of a line, counts added up by kind and label. */
function mergeFsm(
  a: NonNullable<LineCoverage['fsm']>,
  b: NonNullable<LineCoverage['fsm']>,
): NonNullable<LineCoverage['fsm']> {
  const out = new Map<string, { kind: 'fsm_state' | 'fsm_arc'; label: string; count: number }>();
  for (const f of [...a, ...b]) {
    const key = `${f.kind}\u0000${f.label}`;
    const prev = out.get(key);
    out.set(key, { ...f, count: (prev?.count ?? 0) + f.count });
  }
  return [...out.values()];
}

/** Groups lines and holes by the DUT file they belong to (both carry its absolute path). */
export function groupByFile(lines: readonly LineCoverage[], holes: readonly Hole[]): Map<string, FileCoverageData> {
  const out = new Map<string, FileCoverageData>();
  const get = (file: string) => {
    let d = out.get(file);
    if (!d) out.set(file, (d = { file, lines: [], holes: [] }));
    return d;
  };
  for (const l of lines) get(l.file).lines.push(l);
  for (const h of holes) get(h.file).holes.push(h);
  return out;
}
