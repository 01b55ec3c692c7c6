/** Measures a round's candidate testbench: the instantiation check, the best report reused for NO_CHANGES, or a build and run. */
import { emptySummary, isAbortError, type CoveragePoint, type CoverageReport } from '../../protocol';
import type { EngineServices } from '../api';
import type { RunContext } from '../context';
import { evaluateTestbench, instantiationProblem } from '../evaluate';
import { simOptionsFor } from '../simOptions';
import type { Attempt } from './attempt';
import type { Candidate } from './parseAndPatch';

export interface Measurement {
  report: CoverageReport;
  points: CoveragePoint[];
}

function failedReport(status: CoverageReport['status'], file: string, message: string): CoverageReport {
  return {
    status,
    coverage: emptySummary(),
    instances: {},
    holes: [],
    diagnostics: [{ file, line: 1, column: 0, severity: 'error', message }],
    ms: { build: 0, sim: 0 },
  };
}

/** The candidate's measured report and points, or null when the run was cancelled while it was measured. */
export async function evaluateCandidate(
  ctx: RunContext,
  services: EngineServices,
  candidate: Candidate & { testbench: string },
  best: { attempt: Attempt | null; points: CoveragePoint[] },
  simTimeoutMs: number | undefined,
): Promise<Measurement | null> {
  const problem = instantiationProblem(candidate.testbench, ctx.top.name, ctx.instance);
  if (problem) return { report: failedReport('compile_error', candidate.filename, problem), points: [] };
  if (candidate.parsed.type === 'no_changes' && best.attempt?.report)
    return { report: best.attempt.report, points: best.points };
  try {
    const ev = await evaluateTestbench(ctx, candidate.testbench, {
      filename: candidate.filename,
      sim: simOptionsFor(ctx, services),
      timeoutMs: simTimeoutMs,
    });
    return { report: ev.report, points: ev.points };
  } catch (err) {
    if (isAbortError(err) || services.signal.aborted) return null;
    throw err;
  }
}
