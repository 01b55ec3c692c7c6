/**
 * Runs stimulus through the built vector harness: one binary, one run per candidate. It measures the simulation's
 * speed as it goes (a fixed cost per run plus a cost per cycle), so the search can size its candidates and holds
 * to what is left of its budget.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  fileNamer,
  memoryLimitBytes,
  readCoverageWithFsm,
  runSimulation,
  type FsmPlan,
  type RunResult,
  type SimOptions,
} from '../../sim';
import type { CoveragePoint, Diagnostic, Logger } from '../../protocol';
import { HALF_PERIOD, TICKS_PER_UNIT } from './harness';
import { prefixCandidate, reachingLengths, sequencesOf, stimulusText, totalCycles, type Candidate } from './stimulus';

/** Wall-clock allowance per simulated cycle on top of the base timeout: a deep hold runs millions of cycles. */
const MS_PER_MILLION_CYCLES = 20_000;
/** Runs shorter than this many cycles measure the fixed cost of a run. */
const SHORT_RUN_CYCLES = 500;
/** Runs at least this long measure the cost per cycle (the first plain random run is one). */
const LONG_RUN_CYCLES = 1_000;
/** ...and runs this long the slowest speed (a shorter run's speed is mostly the error in its start's cost). */
const STEADY_RUN_CYCLES = 10_000;
/**
 * A run's start that costs at least this (a core's model, its coverage file of tens of thousands of points written
 * and read back) is costly: short candidates then share runs, and shrinking takes only steps that save at least a
 * run's start.
 */
const COSTLY_START_MS = 100;
/**
 * A candidate's run looks at the points it has hit every this many cycles, so a long run that found nothing new
 * after its first stretch is kept (and replayed in the testbench) only up to there, and of several sequences run
 * back to back only those that found something. A look is a pass over the model's counters: on a core,
 * microseconds against the milliseconds these cycles take.
 */
const CHECKPOINT_CYCLES = 64;
/** Cycles before a new point's checkpoint that may have caused it: a reset's and a pipeline's length. */
const CAUSE_CYCLES = 4;

export interface RowsRun {
  written: boolean;
  status: string;
  ms: number;
  output: string;
  /** The simulator's messages, naming the design's files (a design's own `$error`). */
  diagnostics: Diagnostic[];
  /** Cycles simulated, where the simulator said (fewer than its rows: the design ended the run itself). */
  cycles?: number | undefined;
  /**
   * With checkpoints: for each checkpoint at which the run hit a point no earlier candidate run had, the cycles run
   * by then (the last: the cycles after which it hit nothing new).
   */
  freshBy?: number[] | undefined;
}

/** A simulation's result as the search reads it. */
function rowsRun(run: RunResult): RowsRun {
  return {
    written: run.coverageWritten,
    status: run.status,
    ms: run.ms,
    output: run.output,
    diagnostics: run.diagnostics,
    // Reported in the time precision; cycle i runs from time unit 2i to 2i + 2 (HALF_PERIOD 1).
    cycles: run.simTime === undefined ? undefined : Math.floor(run.simTime / TICKS_PER_UNIT / (2 * HALF_PERIOD)),
  };
}

/** A harness run that reads its rows as they are written (`write`), until `end`. */
export interface StreamedRun {
  write(text: string): void;
  /** Closes the rows; the run's result once it has simulated them and written its coverage. */
  end(): Promise<RowsRun>;
  /** The points of the run, once `end` resolved with coverage written. */
  points(): Promise<CoveragePoint[]>;
  /** Kills the run and waits for it to be gone. */
  stop(): Promise<void>;
  /** Whether the run has ended (before `end`: it stopped early, a design's `$fatal` or a limit). */
  readonly ended: boolean;
}

export interface RunnerSetup {
  binary: string;
  workDir: string;
  rtlFiles: string[];
  fsmPlan: FsmPlan;
  sim: SimOptions;
  simTimeoutMs: number;
  logger: Logger;
}

