/** The closure loop's events and result: rendered by the CLI, the language server and the chat panel. */
import type {
  CoverageKind,
  CoverageSummary,
  Diagnostic,
  FormalSummary,
  Hole,
  LineCoverage,
  PhaseTimes,
  ReportedKind,
  RunStatus,
  TargetMetric,
  Targets,
  WaiverCategory,
} from './coverage';

export type EngineName = 'random' | 'llm' | 'hybrid';

/**
 * Whether an engine starts from the user's regression (`--merge`, `chorus.regressionCoverage`): only the
 * model-free search does; the model's loop measures its testbench alone. The engine refuses the others and the
 * editor offers the search instead, both by this rule.
 */
export const takesRegression = (engine: EngineName): boolean => engine === 'random';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface RoundTimes extends PhaseTimes {
  generate: number;
}

/**
 * A round's outcome: a measured run's status, or why nothing was measured — `no_code` (no code block or patch),
 * `truncated` (the reply stopped at the token limit or the stream was cut before the code was complete),
 * `empty_reply`, `patch_failed` (no hunk applied).
 */
export type RoundStatus = RunStatus | 'no_code' | 'truncated' | 'empty_reply' | 'patch_failed';

export interface RoundSummary {
  /** 1-based. */
  index: number;
  status: RoundStatus;
  coverage: CoverageSummary;
  ms: RoundTimes;
  /** LLM rounds: `R = 1 + coverage` (0..2) when it ran, else 0. */
  reward?: number;
  /** LLM rounds: tokens generated. */
  tokens?: number;
  /** LLM rounds: prompt tokens the backend had to evaluate. */
  promptTokens?: number;
  /** LLM rounds: the `Response parse result` / `Patch apply result` outcome, one line. */
  parse?: string;
  /** Random engine: candidate stimulus runs in this round. */
  candidates?: number;
  /** LLM rounds: the expert (model, adapter, endpoint model, replay file) whose candidate this round kept. */
  expert?: string;
  /** LLM rounds with several candidates: each one's outcome, the round's kept one first. */
  candidateRuns?: CandidateRun[];
}

/** One of a round's candidate testbenches: who wrote it and how it measured. */
export interface CandidateRun {
  expert: string;
  /** `error`: the expert failed, or its testbench could not be measured. */
  status: RoundStatus | 'error';
  coverage: CoverageSummary;
  /** The round kept this one (the best by the loop's ranking); it is listed first. */
  kept: boolean;
  /** Why the expert gave no candidate (it failed: endpoint down, adapter that does not fit the base). */
  error?: string;
  /** The candidate's testbench text, in the `candidates` event only, so any of them can be opened. */
  testbench?: string;
}

/** A run's result as it goes on the wire (the engine keeps its measured points to itself: `EngineResult`). */
/**
 * Why a run stopped, one word set for every engine: `targets met`; `all reachable points covered` (what is left is
 * proven unreachable); `stalled` (no gain for the stop rule's rounds or time); `rounds` / `runs` (every round or
 * candidate run it was given); `budget` (wall clock or tokens); `cancelled`; `error` (the backend or a tool failed
 * after a testbench was measured); `context` (the next prompt does not fit the model's context).
 */
export type StopReason =
  | 'targets met'
  | 'all reachable points covered'
  | 'stalled'
  | 'rounds'
  | 'runs'
  | 'budget'
  | 'cancelled'
  | 'error'
  | 'context';

export interface GenerateResult {
  top: string;
  engine: EngineName;
  pass: boolean;
  targets: Targets;
  coverage: CoverageSummary;
  holes: Hole[];
  rounds: RoundSummary[];
  /** The generated testbench text. */
  testbench: string;
  /** Where it was written, when it was. */
  testbenchPath?: string | undefined;
  /** Why the run stopped. */
  stopReason: StopReason;
  /** What went wrong when the run stopped early (`error`, `context`): the backend's message, what did not fit. */
  stopDetail?: string | undefined;
  diagnostics: Diagnostic[];
  /** Verilator's lint warnings about the design's own files, found once before the run: never fatal, never given to the model. */
  designWarnings?: Diagnostic[] | undefined;
  /** Line-level hits for editor overlays, keyed by DUT file then line. */
  lines?: LineCoverage[] | undefined;
  model?: string | undefined;
  /** The expert whose testbench is the result, when the run had several experts or candidates per round. */
  expert?: string | undefined;
  /** Every line and branch point covered or proven unreachable (the Closed@1 criterion). */
  closed?: boolean | undefined;
  /** Set when the formal engine ran on the run's holes. */
  formal?: FormalSummary | undefined;
  /** What `--waivers` did: entries applied, added from proofs, moved, re-proven, stale. */
  waivers?: WaiverReport;
  /** Set on a run on top of the user's regression (`generate --merge`): `coverage` above is the merge. */
  regression?: RegressionReport;
  /** Met, closed and the exit code by the one signoff rule (`judge`, src/engine/verdict.ts); `pass` is `verdict.met`. */
  verdict?: Verdict;
}

