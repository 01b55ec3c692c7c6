/**
 * One untrusted request measured: its files in a private folder, the design's files through the sandbox rules,
 * then the engine's `measure` (the testbench's sandbox check, the jailed, bounded, cached build and run) in a build
 * slot, under the request's time and memory bounds, stopped when the client goes away.
 */
import { checkDesign, measure, type MeasureResult } from '../engine';
import { emptySummary, type Diagnostic, type Logger, type RunStatus } from '../protocol';
import type { ResolvedServeOptions } from './options';
import type { RequestFolder, RequestFolders } from './requestFolder';
import type { BuildSlots } from './slots';

export interface Measurement {
  /** Diagnostics and holes name files as the request named them. */
  result: MeasureResult;
  ms: number;
}

export interface MeasureJob {
  dut: string;
  svFiles: string[];
  tb: string;
  files: Record<string, string>;
  sha256?: Record<string, string> | undefined;
  timeoutSeconds?: number | undefined;
}

export interface EvaluateContext {
  options: ResolvedServeOptions;
  slots: BuildSlots;
  logger: Logger;
  signal: AbortSignal;
  folders: RequestFolders;
}

/** Measures the job's testbench; `render` turns the result into the answer while the folder still exists. */
export async function measureJob<T>(
  job: MeasureJob,
  ctx: EvaluateContext,
  render: (m: Measurement, folder: RequestFolder) => T,
): Promise<T> {
  const started = Date.now();
  // Refused (429) before any file is written: a full queue costs nothing.
  const release = await ctx.slots.acquire(ctx.signal);
  try {
    const folder = await ctx.folders.open(job.files, job.svFiles, job.tb, job.sha256);
    try {
      const rtl = job.svFiles.map(folder.path);
      const seconds = Math.min(job.timeoutSeconds ?? ctx.options.defaultTimeoutSeconds, ctx.options.maxTimeoutSeconds);
      // The simulation has its own bound; this one also covers the checks and the build (a compiler that hangs).
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(Math.max(60, 4 * seconds) * 1000)]);
      let measured: MeasureResult;
      try {
        const designProblems = await checkDesign(rtl, {
          verilatorPath: ctx.options.verilatorPath,
          workspaceRoot: folder.dir,
          signal,
          memoryLimitBytes: ctx.options.memoryLimitBytes,
        });
        measured = designProblems.length
          ? failedRun(
              'rejected',
              designProblems,
              'The design uses a construct the sandbox does not allow; it was not built.',
            )
          : await measure(
              { rtlFiles: rtl, testbench: folder.path(job.tb), top: job.dut, timeoutMs: seconds * 1000 },
              {
                logger: ctx.logger,
                signal,
                verilatorPath: ctx.options.verilatorPath,
                workspaceRoot: folder.dir,
                memoryLimitBytes: ctx.options.memoryLimitBytes,
                cacheMaxBytes: ctx.options.cacheMaxBytes,
              },
            );
      } catch (err) {
        // The request's own deadline, not its client: an answer, with the run's status.
        if (ctx.signal.aborted || !signal.aborted) throw err;
        measured = failedRun(
          'timeout',
          [],
          `The request did not finish within its ${Math.max(60, 4 * seconds)} s bound.`,
        );
      }
      return render({ result: namedAsSent(measured, folder), ms: Date.now() - started }, folder);
    } finally {
      await folder.dispose();
    }
  } finally {
    release();
  }
}

/** A run that measured nothing: a design the sandbox refuses (never built), a request past its deadline. */
function failedRun(status: RunStatus, diagnostics: Diagnostic[], note: string): MeasureResult {
  return {
    status,
    coverage: emptySummary(),
    instances: {},
    holes: [],
    diagnostics,
    ms: { build: 0, sim: 0 },
    notes: [note],
    points: [],
    cacheHit: false,
  };
}

/** The request's own file names in every message: the private folder's path is the server's business. */
function namedAsSent(r: MeasureResult, folder: RequestFolder): MeasureResult {
  const text = folder.named;
  const diag = (d: Diagnostic): Diagnostic => ({ ...d, file: folder.display(d.file), message: text(d.message) });
  return {
    ...r,
    diagnostics: r.diagnostics.map(diag),
    designWarnings: (r.designWarnings ?? []).map(diag),
    holes: r.holes.map((h) => ({ ...h, file: folder.display(h.file) })),
    ...(r.simOutput !== undefined ? { simOutput: text(r.simOutput) } : {}),
  };
}
