/**
 * The search's rounds: a progress report (its coverage so far, runs and simulation time) every `size` runs or
 * every few seconds, whichever comes first; the first round carries the harness build.
 */
import { summarize } from '../../sim';
import type { CoveragePoint, LoopEvent, RoundSummary } from '../../protocol';
import type { Emit } from '../channel';

/** A round closes after `size` runs or this long, whichever comes first. */
const ROUND_MS = 3_000;

export class RoundReporter {
  readonly rounds: RoundSummary[] = [];
  private sim = 0;
  private runs = 0;
  private started = Date.now();

  constructor(
    private readonly emit: Emit<LoopEvent>,
    private readonly size: number,
    private readonly buildMs: number,
  ) {}

  /** Counts a run of `simMs` in the open round. */
  ran(simMs: number): void {
    this.runs++;
    this.sim += simMs;
  }

  /** Closes the open round when it is due, and opens the next. */
  maybeClose(merged: CoveragePoint[]): void {
    if (this.runs < this.size && Date.now() - this.started < ROUND_MS) return;
    this.close(merged);
    this.emit({ type: 'roundStart', round: this.rounds.length + 1 });
  }

  /** Closes the open round if it ran anything (or none was closed yet). */
  finish(merged: CoveragePoint[]): void {
    if (this.runs > 0 || this.rounds.length === 0) this.close(merged);
  }

  private close(merged: CoveragePoint[]): void {
    const summary: RoundSummary = {
      index: this.rounds.length + 1,
      status: 'ok',
      coverage: summarize(merged),
      ms: { generate: 0, build: this.rounds.length === 0 ? this.buildMs : 0, sim: this.sim },
      candidates: this.runs,
    };
    this.rounds.push(summary);
    this.emit({ type: 'coverage', round: summary.index, coverage: summary.coverage, holes: [], status: 'ok' });
    this.emit({ type: 'roundEnd', round: summary });
    this.sim = 0;
    this.runs = 0;
    this.started = Date.now();
  }
}
