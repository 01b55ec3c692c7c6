/**
 * A waiver file against a run: each entry re-anchored by its fingerprint, matched to the run's points (whatever
 * instance path the testbench gives the DUT), applied to the holes it waives; `UNR` entries whose text changed are
 * proven again, or go stale; points the run proved are added as `UNR` entries; a person's entries are kept.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import type { CoveragePoint, Hole, WaiverReport } from '../../protocol';
import { holeDetail } from '../../sim';
import { instanceBelow, proofText } from '../closure/ledger';
import { fingerprintAt, reanchor, spanOffsets } from './fingerprint';
import type { WaiverEntry } from './file';

/** A point proven again: the induction's depth, and whether the register values or PDR decided it (`proofText`). */
export interface ProofOf {
  depth: number;
  byRegisterValues?: true | undefined;
  byInvariant?: true | undefined;
}

export interface WaiverRun {
  /** The waiver file (absolute): entries name files relative to its folder. */
  file: string;
  entries: WaiverEntry[];
  points: CoveragePoint[];
  holes: Hole[];
  /** The DUT's instance name in the testbench: points are matched by their path below it. */
  dutInstance: string;
  /** Source text by absolute path; undefined for a file that cannot be read. */
  source(file: string): Promise<string | undefined>;
  /** Proves points again (those whose waived text changed); the induction depth of each one proven, by point. */
  reprove?(points: CoveragePoint[]): Promise<Map<CoveragePoint, ProofOf>>;
  /** The prover as a proof records it. */
  proverVersion: string;
}

export interface WaiverOutcome {
  entries: WaiverEntry[];
  holes: Hole[];
  report: WaiverReport;
}

const CHANGED = 'the text of its lines changed since it was waived: review the point, then update or delete the entry';

/** A hole is a point's when it sits at the point's place and says what the point missed. */
export const holeOf = (h: Hole, p: CoveragePoint) =>
  resolve(h.file) === resolve(p.file) &&
  h.line === p.line &&
  h.kind === p.kind &&
  (h.hierarchy ?? '') === p.hierarchy &&
  h.detail.startsWith(holeDetail(p));

/** What a hole carries of the entry that waives it. */
export function holeWaiver(e: WaiverEntry): NonNullable<Hole['waiver']> {
  return {
    category: e.category,
    reason: e.reason,
    ...(e.who ? { who: e.who } : {}),
    ...(e.category === 'UNR' && e.proofMethod
      ? {
          proof: {
            method: e.proofMethod,
            ...(e.proofDepth !== undefined ? { depth: e.proofDepth } : {}),
            ...(e.proofTool ? { tool: e.proofTool } : {}),
          },
        }
      : {}),
  };
}

/** The point an entry names at a line: file, line, kind, point name, and its instance (`*`: every one). */
export function namesPoint(
  e: Pick<WaiverEntry, 'kind' | 'point' | 'instance'>,
  file: string,
  line: number,
  instanceOf: (p: CoveragePoint) => string,
): (p: CoveragePoint) => boolean {
  return (p) =>
    resolve(p.file) === file &&
    p.line === line &&
    p.kind === e.kind &&
    p.comment === e.point &&
    (e.instance === '*' || instanceOf(p) === e.instance);
}

/**
 * Where an entry's text stands now: its line re-anchored by its fingerprint (a person's new entry takes the
 * fingerprint of the text at the line it names), or undefined when the text changed.
 */
export function anchorEntry(e: WaiverEntry, lines: readonly string[]): number | undefined {
  const offsets = spanOffsets(e.line, e.span);
  if (!e.fingerprint) e.fingerprint = fingerprintAt(lines, e.line, offsets) ?? '';
  return reanchor(lines, e.line, offsets, e.fingerprint);
}

