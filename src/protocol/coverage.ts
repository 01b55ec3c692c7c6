/** Coverage as Verilator counts it, scoped to the DUT's own source files. */

export type CoverageKind = 'line' | 'branch' | 'toggle' | 'user' | 'fsm_state' | 'fsm_arc' | 'expr';

/**
 * The kinds reported and targeted; `user` points are kept but not summarised. `fsm_state` (a state entered) and
 * `fsm_arc` (a transition taken) come from CHORUS's own FSM analysis on every Verilator, merged with Verilator's
 * native FSM points where it has them (5.048+); `expr` (expression terms, 5.034+) only where Verilator reports it.
 */
export const REPORTED_KINDS = ['line', 'branch', 'toggle', 'fsm_state', 'fsm_arc', 'expr'] as const;
export type ReportedKind = (typeof REPORTED_KINDS)[number];
/** The kinds every summary has, from every Verilator. */
export const BASE_KINDS = ['line', 'branch', 'toggle'] as const;
export type BaseKind = (typeof BASE_KINDS)[number];
/** Kinds only some designs or some Verilators have: absent from a summary (or 0 of 0) means no points. */
export type OptionalKind = Exclude<ReportedKind, BaseKind>;
/** The FSM kinds, what the `fsm` target stands for. */
export const FSM_KINDS = ['fsm_state', 'fsm_arc'] as const;

export interface CoveragePoint {
  /** Source file as Verilator recorded it (absolute or as given on its command line). */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based column, 0 when unknown. */
  column: number;
  kind: CoverageKind;
  /** Verilator's comment: `if`, `else`, `case`, `block`, a signal bit such as `q[3]`. */
  comment: string;
  /** Instance path, such as `TOP.tb.uut.fifo0`. */
  hierarchy: string;
  /** Module name from Verilator's `page` field (`v_line/<module>`). */
  module: string;
  count: number;
  /**
   * The source lines a line or branch point stands for, as Verilator's `S` field writes them (`17-20`,
   * `25,27`): the statements of a block or branch arm. Absent when Verilator gave none.
   */
  span?: string;
}

export interface KindTotals {
  covered: number;
  total: number;
  /** 0..100, one decimal; 100 when total is 0. */
  pct: number;
}

/** Totals per kind: line, branch and toggle always; the FSM and expression kinds when the design or Verilator has them. */
export type CoverageSummary = Record<BaseKind, KindTotals> & Partial<Record<OptionalKind, KindTotals>>;

export interface Hole {
  kind: CoverageKind;
  /** The DUT file's absolute path (as `LineCoverage.file`); display names are made where text is rendered. */
  file: string;
  line: number;
  /** What was not seen: `else arm of if`, `toggle q[3] 0->1`, `case item 2'b11`, `state RUN never visited`. */
  detail: string;
  /** The source line's text, trimmed. */
  source?: string;
  /** Instance path of the point. */
  hierarchy?: string;
  /** The source lines the point stands for, as `CoveragePoint.span` (`17-20`): editors mark them with the point. */
  span?: string;
  /**
   * Set only when the point is proven unreachable (never on a point any simulation hit): the proof in words, for
   * text (`k-induction, depth 3`, `the state register holds only 5 values`). `proof` has the structure.
   */
  unreachable?: string;
  /** How it was proven unreachable; set with `unreachable`. */
  proof?: UnreachableProof;
  /** Why the formal engine gave neither a proof nor a witness (timeout, unsupported construct, depth), when it ran. */
  formal?: string | undefined;
  /** The waiver file's entry that excludes this point (a person's `LOW_RISK`/`UNSUPPORTED`, or a kept `UNR`). */
  waiver?: HoleWaiver;
}

/**
 * A waiver's category, as signoff reviews name them: `UNR` proven unreachable (by CHORUS's formal engine or the
 * analysis), `UNSUPPORTED` a construct the flow cannot exercise, `LOW_RISK` a person's judgement.
 */
export type WaiverCategory = 'UNR' | 'UNSUPPORTED' | 'LOW_RISK';

/** What a hole shows of the waiver that excludes it: the category, the reason and who signed it. */
export interface HoleWaiver {
  category: WaiverCategory;
  reason: string;
  who?: string;
  /** A kept `UNR` entry's proof, as the waiver file records it (the prover with its version). */
  proof?: { method: 'induction' | 'analysis'; depth?: number; tool?: string };
}