/**
 * A run on top of the user's regression (`generate --merge`): the regression's coverage alone, CHORUS's testbench
 * alone, and what it adds (points it covers that the regression left: `covered` of the same `total`). The run's
 * `coverage`, holes and verdict are the merge's, counted as `verilator_coverage --write` of them all counts.
 */
export interface RegressionReport {
  /** The regression's coverage files (absolute). */
  files: string[];
  coverage: CoverageSummary;
  testbench: CoverageSummary;
  added: CoverageSummary;
}

/** A waiver file checked against a run (`generate --waivers`). */
export interface WaiverReport {
  /** The waiver file (absolute). */
  file: string;
  /** Entries in the file after the run. */
  entries: number;
  /** Holes the file's entries excluded (a person's, or an earlier proof on unchanged text). */
  applied: number;
  /** `UNR` entries added for points this run proved. */
  added: number;
  /** Entries whose lines moved and were re-anchored by their fingerprint. */
  moved: number;
  /** `UNR` entries whose text changed and the formal engine proved again. */
  reproven: number;
  /** Entries that no longer apply, with why: what a reviewer must look at. */
  stale: { file: string; line: number; kind: CoverageKind; category: WaiverCategory; why: string }[];
}

/**
 * How a run is judged, by one rule for every adapter (the CLI's exit code, the bench's pass, the editor's test
 * state): points proven unreachable or waived are excluded from a kind's total, as signoff tools count them,
 * unless the run requires raw coverage.
 */
export interface Verdict {
  /** `signoff`: excluded points leave the totals; `raw`: every point counts (`--require-raw`). */
  counting: 'signoff' | 'raw';
  /** Per kind as judged: `covered` of `total` less the excluded points (the raw summary when counting is raw). */
  coverage: CoverageSummary;
  /** Excluded points per kind: proven unreachable, or waived by a person's entry in the waiver file. */
  excluded: Partial<Record<ReportedKind, { proven: number; waived: number }>>;
  /** Every target reached by `coverage`, on a run whose testbench built and ran. */
  met: boolean;
  /** The targets not reached, each with the percentage it reached: what a summary lists. */
  unmet: { metric: TargetMetric; pct: number; target: number }[];
  /** Every line and branch point (and FSM point, when targeted) covered, proven unreachable or waived. */
  closed: boolean;
  /** 0 met, 1 not met or a failed build/run, 130 cancelled (errors before a result exit 2, 3 or 4). */
  exitCode: 0 | 1 | 130;
}

export type LoopEvent =
  | { type: 'start'; top: string; engine: EngineName; targets: Targets; model?: string | undefined; files: string[] }
  | { type: 'roundStart'; round: number; instruction?: string | undefined }
  | { type: 'tokens'; round: number; text: string }
  | { type: 'parsed'; round: number; outcome: string; testbench?: string | undefined; patch?: boolean }
  | { type: 'build'; round: number; status: RunStatus; ms: number; diagnostics: Diagnostic[] }
  | {
      type: 'coverage';
      round: number;
      coverage: CoverageSummary;
      holes: Hole[];
      status: RunStatus;
      /** Per-line hits of this round's testbench, so editors can update their overlays live (optional). */
      lines?: LineCoverage[] | undefined;
    }
  /** A round with several candidates: each one's outcome (kept first, with its testbench), before `feedback`. */
  | { type: 'candidates'; round: number; candidates: CandidateRun[] }
  | { type: 'feedback'; round: number; text: string }
  | { type: 'roundEnd'; round: RoundSummary }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string }
  | { type: 'final'; result: GenerateResult };

export type LoopEventType = LoopEvent['type'];