export async function checkWaivers(run: WaiverRun): Promise<WaiverOutcome> {
  const base = dirname(run.file);
  const texts = new Map<string, string[] | undefined>();
  const linesOf = async (file: string) => {
    if (!texts.has(file)) texts.set(file, (await run.source(file))?.split('\n'));
    return texts.get(file);
  };
  const instanceOf = (p: CoveragePoint) => instanceBelow(p.hierarchy, run.dutInstance) ?? p.hierarchy;
  const pointsAt = (file: string, line: number, e: WaiverEntry) =>
    run.points.filter(namesPoint(e, file, line, instanceOf));
  const holes = run.holes.map((h) => ({ ...h }));
  const report: WaiverReport = { file: run.file, entries: 0, applied: 0, added: 0, moved: 0, reproven: 0, stale: [] };
  const claimed = new Set<Hole>();
  const entries: WaiverEntry[] = [];
  const toReprove: { entry: WaiverEntry; points: CoveragePoint[]; file: string }[] = [];

  /** Applies a current entry to its points' holes; a simulation that covered an `UNR` point makes it stale. */
  const apply = (e: WaiverEntry, pts: CoveragePoint[]) => {
    if (e.category === 'UNR' && pts.some((p) => p.count > 0)) {
      e.stale = 'a simulation covered this point: the proof no longer holds (delete the entry)';
      return;
    }
    delete e.stale;
    for (const p of pts) {
      for (const h of holes.filter((x) => holeOf(x, p) && !claimed.has(x))) {
        claimed.add(h);
        if (h.proof && e.category === 'UNR') {
          // Proven again in this run: the entry carries the newest proof.
          e.proofMethod = h.proof.method;
          if (h.proof.depth !== undefined) e.proofDepth = h.proof.depth;
          else delete e.proofDepth;
          e.reason = h.unreachable ?? e.reason;
          continue;
        }
        h.waiver = holeWaiver(e);
        report.applied++;
      }
    }
  };

  for (const original of run.entries) {
    const e: WaiverEntry = { ...original };
    entries.push(e);
    const file = resolve(base, e.file);
    const lines = await linesOf(file);
    if (!lines) {
      e.stale = `${e.file} cannot be read: restore it, or delete the entry`;
      continue;
    }
    const at = anchorEntry(e, lines);
    if (at !== undefined) {
      if (at !== e.line) {
        report.moved++;
        if (e.span) e.span = shiftSpan(e.span, at - e.line);
        e.line = at;
      }
      const pts = pointsAt(file, at, e);
      if (!pts.length) e.stale = `no ${e.kind} point '${e.point}' at this line in this build`;
      else apply(e, pts);
      continue;
    }
    const inPlace = pointsAt(file, e.line, e);
    if (e.category === 'UNR' && inPlace.length && inPlace.every((p) => p.count === 0))
      toReprove.push({ entry: e, points: inPlace, file });
    else e.stale = CHANGED;
  }

  // Changed UNR entries: the run's own proof, else one more proof of those points alone, else stale.
  const unproven = toReprove.filter((r) => !r.points.every((p) => holes.some((h) => holeOf(h, p) && h.proof)));
  const proofs =
    unproven.length && run.reprove
      ? await run.reprove(unproven.flatMap((r) => r.points))
      : new Map<CoveragePoint, ProofOf>();
  for (const r of toReprove) {
    for (const p of r.points) {
      const proof = proofs.get(p);
      if (proof === undefined) continue;
      for (const h of holes.filter((x) => holeOf(x, p) && !x.proof)) {
        h.unreachable = proofText(proof);
        h.proof = { method: 'induction', depth: proof.depth };
        delete h.formal;
      }
    }
    const proven = r.points.every((p) => holes.some((h) => holeOf(h, p) && h.proof));
    if (!proven) {
      r.entry.stale = `${CHANGED} (the formal engine did not prove it again)`;
      continue;
    }
    const lines = (await linesOf(r.file)) ?? [];
    r.entry.fingerprint = fingerprintAt(lines, r.entry.line, spanOffsets(r.entry.line, r.entry.span)) ?? '';
    r.entry.proofTool = run.proverVersion;
    report.reproven++;
    apply(r.entry, r.points);
  }

  // Points this run proved that no entry names: new UNR entries, signed by CHORUS.
  for (const h of holes) {
    if (!h.proof || claimed.has(h)) continue;
    const p = run.points.find((x) => x.count === 0 && holeOf(h, x));
    if (!p) continue;
    const file = resolve(p.file);
    const lines = await linesOf(file);
    const fingerprint = lines && fingerprintAt(lines, p.line, spanOffsets(p.line, p.span));
    if (!fingerprint) continue;
    claimed.add(h);
    entries.push({
      file: relative(base, file).split(sep).join('/'),
      line: p.line,
      column: p.column,
      kind: p.kind,
      point: p.comment,
      instance: instanceOf(p),
      module: p.module,
      ...(p.span ? { span: p.span } : {}),
      category: 'UNR',
      reason: h.unreachable ?? 'proven unreachable',
      who: 'chorus',
      proofMethod: h.proof.method,
      ...(h.proof.depth !== undefined ? { proofDepth: h.proof.depth } : {}),
      proofTool: h.proof.method === 'induction' ? run.proverVersion : 'chorus analysis',
      fingerprint,
    });
    report.added++;
  }
  report.entries = entries.length;
  report.stale = entries
    .filter((e) => e.stale)
    .map((e) => ({
      file: resolve(base, e.file),
      line: e.line,
      kind: e.kind,
      category: e.category,
      why: e.stale ?? '',
    }));
  return { entries, holes, report };
}

/** A span (`10-11`, `12,14`) moved by `d` lines. */
function shiftSpan(span: string, d: number): string {
  return span.replace(/\d+/g, (n) => String(Number(n) + d));
}
