/** The closure loop's events and result: rendered by the CLI, the language server and the chat panel. */
import type {
  CoverageSummary,
  Diagnostic,
  FormalSummary,
  Hole,
  LineCoverage,
  PhaseTimes,
  RunStatus,
  Targets,
} from './coverage';

export type EngineName = 'random' | 'llm' | 'hybrid';

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
  /** Why the loop stopped: `targets met`, `stalled`, `rounds`, `budget`, `cancelled`, `error`, `context`. */
  stopReason: string;
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
