/**
 * The search's formal stage as a step: started once, bounded by what is left of the budget, its verdicts in the
 * run's ledger and its witnesses handed back as candidates. Beside the search (a core of its own) it starts as soon
 * as the first runs leave holes and the search goes on; otherwise the search waits for it, started when the search
 * stops finding points.
 */
import { basename } from 'node:path';
import type { CoveragePoint } from '../../protocol';
import type { EngineServices } from '../api';
import type { RunContext } from '../context';
import { proveSearchHoles, startStates, witnessCandidate, type FormalStageOptions } from './formal';
import type { HarnessPlan } from './harness';
import type { Kept } from './shrink';
import type { Candidate } from './stimulus';

/** The formal stage is not started with less than this left of the budget: loading Yosys alone takes seconds. */
const MIN_FORMAL_MS = 4_000;

export class FormalStage {
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private settled = false;
  private collected = false;
  /** Set once its read shows several clocks: it proves only, so no witness will come back from it. */
  private proofsOnly = false;
  ms = 0;

  constructor(
    private readonly ctx: RunContext,
    private readonly services: EngineServices,
    private readonly plan: HarnessPlan,
    private readonly bounds: FormalStageOptions | null,
  ) {
    services.signal.addEventListener('abort', this.stop, { once: true });
  }

  private readonly stop = () => this.abort.abort();

  /** Whether it ran to its end and its witnesses are not collected yet. */
  get ready(): boolean {
    return this.settled && !this.collected;
  }

  /** Whether the stage may start with `leftMs` of budget (enabled, not started, enough time). */
  canStart(leftMs: number): boolean {
    return this.bounds !== null && !this.running && leftMs >= MIN_FORMAL_MS;
  }

  /** Whether it was started and has not ended yet. */
  get busy(): boolean {
    return this.running !== undefined && !this.settled;
  }

  /**
   * Whether the search, at its end, must wait for this stage: it is still running and may yet hand back witnesses.
   * One that proves only goes on beside the search's finish instead.
   */
  get awaited(): boolean {
    return this.busy && !this.proofsOnly;
  }

  /**
   * Runs the stage on the merged coverage's holes, within `leftMs`, and waits for it. The kept sequences are the
   * states a witness past the bound from reset may start from.
   */
  async run(merged: CoveragePoint[], leftMs: number, kept: readonly Kept[] = []): Promise<void> {
    await this.start(merged, leftMs, kept);
  }

  /**
   * Starts the stage (as `run`) and returns the promise of its end; beside the search, `memoryMb` bounds Yosys so
   * that it and the simulations share the run's memory limit, and `proofsOnlyLeftMs` is its time where it turns out
   * to prove only (the search keeps no time to run its witnesses then).
   */
  start(
    merged: CoveragePoint[],
    leftMs: number,
    kept: readonly Kept[] = [],
    memoryMb?: number,
    proofsOnlyLeftMs = leftMs,
  ): Promise<void> {
    if (!this.bounds) return Promise.resolve();
    const started = Date.now();
    const seconds = (ms: number) => Math.max(1, Math.min(this.bounds!.timeoutSeconds, Math.floor(ms / 1000)));
    const timeoutSeconds = seconds(leftMs);
    this.running = proveSearchHoles(
      this.ctx,
      {
        ...this.services,
        signal: this.abort.signal,
        onProofsOnly: () => {
          this.proofsOnly = true;
        },
      },
      merged,
      {
        ...this.bounds,
        timeoutSeconds,
        proofsOnlyTimeoutSeconds: seconds(proofsOnlyLeftMs),
        pointTimeoutSeconds: Math.min(this.bounds.pointTimeoutSeconds, timeoutSeconds),
        ...(memoryMb !== undefined ? { memoryMb } : {}),
      },
      startStates(this.plan, kept),
    )
      .catch((err: unknown) => {
        // Stopped by this search (it finished first) or by the user's cancel, which the loop reports itself.
        if (!this.abort.signal.aborted)
          this.services.logger.warn(`formal: ${err instanceof Error ? err.message : String(err)}`);
      })
      .finally(() => {
        this.settled = true;
        this.ms = Date.now() - started;
      });
    return this.running;
  }

  /** Waits for a stage that runs beside the search to end by its own bound (its decisions are kept). */
  async settle(): Promise<void> {
    if (this.running) await this.running;
  }

  /** The witnesses as candidates, once (the caller runs them through the harness). */
  witnesses(): Candidate[] {
    this.collected = true;
    return this.ctx.formal
      .takeWitnesses()
      .map(({ witness, point }) => witnessCandidate(this.plan, witness, `${basename(point.file)}:${point.line}`));
  }

  /** Stops a stage still running (the search ended another way) and waits for it. */
  async close(): Promise<void> {
    if (this.running && !this.settled) {
      this.abort.abort();
      await this.running;
    }
    this.services.signal.removeEventListener('abort', this.stop);
  }
}
