/**
 * `--waivers <file>` in a run: the file read (absent: a first run starts it), checked against the run's points and
 * holes (src/engine/waivers/check.ts) and written back through the output rule, with the run's new proofs added and
 * a person's entries kept.
 */
import { readSourceText } from '../../hdl';
import { proverVersion } from '../../formal';
import type { CoveragePoint, Hole, WaiverReport } from '../../protocol';
import type { EngineServices } from '../api';
import type { RunContext } from '../context';
import { writeOutput } from '../outputs';
import { provePoints } from '../closure/provePoints';
import { checkWaivers, type ProofOf } from './check';
import { formatWaivers, readWaiverFile } from './file';

export interface WaiverFileOptions {
  /** The waiver file (absolute). */
  file: string;
  /** Replace a file at that path that CHORUS did not write. */
  force: boolean;
  /** The run's inputs: never the waiver file. */
  inputs: string[];
}

/** Checks the file against the run, writes it back, and returns the holes as waived and what changed. */
export async function applyWaiverFile(
  opts: WaiverFileOptions,
  ctx: RunContext,
  services: EngineServices,
  run: { points: CoveragePoint[]; holes: Hole[] },
): Promise<{ holes: Hole[]; report: WaiverReport }> {
  const entries = await readWaiverFile(opts.file);
  const defines = Object.fromEntries(Object.entries(ctx.design.defines ?? {}).map(([k, v]) => [k, v ?? '']));
  const outcome = await checkWaivers({
    file: opts.file,
    entries,
    points: run.points,
    holes: run.holes,
    dutInstance: ctx.instance,
    source: (file) => readSourceText(file).catch(() => undefined),
    proverVersion: proverVersion(),
    async reprove(points) {
      if (services.signal.aborted) return new Map();
      // The covered points go along so a proof never contradicts a simulation (provePoints guards on them).
      const covered = run.points.filter((p) => p.count > 0);
      const result = await provePoints(
        [...points, ...covered],
        { rtlFiles: ctx.rtlFiles, top: ctx.top.name },
        { includeDirs: ctx.design.includeDirs, defines, parameters: ctx.design.parameters, timeoutSeconds: 60 },
        { logger: services.logger, signal: services.signal },
      );
      const proofs = new Map<CoveragePoint, ProofOf>();
      result.verdicts.forEach((v, i) => {
        if (v.verdict.status === 'unreachable') proofs.set(result.points[i], v.verdict);
      });
      return proofs;
    },
  });
  await writeOutput(
    { path: opts.file, option: '--waivers', kind: 'waivers', force: opts.force, inputs: opts.inputs },
    formatWaivers(outcome.entries),
  );
  for (const s of outcome.report.stale)
    services.logger.warn(`${s.file}:${s.line}: stale ${s.category} waiver (${s.kind}): ${s.why}.`);
  return { holes: outcome.holes, report: outcome.report };
}