export class HarnessRunner {
  /** Candidate runs so far (the search's unit of work: shrinking and stop rules count them). */
  runs = 0;
  simMs = 0;
  /** Wall time of the last run. */
  lastRunMs = 0;
  /** Time spent reading the runs' coverage files (large designs write tens of thousands of points a run). */
  readMs = 0;
  /** The last candidate's run's checkpoints with a new point (RowsRun.freshBy; undefined: not counted). */
  lastFreshBy: number[] | undefined;
  /** Whether the simulator counts the points its runs hit at checkpoints (not where Verilator keeps them apart). */
  countsPoints = false;
  /** How the last run that wrote no coverage ended, and its messages (a design's own `$error` at time 0). */
  lastFailure: { status: string; diagnostics: Diagnostic[] } | undefined;
  private readonly stimPath: string;
  private readonly covPath: string;
  /** The points the candidate runs have hit, as the simulator counts them (a run leaves it with its own added). */
  private readonly knownPath: string;
  /** Whether a work folder's known points of an earlier search are gone. */
  private knownCleared = false;
  private fixedMs: number | undefined;
  private msPerCycle: number | undefined;
  private slowestMsPerCycle = 0;
  /** Memory the formal stage holds beside the runs: each run gets the run's limit less it. */
  private reservedBytes = 0;

  /** The simulator's messages name the design's files as they were given (assertions print base names). */
  private readonly namer: ReturnType<typeof fileNamer>;

  constructor(private readonly setup: RunnerSetup) {
    this.namer = fileNamer(setup.rtlFiles.map((f) => ({ given: f, display: f })));
    this.stimPath = join(setup.workDir, 'stimulus.hex');
    this.covPath = join(setup.workDir, 'candidate.dat');
    this.knownPath = join(setup.workDir, 'known-points.bin');
  }

  /**
   * While the formal stage runs beside the search, `bytes` of the run's memory limit are its own: the runs get the
   * rest, so Yosys and a simulation together stay under the limit. 0 gives the runs the whole limit again.
   */
  reserveMemory(bytes: number): void {
    this.reservedBytes = bytes;
  }

  /** The memory limit a run gets now. */
  memoryLimitBytes(): number {
    return memoryLimitBytes(this.setup.sim.memoryLimitBytes) - this.reservedBytes;
  }

  /**
   * Estimated wall time of a run of `cycles` cycles, from the runs so far (a guess before any); `worst` takes the
   * slowest speed measured instead of the recent average: a core's busy stretches run at half its idle speed, and
   * the final measurement, which must fit the budget, replays exactly the busy ones.
   */
  estimateMs(cycles: number, worst = false): number {
    return (this.fixedMs ?? 50) + cycles * this.perCycleMs(worst);
  }

  /** Milliseconds a cycle takes: the recent average, or the slowest measured. */
  perCycleMs(worst = false): number {
    const recent = this.msPerCycle ?? 0.002;
    return worst ? Math.max(recent, this.slowestMsPerCycle) : recent;
  }

  /** What a run costs before its first cycle (starting the model, writing and reading coverage), once measured. */
  get startMs(): number | undefined {
    return this.msPerCycle === undefined ? undefined : this.fixedMs;
  }

  /** Whether a run's start is measured and costly (COSTLY_START_MS). */
  get costlyStart(): boolean {
    return (this.startMs ?? 0) >= COSTLY_START_MS;
  }

  /** Cycles that take as long as a run's start where it is costly; 1 where it is not. */
  startCycles(): number {
    return this.costlyStart ? Math.max(1, Math.round(this.startMs! / this.perCycleMs())) : 1;
  }

  /** How many cycles fit in `ms` of one run. */
  cyclesWithin(ms: number): number {
    return Math.max(0, Math.floor((ms - (this.fixedMs ?? 50)) / (this.msPerCycle ?? 0.002)));
  }

