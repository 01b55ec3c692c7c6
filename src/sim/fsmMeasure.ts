/**
 * FSM (and expression) coverage around one measured run: the build flags and bound probe before it, the
 * `fsm_state`/`fsm_arc` points after it. Verilator's native FSM coverage (`--coverage-fsm`, 5.048+) and
 * expression coverage (`--coverage-expr`, 5.034+) are turned on where the Verilator in use has them.
 */
import { basename } from 'node:path';
import type { CoveragePoint, Diagnostic } from '../protocol';
import { cacheRoot } from './cacheDir';
import { fsmPointsFromProbe, fsmProbe, mergeNativeFsm, writeFsmProbe, type FsmProbe } from './fsmProbe';
import type { MeasureInput, SimOptions } from './types';
import { detectVerilator } from './verilator';

export interface FsmPlan {
  probe?: FsmProbe;
  probeFile?: string;
  /** Flags for the build: native FSM and expression coverage where supported, then the probe file. */
  flags: string[];
}

export async function planFsmCoverage(input: MeasureInput, opts: SimOptions): Promise<FsmPlan> {
  const { features } = await detectVerilator(opts.verilatorPath);
  const flags = [...(features.coverageFsm ? ['--coverage-fsm'] : []), ...(features.coverageExpr ? ['--coverage-expr'] : [])];
  const probe = input.fsms?.length ? fsmProbe(input.fsms) : undefined;
  if (!probe) return { flags };
  const probeFile = await writeFsmProbe(probe, cacheRoot(opts.cacheDir));
  return { probe, probeFile, flags: [...flags, probeFile] };
}

/** The plan without the probe: what a build that Verilator rejected because of the probe is retried with. */
export function withoutProbe(plan: FsmPlan): FsmPlan {
  return { flags: plan.flags.filter((f) => f !== plan.probeFile) };
}

/** True when a diagnostic is about the probe file (an error there is CHORUS's, not the user's). */
export function isProbeDiagnostic(plan: FsmPlan, d: Diagnostic): boolean {
  return Boolean(plan.probeFile) && (d.file === plan.probeFile || basename(d.file) === basename(plan.probeFile ?? ''));
}

/** Files the coverage reader keeps points of: the DUT's, and the probe's (turned into FSM points by `fsmPoints`). */
export function coverageFiles(input: MeasureInput, plan: FsmPlan): string[] {
  return plan.probeFile ? [...input.dutFiles, plan.probeFile] : input.dutFiles;
}

/**
 * The run's points with the probe's user points turned into FSM points and Verilator's native FSM points
 * merged in; `native` as read, for checks that the two agree.
 */
export function fsmPoints(points: CoveragePoint[], plan: FsmPlan): { points: CoveragePoint[]; native: CoveragePoint[]; disagreements: string[] } {
  const native = points.filter((p) => p.kind === 'fsm_state' || p.kind === 'fsm_arc');
  const rest = points.filter((p) => p.file !== plan.probeFile && p.kind !== 'fsm_state' && p.kind !== 'fsm_arc');
  const chorus = plan.probe && plan.probeFile ? fsmPointsFromProbe(points, plan.probe, plan.probeFile) : [];
  const merged = mergeNativeFsm(chorus, native);
  return { points: [...rest, ...merged.points], native, disagreements: merged.disagreements };
}
