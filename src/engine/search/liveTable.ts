/**
 * The testbench's table measured as it is written. Where a run's start is costly (a core: its model started, tens
 * of thousands of points written and read back), its candidates are long, and measuring the whole table again at
 * the finish takes seconds the search could use (12 s of a 60 s run on cv32e40p_core). So one harness run reads the
 * table's rows from a pipe beside the search, each kept sequence appended as it is kept, in the order found; at the
 * finish the pipe closes and that run's coverage is the testbench's, exactly, with no second simulation.
 *
 * The table is then every kept sequence, none dropped or shortened afterwards: each was measured where it stands.
 * Kept sequences are cut to what reached something new (the runner's checkpoints), so none carries a stretch or a
 * batched sequence that reached nothing; where the simulator cannot count its points (Verilator 5.050), 'costly'
 * leaves the table to the finish, which chooses and shrinks it (a core's kept batches whole: a 23 MB table). A DUT
 * without a reset keeps the finish's own measurement: there each sequence starts where the one before it left off,
 * and the finish orders them (orderWithoutReset).
 */
import type { CoveragePoint, Logger } from '../../protocol';
import type { SearchBudget } from './budget';
import type { KeptSequence } from './emit';
import type { HarnessRunner, RowsRun, StreamedRun } from './runner';
import { stimulusText, totalCycles } from './stimulus';

/** The live run's wall-clock bound beyond the budget left when it starts: the finish waits for its last rows. */
const BOUND_BEYOND_BUDGET_MS = 60_000;

export class LiveTable {
  readonly sequences: KeptSequence[] = [];
  private run: StreamedRun | undefined;
  private appended = 0;
  private cycles = 0;
  /** When the run will have simulated every row written so far, estimated at the slowest speed measured. */
  private doneAt = 0;

  constructor(
    private readonly runner: HarnessRunner,
    private readonly budget: SearchBudget,
    private readonly logger: Logger,
    /** When: 'never' where the design has no reset or the testbench gets a build of its own (SearchOptions). */
    private readonly when: 'costly' | 'always' | 'never',
  ) {}

  /**
   * Whether the table is being measured as it is written: a run that ended before its rows did (a design's `$fatal`
   * in a kept sequence, a limit) is not, and the finish measures the table on its own.
   */
  get active(): boolean {
    return this.run?.ended === false;
  }

  /**
   * What the search keeps back for the finish while the table is live: what the run has still to simulate and a
   * run's start (reading the coverage back), each with the budget's margin, and a small share to emit.
   */
  reserveMs(): number {
    return this.budget.liveFinishAllowance() + this.budget.finalReserve(this.backlogMs() + (this.runner.startMs ?? 0));
  }

  /**
   * Appends the kept sequences not yet in the table, in order; starts the run once a run's start is measured and
   * costly (before that the finish's own measurement is cheap enough).
   */
  sync(kept: readonly KeptSequence[]): void {
    if (this.endedEarly) return;
    if (!this.run) {
      const costly = this.runner.costlyStart && this.runner.countsPoints;
      if (this.when === 'never' || (this.when === 'costly' && !costly) || !kept.length) return;
      this.run = this.runner.streamRun(this.budget.remaining() + BOUND_BEYOND_BUDGET_MS);
      this.logger.debug(
        `search: a run's start costs ${Math.round(this.runner.startMs ?? 0)} ms; the testbench's table is measured as its sequences are kept`,
      );
    }
    for (; this.appended < kept.length; this.appended++) this.append(kept[this.appended]);
  }

  /**
   * Whether the run started and ended before its rows (a design's `$fatal` in a kept sequence, a limit): the table is
   * not started again (its sequences would be measured twice), and the finish measures it on its own.
   */
  get endedEarly(): boolean {
    return this.run?.ended === true;
  }

  /** Appends one sequence (the finish's plain random tail). */
  append(seq: KeptSequence): void {
    if (!this.run || !this.active) return;
    const n = totalCycles(seq.candidate.rows);
    this.sequences.push(seq);
    this.cycles += n;
    this.doneAt = Math.max(Date.now(), this.doneAt) + n * this.runner.perCycleMs(true);
    this.run.write(stimulusText(seq.candidate));
  }

  /** Cycles written so far. */
  get length(): number {
    return this.cycles;
  }

  /** What the run still has to simulate, estimated: what the finish waits for. */
  backlogMs(): number {
    return Math.max(0, this.doneAt - Date.now());
  }

  /** Closes the table; the run's result and, when it wrote coverage, its points. */
  async finish(): Promise<{ run: RowsRun; points: () => Promise<CoveragePoint[]> }> {
    if (!this.run) throw new Error('LiveTable.finish: no live run');
    const live = this.run;
    this.run = undefined;
    const run = await live.end();
    return { run, points: () => live.points() };
  }

  /** Stops the run without its coverage (the search ended another way); nothing waits for its rows. */
  async close(): Promise<void> {
    const live = this.run;
    this.run = undefined;
    if (live) await live.stop();
  }
}
