/**
 * Proven-unreachable points and a run's closure, in words: one reading for the hover, the gutter, diagnostics,
 * the Test Coverage view and the chat panel. Pure.
 */
import type { FormalSummary, Hole } from './coverage';

/** A hole proven unreachable (k-induction or the analysis' rule): not a hole to chase. */
export function isProven(h: Pick<Hole, 'unreachable'>): boolean {
  return !!h.unreachable;
}

/**
 * A point a signoff excludes from its kind's total: proven unreachable in this run, or waived by an entry of the
 * waiver file. The one rule of the verdict (src/engine/verdict.ts judges with it) and of the editor's totals.
 */
export function isExcluded(h: Pick<Hole, 'proof' | 'waiver'>): boolean {
  return h.proof !== undefined || h.waiver !== undefined;
}

/** A point excluded by a waiver and not by a proof of this run (a person's entry, or a kept `UNR` proof). */
export function isWaived(h: Pick<Hole, 'proof' | 'waiver'>): boolean {
  return h.proof === undefined && h.waiver !== undefined;
}

/**
 * `LOW_RISK waiver by ana: tied off in this SoC`, `UNR waiver by chorus: k-induction, depth 1 (proof: induction,
 * depth 1, yosys 0.55)`; undefined when the point is not waived.
 */
export function waiverText(h: Pick<Hole, 'proof' | 'waiver'>): string | undefined {
  const w = h.waiver;
  if (!w || h.proof) return undefined;
  const proof = w.proof
    ? ` (proof: ${[w.proof.method, w.proof.depth !== undefined ? `depth ${w.proof.depth}` : '', w.proof.tool ?? '']
        .filter(Boolean)
        .join(', ')})`
    : '';
  return `${w.category} waiver${w.who ? ` by ${w.who}` : ''}: ${w.reason}${proof}`;
}

/** `k-induction (depth 3)`, `analysis: the state register holds only 5 values`; undefined when not proven. */
export function proofText(h: Pick<Hole, 'unreachable' | 'proof'>): string | undefined {
  if (!h.unreachable) return undefined;
  if (h.proof?.method === 'induction')
    return `k-induction${h.proof.depth !== undefined ? ` (depth ${h.proof.depth})` : ''}`;
  // A label without `proof` comes from the analysis, the only other prover.
  return `analysis: ${h.unreachable}`;
}

/** `Proven unreachable by k-induction (depth 3)`; undefined when not proven. */
export function provenText(h: Pick<Hole, 'unreachable' | 'proof'>): string | undefined {
  const proof = proofText(h);
  return proof === undefined ? undefined : `Proven unreachable by ${proof}`;
}

/** Why the formal engine left an unproven hole undecided, in words; undefined when it gave no reason. */
export function formalText(h: Pick<Hole, 'unreachable' | 'formal'>): string | undefined {
  return h.formal && !h.unreachable ? `formal engine: no proof and no confirmed witness (${h.formal})` : undefined;
}

/**
 * The hole of the branch arm `label` (Verilator's comment: `if`, `else`, `case`) among a line's holes: a branch
 * hole's detail starts with `<comment> arm` (see `holeDetail` in src/sim/coverage/holes.ts).
 */
export function armHole(holes: readonly Hole[], label: string): Hole | undefined {
  return holes.find((h) => h.kind === 'branch' && h.detail.startsWith(`${label} arm`));
}

/** Line and branch holes neither proven nor waived: what keeps a run from being closed. */
export function openPoints(holes: readonly Hole[]): Hole[] {
  return holes.filter((h) => (h.kind === 'line' || h.kind === 'branch') && !isProven(h) && !isExcluded(h));
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * `Closed: every line and branch point covered or proven unreachable`, or `3 points neither covered nor proven`;
 * undefined for a result that says nothing about closure (no `closed`, no formal run).
 */
export function closureText(r: {
  holes: readonly Hole[];
  closed?: boolean | undefined;
  formal?: FormalSummary | undefined;
}): string | undefined {
  // Waived points are named only in a run that has them, so a run without a waiver file reads as before.
  const waivers = r.holes.some((h) => h.waiver !== undefined);
  if (r.closed)
    return `Closed: every line and branch point covered${waivers ? ', proven unreachable or waived' : ' or proven unreachable'}`;
  if (r.closed === undefined && !r.formal) return undefined;
  const open = openPoints(r.holes).length;
  return `${plural(open, 'line/branch point', 'line/branch points')} neither covered nor ${waivers ? 'excluded (proven or waived)' : 'proven unreachable'}`;
}

/** `formal: 2 proven unreachable · 1 witness · 0 unknown · 1.3 s in Yosys`. */
export function formalSummaryText(f: FormalSummary): string {
  const secs = f.ms >= 10_000 ? Math.round(f.ms / 1000).toString() : (f.ms / 1000).toFixed(1);
  return `formal: ${f.proven} proven unreachable · ${plural(f.witnesses, 'witness', 'witnesses')} · ${f.unknown} unknown · ${secs} s in Yosys`;
}