  /** Runs stimulus text of `cycles` cycles; `limitMs` bounds the run's wall time below the default timeout. */
  async runText(text: string, cycles: number, limitMs?: number, checkpoints = false): Promise<RowsRun> {
    await writeFile(this.stimPath, text);
    await rm(this.covPath, { force: true });
    if (checkpoints && !this.knownCleared) {
      await rm(this.knownPath, { force: true });
      this.knownCleared = true;
    }
    const timeoutMs = this.setup.simTimeoutMs + Math.ceil((cycles / 1e6) * MS_PER_MILLION_CYCLES);
    const run = await runSimulation(
      {
        binary: this.setup.binary,
        coverageFile: this.covPath,
        plusargs: [`+stim=${this.stimPath}`],
        timeoutMs: limitMs !== undefined ? Math.max(1_000, Math.min(timeoutMs, limitMs)) : timeoutMs,
        // Two half periods a cycle, plus slack: the run ends at the end of its rows, never at this bound.
        maxSimTime: (cycles + 16) * 2 * HALF_PERIOD,
        cwd: this.setup.workDir,
        trusted: true,
        checkpointUnits: checkpoints ? CHECKPOINT_CYCLES * 2 * HALF_PERIOD : undefined,
        knownPointsFile: checkpoints ? this.knownPath : undefined,
      },
      { ...this.setup.sim, memoryLimitBytes: this.memoryLimitBytes(), namer: this.namer },
    );
    this.simMs += run.ms;
    this.lastRunMs = run.ms;
    if (run.coverageWritten) this.learn(cycles, run.ms);
    // A run stopped at its bound ran slower than that per cycle: the next holds are sized by it.
    else if (run.status === 'timeout' && cycles > 0) this.msPerCycle = Math.max(this.msPerCycle ?? 0, run.ms / cycles);
    return {
      ...rowsRun(run),
      // Cycle i runs from time 2i to 2i + 2 (HALF_PERIOD 1): a point hit by time t is hit within t / 2 + 1 cycles.
      freshBy: run.freshAt?.map((t) => Math.min(cycles, Math.floor(t / (2 * HALF_PERIOD)) + 1)),
    };
  }

  /**
   * Starts a run that reads its rows from standard input as `write` gives them, beside the candidate runs (its own
   * coverage file): the testbench's table, measured as the search keeps its sequences. Bounded by `limitMs`.
   */
  streamRun(limitMs: number): StreamedRun {
    const rows = new PassThrough();
    const covPath = join(this.setup.workDir, 'table.dat');
    const own = new AbortController();
    const signal = this.setup.sim.signal ? AbortSignal.any([this.setup.sim.signal, own.signal]) : own.signal;
    const result = rm(covPath, { force: true }).then(() =>
      runSimulation(
        {
          binary: this.setup.binary,
          coverageFile: covPath,
          plusargs: ['+stim=-'],
          timeoutMs: limitMs,
          // No bound in simulated time: the rows end it, and `limitMs` bounds its wall time.
          maxSimTime: 0,
          cwd: this.setup.workDir,
          trusted: true,
          stdin: rows,
        },
        { ...this.setup.sim, signal, memoryLimitBytes: this.memoryLimitBytes(), namer: this.namer },
      ),
    );
    let ended = false;
    // A run that failed (or was stopped) takes no more rows.
    void result.then(
      () => (ended = true),
      () => {
        ended = true;
        rows.destroy();
      },
    );
    return {
      get ended() {
        return ended;
      },
      write: (text) => {
        if (!rows.destroyed) rows.write(text);
      },
      end: async () => {
        rows.end();
        return rowsRun(await result);
      },
      stop: async () => {
        own.abort();
        rows.destroy();
        await result.catch(() => undefined);
      },
      points: () => this.pointsOf(covPath),
    };
  }

