/** What the formal engine is asked and what it answers. JSON-safe: values are hex text, never bigint. */

/** An uncovered line, branch or FSM point, as Verilator or CHORUS's FSM probe records it (see `CoveragePoint`). */
export interface FormalTarget {
  /** The DUT file's path, as the analysis names it. */
  file: string;
  line: number;
  /** 1-based column of the point (Verilator's); 0 when unknown. */
  column: number;
  kind: 'line' | 'branch' | 'fsm_state' | 'fsm_arc';
  /** Verilator's comment: `if`, `elsif`, `else`, `case`, `block`; an FSM point's `state_q::RUN`, `state_q::IDLE->RUN`. */
  comment: string;
  /**
   * The instance below the top (`u_core.u_fifo`, '' for the top itself) when the point belongs to one instance;
   * undefined: every instance of the module (a proof must then hold in all of them).
   */
  instance?: string;
}

/** One clock cycle of a witness: the value of every DUT input (clock excluded), hex. */
export type StimulusRow = Record<string, string>;

export interface Witness {
  /** Inputs of the top module with their widths, in port order (clock excluded). */
  inputs: { name: string; width: number }[];
  /**
   * One row per cycle from time zero: apply the row's inputs, then one clock cycle. The first rows hold the
   * reset asserted (as a testbench's reset pulse does) when the top has a reset.
   */
  rows: StimulusRow[];
  /** The row (0-based) in whose cycle the point is reached; replay at least one cycle past it. */
  hitAt: number;
  /** Rows that hold the reset asserted at the start. */
  resetCycles: number;
}

export type Verdict =
  | {
      status: 'unreachable';
      /** k-induction length that closed the proof. */
      depth: number;
      /** Proven by the values its registers can hold (`registerValues.ts`), an invariant of one step. */
      byRegisterValues?: true;
      /** Proven by an inductive invariant over several registers that PDR (IC3) found (`pdr.ts`). */
      byInvariant?: true;
    }
  | { status: 'witness'; witness: Witness }
  | { status: 'unknown'; reason: string };

export interface TargetVerdict {
  target: FormalTarget;
  /** The arm the point stands for, in words (`else of if (en)`), when it was found. */
  site?: string;
  verdict: Verdict;
}

/**
 * A state the simulation reached, as the inputs that led there: a witness search may start from its end (the trace
 * found is appended to these rows and replayed whole, so a proof never rests on it).
 */
export interface StartState {
  /** One row per cycle from time zero, the reset pulse included; an input a row leaves out is left free. */
  rows: StimulusRow[];
  /** The source lines the simulation covered running it: how near it came to each target. */
  reached: { file: string; line: number }[];
}

export interface ProveRequest {
  /** DUT source files (absolute paths) with their text. */
  sources: { file: string; content: string }[];
  top: string;
  targets: FormalTarget[];
  defines?: Record<string, string> | undefined;
  includeDirs?: string[] | undefined;
  /** Top-level parameter overrides, as Verilog constant text. */
  parameters?: Record<string, string> | undefined;
  /** Reset cycles a witness starts with (default 2), when the top has a reset. */
  resetCycles?: number;
  /** Longest induction / witness search, in cycles (default 24). */
  maxDepth?: number | undefined;
  /** Wall-clock bound of one point's SAT problem (Yosys' `-timeout`), seconds (default 10). */
  pointTimeoutSeconds?: number | undefined;
  /** Wall-clock bound of the whole run, seconds (default 120). */
  runTimeoutSeconds?: number | undefined;
  /**
   * The whole run's bound once it turns out to prove only (several clocks: no witness comes back for a search to
   * run), seconds, where that is longer than `runTimeoutSeconds`.
   */
  proofsOnlyTimeoutSeconds?: number | undefined;
  /** Memory bound of the Yosys worker, MiB (default 2048). */
  memoryMb?: number;
  /**
   * States the simulation reached (the search's kept sequences): a point no witness from reset reaches within the
   * bound is searched for from the nearest of them. Proofs stay from reset.
   */
  starts?: StartState[] | undefined;
}

export interface ProveResult {
  verdicts: TargetVerdict[];
  /** Time spent in Yosys (load included), ms. */
  yosysMs: number;
  /** Set when Yosys could not read or prepare the design at all: every verdict is `unknown` with this reason. */
  failure?: string;
  /** The Yosys build and front end that read the design (`yosys 0.70.62-dev.1236 (@yowasp/yosys, read_slang)`). */
  prover?: string;
  /**
   * Set when Yosys rejected the instrumented copy and the sites responsible were left out: the reads of the design
   * the search took (the first included), the flags left out, the time it took (ms).
   */
  isolation?: { reads: number; dropped: number; ms: number };
}