/** A proof that no stimulus reaches a point: Yosys k-induction, or the analysis' state-register/enum rule. */
export interface UnreachableProof {
  method: 'induction' | 'analysis';
  /** k of a k-induction proof, in cycles. */
  depth?: number;
}

/** What the formal engine did in a run: verdicts on the holes search left, and the time spent in Yosys. */
export interface FormalSummary {
  proven: number;
  /** Witness traces that Verilator then hit (their points count as covered). */
  witnesses: number;
  unknown: number;
  ms: number;
}

export type Severity = 'error' | 'warning' | 'info';

export interface Diagnostic {
  file: string;
  /** 1-based; 0 when the tool gave no line. */
  line: number;
  /** 1-based; 0 when the tool gave no column. */
  column: number;
  severity: Severity;
  message: string;
}

/** `resource_limit`: a step (build or simulation) passed its memory, CPU, file-size or process bound and was stopped. */
export type RunStatus = 'ok' | 'compile_error' | 'sim_error' | 'timeout' | 'rejected' | 'resource_limit';

export interface PhaseTimes {
  build: number;
  sim: number;
}

/** One measured run: what `chorus coverage --json` prints. */
export interface CoverageReport {
  status: RunStatus;
  coverage: CoverageSummary;
  /** Totals per instance path (e.g. `TOP.tb.uut.u_fifo`), for sub-instance targets. */
  instances: Record<string, CoverageSummary>;
  holes: Hole[];
  /** The testbench's build and run messages, and every error. */
  diagnostics: Diagnostic[];
  /**
   * Verilator's lint warnings about the design's own files (WIDTH, UNUSED, …): they never fail a build and are
   * shown to the user once (CLI `warnings`, editor diagnostics), never fed to the model as the testbench's.
   */
  designWarnings?: Diagnostic[];
  ms: PhaseTimes;
  /** True when the run stopped at the simulated-time or wall-clock bound. */
  bounded?: boolean;
  /** Notes for the user (e.g. a build that needed loop unrolling left on). */
  notes?: string[];
}

/** Per-line view for editors: hits and branch arms by file and line. */
export interface LineCoverage {
  /** The DUT file's absolute path. */
  file: string;
  line: number;
  hits: number;
  /** Branch arms on this line: label and count. */
  branches: { label: string; count: number }[];
  /** Toggle bits on signals declared on this line that were never seen. */
  missingToggles: string[];
  /** FSM states (on a case item) and arcs (on an assignment) at this line, with their counts (`RUN`, `IDLE->RUN`). */
  fsm?: { kind: 'fsm_state' | 'fsm_arc'; label: string; count: number }[];
  /**
   * The kinds of points on this line (optional). Lets editors tell a signal declaration (only `toggle`, whose
   * `hits` are toggle counts) from an executable statement (`line`/`branch`).
   */
  kinds?: CoverageKind[] | undefined;
}

export type TargetMetric = ReportedKind | 'overall';

/**
 * One FSM as CHORUS's analysis sees it, for the simulator's probe (src/sim/coverage/fsmProbe.ts): the state register,
 * the events of the always block that writes it, its states and arcs with the source lines holes point at.
 * Expressions are Verilog text valid in the module's scope (the probe is bound into it).
 */
export interface FsmModel {
  module: string;
  /** The file declaring the module, as the caller gave it. */
  file: string;
  /** The state register. */
  variable: string;
  /** Line of the `case` on the state. */
  line: number;
  /** The state register's always block's event control, e.g. `posedge clk`, `negedge rst_n`. */
  events: { edge: 'posedge' | 'negedge'; signal: string }[];
  /** The reset condition of that block (`!rst_n`), when the register has a reset arm. */
  reset?: string;
  /** Label as written (an enum member, a parameter, a literal) and the line of its case item (else the case line). */
  states: { label: string; line: number }[];
  /** Transitions; `from` is `ANY` for a reset arc. Line: the assignment (the case item for a hold). */
  arcs: { from: string; to: string; line: number; reset?: boolean }[];
}

/** Coverage targets in percent, e.g. `{line: 100, branch: 100}`. */
export type Targets = Partial<Record<TargetMetric, number>>;

export const DEFAULT_TARGETS: Targets = { line: 100, branch: 100 };
