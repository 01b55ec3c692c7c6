/** The model-free search's knobs and their defaults. */
import { availableParallelism } from 'node:os';
import type { FormalStageOptions } from './formal';

export interface SearchOptions {
  seed: number;
  budgetMs: number;
  /** When the run started (the design check and build count against the budget); default: when the search starts. */
  startedAt?: number | undefined;
  /** Upper bound on candidate runs; default none (the budget bounds the run). */
  maxRuns: number;
  /**
   * Stop after this many runs in a row without a new point; default never: the search switches strategy instead,
   * and ends at its targets, when only proven points are left, or at its budget.
   */
  stallRuns: number;
  simTimeoutMs: number;
  /** Candidates per reported round. */
  roundSize: number;
  /** Cycles of the plain random candidate run first (fresh inputs every cycle); 0: none. */
  plainCycles: number;
  /**
   * Measure the emitted testbench with its own Verilator build instead of re-running its table through the
   * already built harness (same rows, same timing, so the same points; the build costs as much as the harness's).
   */
  rebuildTestbench: boolean;
  /**
   * The formal stage (Yosys) on the holes the search stalls on, with its bounds; null: off. Proofs end the run
   * when only proven points are left; witnesses become candidates.
   */
  formal: FormalStageOptions | null;
  /**
   * The formal stage runs beside the search, on a core of its own, from the first holes on (the search goes on while
   * Yosys works, and its proofs can end the run early); false: the search waits for it, started on a stall. Default:
   * beside wherever there is more than one core.
   */
  formalBeside: boolean;
  /** Stop on raw coverage (`--require-raw`): points proven or waived are not left out of the targets. */
  requireRaw: boolean;
  /**
   * When the testbench's table is measured as its sequences are kept (liveTable.ts) instead of once at the finish:
   * 'costly' where a run's start is measured costly (a core; the default), 'always' on every design with a reset,
   * 'never'.
   */
  liveTable: 'costly' | 'always' | 'never';
}

export const DEFAULT_SEARCH: SearchOptions = {
  seed: 1,
  budgetMs: 60_000,
  maxRuns: Number.POSITIVE_INFINITY,
  stallRuns: Number.POSITIVE_INFINITY,
  simTimeoutMs: 20_000,
  roundSize: 50,
  plainCycles: 2_000,
  rebuildTestbench: false,
  formal: null,
  formalBeside: availableParallelism() > 1,
  requireRaw: false,
  liveTable: 'costly',
};
