/**
 * FSM (and expression) coverage around one measured run: the build flags and bound probe before it, the
 * `fsm_state`/`fsm_arc` points after it. Verilator's native FSM coverage (`--coverage-fsm`, 5.048+) and
 * expression coverage (`--coverage-expr`, 5.034+) are turned on where the Verilator in use has them.
 */
import { basename } from 'node:path';
import { silentLogger, type CoveragePoint, type Diagnostic, type FsmModel } from '../../protocol';
import { buildSimulation, type BuildResultDetail } from '../verilator/build';
import { cacheRoot } from '../cache/cacheDir';
import { readCoverageFile } from './coverageFile';
import { fsmPointsFromProbe, fsmProbe, mergeNativeFsm, writeFsmProbe, type FsmProbe } from './fsmProbe';
import type { BuildInput, SimOptions } from '../types';
import { detectVerilator } from '../verilator/verilator';

export interface FsmPlan {
  probe?: FsmProbe;
  probeFile?: string;
  /** Flags for the build: native FSM and expression coverage where supported, then the probe file. */
  flags: string[];
}

export async function planFsmCoverage(fsms: FsmModel[] | undefined, opts: SimOptions): Promise<FsmPlan> {
  const { features } = await detectVerilator(opts.verilatorPath);
  const flags = [
    ...(features.coverageFsm ? ['--coverage-fsm'] : []),
    ...(features.coverageExpr ? ['--coverage-expr'] : []),
  ];
  const probe = fsms?.length ? fsmProbe(fsms) : undefined;
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

/**
 * Builds with FSM coverage: the probe and native flags added to the input's; when Verilator rejects the probe
 * itself, built again without it (with a note). The probe's own messages are left out of the result.
 */
export async function buildWithFsm(
  input: BuildInput,
  fsms: FsmModel[] | undefined,
  opts: SimOptions,
): Promise<{ build: BuildResultDetail; plan: FsmPlan }> {
  const logger = opts.logger ?? silentLogger;
  let plan = await planFsmCoverage(fsms, opts);
  const flagged = (p: FsmPlan): BuildInput => ({ ...input, extraFlags: [...(input.extraFlags ?? []), ...p.flags] });
  let build = await buildSimulation(flagged(plan), opts);
  const rejected =
    build.status === 'compile_error'
      ? build.diagnostics.find((d) => d.severity === 'error' && isProbeDiagnostic(plan, d))
      : undefined;
  if (rejected) {
    logger.info(`FSM coverage probe rejected by Verilator (${rejected.message}); building without it.`);
    const first = plan;
    plan = withoutProbe(plan);
    build = await buildSimulation(flagged(plan), opts);
    build = {
      ...build,
      notes: [
        ...build.notes,
        `FSM state and arc coverage is left out: Verilator rejected CHORUS's FSM probe for this design (${rejected.message}).`,
      ],
    };
    build = { ...build, diagnostics: build.diagnostics.filter((d) => !isProbeDiagnostic(first, d)) };
  }
  return {
    build: {
      ...build,
      diagnostics: build.diagnostics.filter((d) => !isProbeDiagnostic(plan, d)),
      designWarnings: build.designWarnings?.filter((d) => !isProbeDiagnostic(plan, d)),
    },
    plan,
  };
}

/** A run's coverage file read as `readCoverageFile` does, with the FSM points of `plan` (see `fsmPoints`). */
export async function readCoverageWithFsm(
  path: string,
  dutFiles: string[],
  plan: FsmPlan,
): Promise<ReturnType<typeof fsmPoints>> {
  const files = plan.probeFile ? [...dutFiles, plan.probeFile] : dutFiles;
  return fsmPoints(await readCoverageFile(path, files), plan);
}

/**
 * The run's points with the probe's user points turned into FSM points and Verilator's native FSM points
 * merged in; `native` as read, for checks that the two agree.
 */
export function fsmPoints(
  points: CoveragePoint[],
  plan: FsmPlan,
): { points: CoveragePoint[]; native: CoveragePoint[]; disagreements: string[] } {
  const native = points.filter((p) => p.kind === 'fsm_state' || p.kind === 'fsm_arc');
  const rest = points.filter((p) => p.file !== plan.probeFile && p.kind !== 'fsm_state' && p.kind !== 'fsm_arc');
  const chorus = plan.probe && plan.probeFile ? fsmPointsFromProbe(points, plan.probe, plan.probeFile) : [];
  const merged = mergeNativeFsm(chorus, native);
  return { points: [...rest, ...merged.points], native, disagreements: merged.disagreements };
}
