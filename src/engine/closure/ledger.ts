/**
 * What the formal engine decided in a run, kept per run context so every measurement of the run (the search's
 * final testbench, each of the model's rounds) labels its holes the same way: proven unreachable, or why not.
 */
import { resolve } from 'node:path';
import { holeDetail } from '../../sim';
import { pointId, type CoveragePoint, type FormalSummary, type Hole, type Targets } from '../../protocol';
import type { FormalTarget, Verdict, Witness } from '../../formal';

interface Entry {
  kind: CoveragePoint['kind'];
  /** The hole text the point gets (`else branch never taken`), to tell points of one line apart. */
  detail: string;
  verdict: Verdict;
}

/**
 * The instance path below the DUT (`''` for the DUT itself) of a point's hierarchy (`TOP.tb.uut.u_fifo`), found by
 * the DUT's instance name; undefined when the path does not pass through it.
 */
export function instanceBelow(hierarchy: string | undefined, dutInstance: string): string | undefined {
  if (hierarchy === undefined) return undefined;
  const parts = hierarchy.split('.');
  const at = parts.indexOf(dutInstance, 1);
  return at < 0 ? undefined : parts.slice(at + 1).join('.');
}

const lineKey = (file: string, line: number, kind: string, instance: string | undefined) =>
  `${resolve(file)}\u0000${line}\u0000${kind}\u0000${instance ?? '*'}`;

/**
 * How a point was proven, as a hole's `unreachable` carries it (and `chorus prove` prints it). The register values
 * are an invariant of one step, so that proof is k-induction of depth 1 too (its `proof` says so); the text names it.
 */
export const proofText = (v: { depth: number; byRegisterValues?: true | undefined; byInvariant?: true | undefined }) =>
  v.byInvariant && !v.byRegisterValues
    ? 'an inductive invariant over several registers, found by PDR (IC3)'
    : `k-induction, depth ${v.depth}${v.byRegisterValues ? ' (the values its registers can hold)' : ''}`;

/** The point kinds the formal engine decides: line and branch arms, FSM states and arcs. */
export const isFormalKind = (kind: CoveragePoint['kind']): kind is FormalTarget['kind'] =>
  kind === 'line' || kind === 'branch' || kind === 'fsm_state' || kind === 'fsm_arc';

/** The kinds closure is judged on: line and branch always, FSM states and arcs when the run targets them. */
export const closureKind = (kind: CoveragePoint['kind'], targets: Targets = {}): boolean =>
  kind === 'line' || kind === 'branch' || ((kind === 'fsm_state' || kind === 'fsm_arc') && targets[kind] !== undefined);

export class FormalLedger {
  private readonly byLine = new Map<string, Entry[]>();
  /** Witness traces not yet replayed, with the point each was found for. */
  private pendingWitnesses: { witness: Witness; point: CoveragePoint }[] = [];
  /** Points a witness was found for (hierarchy-exact keys), to count those Verilator then hit. */
  private readonly witnessPoints = new Set<string>();
  ms = 0;
  runs = 0;
  /** Verdicts recorded so far: what a cached judgement on the ledger is keyed by. */
  version = 0;

  constructor(private readonly dutInstance: string) {}

  private pointKey(p: CoveragePoint): string {
    return pointId({
      ...p,
      file: resolve(p.file),
      hierarchy: instanceBelow(p.hierarchy, this.dutInstance) ?? p.hierarchy,
    });
  }

  /** Records one verdict for an uncovered point. A later verdict on the same point replaces the earlier one. */
  record(point: CoveragePoint, verdict: Verdict): void {
    const key = lineKey(point.file, point.line, point.kind, instanceBelow(point.hierarchy, this.dutInstance));
    const detail = holeDetail(point);
    const entries = (this.byLine.get(key) ?? []).filter((e) => e.detail !== detail);
    entries.push({ kind: point.kind, detail, verdict });
    this.byLine.set(key, entries);
    this.version++;
    if (verdict.status === 'witness') {
      this.pendingWitnesses.push({ witness: verdict.witness, point });
      this.witnessPoints.add(this.pointKey(point));
    }
  }

  /** Witnesses recorded since the last call (each handed out once, to be replayed). */
  takeWitnesses(): { witness: Witness; point: CoveragePoint }[] {
    const out = this.pendingWitnesses;
    this.pendingWitnesses = [];
    return out;
  }

  /** The verdicts recorded for a hole's line, kind and instance whose hole text the hole's detail starts with. */
  private entriesFor(file: string, line: number, kind: string, hierarchy: string | undefined, detail: string): Entry[] {
    const inst = instanceBelow(hierarchy, this.dutInstance);
    return (this.byLine.get(lineKey(file, line, kind, inst)) ?? []).filter((e) => detail.startsWith(e.detail));
  }

  /** The induction depth when the point is proven unreachable. */
  provenDepth(p: CoveragePoint): number | undefined {
    const entries = this.entriesFor(p.file, p.line, p.kind, p.hierarchy, holeDetail(p));
    if (!entries.length || !entries.every((e) => e.verdict.status === 'unreachable')) return undefined;
    return Math.max(...entries.map((e) => (e.verdict.status === 'unreachable' ? e.verdict.depth : 0)));
  }

  /** A hole with the formal engine's verdict: `unreachable` and `proof` when proven, else `formal` (why not). */
  annotate(h: Hole): Hole {
    if (!isFormalKind(h.kind)) return h;
    const entries = this.entriesFor(h.file, h.line, h.kind, h.hierarchy, h.detail);
    if (!entries.length) return h;
    if (entries.every((e) => e.verdict.status === 'unreachable')) {
      const depth = Math.max(...entries.map((e) => (e.verdict.status === 'unreachable' ? e.verdict.depth : 0)));
      const byRegisterValues = entries.every((e) => e.verdict.status === 'unreachable' && e.verdict.byRegisterValues);
      const byInvariant = entries.some((e) => e.verdict.status === 'unreachable' && e.verdict.byInvariant);
      const { formal: _formal, ...rest } = h;
      return {
        ...rest,
        unreachable: proofText({
          depth,
          ...(byRegisterValues ? { byRegisterValues } : {}),
          ...(byInvariant ? { byInvariant } : {}),
        }),
        proof: { method: 'induction', depth },
      };
    }
    const why = entries.map((e) => e.verdict).find((v) => v.status !== 'unreachable');
    const formal =
      why?.status === 'unknown'
        ? why.reason
        : 'the formal engine found an input trace that reaches it, but no measured testbench hit it in Verilator';
    return { ...h, formal };
  }

  /** The run's figures from its final points and holes (`ms` and `runs` as recorded). */
  summary(points: CoveragePoint[], holes: Hole[], targets?: Targets): FormalSummary {
    const structural = holes.filter((h) => closureKind(h.kind, targets));
    return {
      proven: structural.filter((h) => h.proof?.method === 'induction').length,
      witnesses: points.filter((p) => p.count > 0 && this.witnessPoints.has(this.pointKey(p))).length,
      unknown: structural.filter((h) => !h.proof).length,
      ms: this.ms,
    };
  }
}