  /** The points of the last run that wrote coverage. */
  lastPoints(): Promise<CoveragePoint[]> {
    return this.pointsOf(this.covPath);
  }

  /** The points of a coverage file, its reading timed. */
  private async pointsOf(covPath: string): Promise<CoveragePoint[]> {
    const t0 = Date.now();
    const points = (await readCoverageWithFsm(covPath, this.setup.rtlFiles, this.setup.fsmPlan)).points;
    this.readMs += Date.now() - t0;
    return points;
  }

  /** Runs one candidate; the points it hit, or null when it wrote no coverage. */
  async candidate(candidate: Candidate, limitMs?: number): Promise<CoveragePoint[] | null> {
    const run = await this.runText(stimulusText(candidate), totalCycles(candidate.rows), limitMs, true);
    this.runs++;
    this.lastFreshBy = run.written ? run.freshBy : undefined;
    if (this.lastFreshBy) this.countsPoints = true;
    if (!run.written) {
      this.lastFailure = { status: run.status, diagnostics: run.diagnostics };
      this.setup.logger.debug(
        `candidate ${this.runs}: ${run.status}, no coverage written: ${run.output.trim().slice(-500)}`,
      );
      return null;
    }
    return this.lastPoints();
  }

  /**
   * What of the last candidate to keep: of sequences run back to back, those that hit a new point, each up to its
   * last (and whole any other one the checkpoint's stretch began in: the point may have needed the state it left);
   * of one sequence, the part up to its last new point, where that saves at least a checkpoint's cycles. With the
   * wall time that part takes (in proportion), and whether it is the whole candidate.
   */
  reachingPart(candidate: Candidate): { candidate: Candidate; ms: number; whole: boolean } {
    const full = totalCycles(candidate.rows);
    const fresh = this.lastFreshBy;
    const whole = { candidate, ms: this.lastRunMs, whole: true };
    if (fresh === undefined || full === 0) return whole;
    let part: Candidate = candidate;
    const starts = candidate.starts;
    if (starts && starts.length > 1) {
      const lengths = reachingLengths(starts, full, fresh, CHECKPOINT_CYCLES + CAUSE_CYCLES);
      if (lengths.some((n, j) => n < (starts[j + 1] ?? full) - starts[j])) part = sequencesOf(candidate, lengths);
    } else {
      const by = fresh.length ? fresh[fresh.length - 1] : 0;
      if (full - by >= CHECKPOINT_CYCLES) part = prefixCandidate(candidate, Math.max(1, by));
    }
    if (part === candidate) return whole;
    const cycles = totalCycles(part.rows);
    this.setup.logger.debug(
      `candidate ${this.runs}: kept ${cycles} of ${full} cycles, those that reached something new`,
    );
    return { candidate: part, ms: (this.lastRunMs * cycles) / full, whole: false };
  }

  /** The measured speed, for the debug log. */
  describe(): string {
    const fixed = this.fixedMs === undefined ? '?' : Math.round(this.fixedMs);
    const perK = this.msPerCycle === undefined ? '?' : (this.msPerCycle * 1000).toFixed(1);
    return `${fixed} ms a run + ${perK} ms per 1000 cycles`;
  }

  private learn(cycles: number, ms: number): void {
    if (cycles < SHORT_RUN_CYCLES) this.fixedMs = this.fixedMs === undefined ? ms : 0.8 * this.fixedMs + 0.2 * ms;
    else if (cycles >= LONG_RUN_CYCLES) {
      const perCycle = Math.max(1e-6, (ms - (this.fixedMs ?? 0)) / cycles);
      this.msPerCycle = this.msPerCycle === undefined ? perCycle : 0.7 * this.msPerCycle + 0.3 * perCycle;
      if (cycles >= STEADY_RUN_CYCLES) this.slowestMsPerCycle = Math.max(this.slowestMsPerCycle, perCycle);
    }
  }
}
