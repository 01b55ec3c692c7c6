/**
 * Formal closure's building block: uncovered points of a measurement handed to the formal engine, which proves
 * each unreachable, finds a witness trace, or says why not; a proof a simulation contradicts is never kept.
 */
import { resolve } from 'node:path';
import { prove, type FormalTarget, type ProveResult, type StartState, type TargetVerdict } from '../../formal';
import { readSourceText } from '../../hdl';
import { pointId, siteId, type CoveragePoint, type Logger } from '../../protocol';
import { isFormalKind } from './ledger';

export type { FormalTarget, ProveResult, StartState, TargetVerdict, Witness, StimulusRow, Verdict } from '../../formal';
export { MAX_START_CYCLES } from '../../formal';

export interface FormalOptions {
  includeDirs?: string[] | undefined;
  defines?: Record<string, string>;
  /** Top-level parameter overrides (Verilog constant text). */
  parameters?: Record<string, string> | undefined;
  /** Wall-clock bound of the whole formal run, seconds (default 120). */
  timeoutSeconds?: number | undefined;
  /** The run's bound once it turns out to prove only (no witness comes back), seconds. */
  proofsOnlyTimeoutSeconds?: number | undefined;
  /** Bound of one point's SAT problem, seconds (default 10). */
  pointTimeoutSeconds?: number;
  /** Longest induction and witness search, cycles (default 24). */
  maxDepth?: number | undefined;
  /** States a simulation reached: witnesses for points past the bound from reset are searched from them. */
  starts?: StartState[] | undefined;
  /** Memory bound of Yosys, MiB (default 2048). */
  memoryMb?: number | undefined;
}

export interface FormalServices {
  logger: Logger;
  signal: AbortSignal;
  /** Told when the run turns out to prove only (several clocks: no witness comes back). */
  onProofsOnly?: () => void;
}

export interface ProvePointsResult extends ProveResult {
  /** The uncovered point each verdict is for (one per source site and instance), in the verdicts' order. */
  points: CoveragePoint[];
}

/** A point's place in the source (every instance of a module shares it). */
const siteKey = (p: { file: string; line: number; column: number; kind: string; comment: string }) =>
  siteId({ ...p, file: resolve(p.file), kind: p.kind as CoveragePoint['kind'] });

/**
 * Verdicts for the uncovered line and branch points of a measurement (`points` as `measure` or a run returns
 * them). A point any simulation hit is never labelled unreachable: such a verdict becomes `unknown`.
 */
export async function provePoints(
  points: CoveragePoint[],
  design: { rtlFiles: string[]; top: string },
  opts: FormalOptions,
  services: FormalServices,
): Promise<ProvePointsResult> {
  // Instances that hit each source point: a proof about one of them must not contradict a simulation.
  const hitBy = new Map<string, Set<string>>();
  for (const p of points.filter((x) => x.count > 0))
    hitBy.set(siteKey(p), (hitBy.get(siteKey(p)) ?? new Set()).add(p.hierarchy));
  // The DUT's own instance path (`TOP.tb.uut`): what a point's hierarchy starts with.
  const root = points.find((p) => p.module === design.top)?.hierarchy;
  const seen = new Set<string>();
  const targets: FormalTarget[] = [];
  const of: CoveragePoint[] = [];
  for (const p of points) {
    if (p.count > 0 || !isFormalKind(p.kind)) continue;
    const key = pointId({ ...p, file: resolve(p.file) });
    if (seen.has(key)) continue;
    seen.add(key);
    const t: FormalTarget = { file: resolve(p.file), line: p.line, column: p.column, kind: p.kind, comment: p.comment };
    if (root !== undefined && (p.hierarchy === root || p.hierarchy.startsWith(`${root}.`)))
      t.instance = p.hierarchy.slice(root.length + 1);
    targets.push(t);
    of.push(p);
  }
  const files = [...new Set(design.rtlFiles.map((f) => resolve(f)))];
  const sources = await Promise.all(files.map(async (file) => ({ file, content: await readSourceText(file) })));
  const result = await prove(
    {
      sources,
      top: design.top,
      targets,
      defines: opts.defines,
      includeDirs: opts.includeDirs,
      parameters: opts.parameters,
      runTimeoutSeconds: opts.timeoutSeconds,
      proofsOnlyTimeoutSeconds: opts.proofsOnlyTimeoutSeconds,
      pointTimeoutSeconds: opts.pointTimeoutSeconds,
      maxDepth: opts.maxDepth,
      starts: opts.starts,
      ...(opts.memoryMb !== undefined ? { memoryMb: opts.memoryMb } : {}),
    },
    services,
  );
  const guarded = result.verdicts.map((v): TargetVerdict => {
    if (v.verdict.status !== 'unreachable') return v;
    const hierarchies = hitBy.get(siteKey(v.target));
    const path =
      v.target.instance === undefined || root === undefined
        ? undefined
        : v.target.instance
          ? `${root}.${v.target.instance}`
          : root;
    const contradicted = hierarchies !== undefined && (path === undefined || hierarchies.has(path));
    return contradicted
      ? { ...v, verdict: { status: 'unknown', reason: 'a simulation reached this point: the proof is not trusted' } }
      : v;
  });
  return { ...result, verdicts: guarded, points: of };
}
