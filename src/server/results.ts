/** The last finished run per DUT file, for lenses, hover, diagnostics and `chorus/coverage`. */
import type { CoveragePoint, GenerateResult, LineCoverage } from '../protocol';

export interface StoredRun {
  /** The run's wire result. */
  result: GenerateResult;
  /** Its measured points, kept here for the lcov export. */
  points: CoveragePoint[];
  /** Absolute paths of the DUT files the run measured. */
  files: string[];
  finishedAt: number;
}

export class ResultStore {
  private readonly byFile = new Map<string, StoredRun>();

  set(run: StoredRun): void {
    for (const f of run.files) this.byFile.set(f, run);
  }

  get(file: string): StoredRun | undefined {
    return this.byFile.get(file);
  }

  /** Line hits of one file from its last run. */
  lines(file: string): LineCoverage[] {
    const run = this.byFile.get(file);
    return (run?.result.lines ?? []).filter((l) => l.file === file);
  }
}
