/**
 * The `chorus/*` messages between the language server and its clients. Method names and payloads are defined
 * once here; the server and the extension both type their handlers with these.
 */
import type { Targets, CoverageReport, LineCoverage } from './coverage';
import type { EngineName, GenerateResult, LoopEvent } from './loop';
import type { ModelChoice, ModelStatus } from './model';

export const Methods = {
  /** Request: run the closure loop on a DUT. Work-done progress + `chorus/loopEvent` notifications. */
  generate: 'chorus/generate',
  /** Server → client notification: one loop event of a running `chorus/generate`. */
  loopEvent: 'chorus/loopEvent',
  /** Request: the last result for a document (null when none). */
  coverage: 'chorus/coverage',
  /** Server → client notification: model state changes. */
  modelStatus: 'chorus/modelStatus',
  /** Request: steer the next round of a running loop with a user instruction. */
  steer: 'chorus/steer',
  /** Request: ask the model a question about the design and its holes; the answer streams as `chorus/askChunk`. */
  ask: 'chorus/ask',
  /** Server → client notification: a piece of a streamed answer to `chorus/ask`. */
  askChunk: 'chorus/askChunk',
  /** Request: the models the user can pick. */
  listModels: 'chorus/listModels',
  /** Request: export lcov of the last result for a document. */
  exportLcov: 'chorus/exportLcov',
} as const;

export interface GenerateParams {
  /** The document the user ran the command on (file URI). */
  uri: string;
  /** Every DUT source (file URIs); defaults to the document and the files it needs. */
  files?: string[];
  /** Spec files (file URIs). */
  specs?: string[];
  top?: string;
  targets?: Targets;
  engine?: EngineName;
  /** `path`, `hf:…`, manifest id or `replay:<file.json>`; defaults to the `chorus.model` setting. */
  model?: string;
  rounds?: number;
  /** Where to write the testbench (file URI); the client decides and asks before overwriting. */
  testbenchUri?: string;
  /** Client-chosen id echoed in every loop event notification. */
  runId: string;
  seed?: number;
  budgetSeconds?: number;
  /** Client-created work-done progress token (LSP WorkDoneProgressParams). */
  workDoneToken?: string | number;
}

export interface LoopEventParams {
  runId: string;
  uri: string;
  event: LoopEvent;
}

export interface CoverageParams {
  uri: string;
}

export interface CoverageResult {
  result: GenerateResult | null;
  /** Per-line hits for overlays. */
  lines: LineCoverage[];
}

export interface SteerParams {
  runId: string;
  text: string;
}

export interface AskParams {
  uri: string;
  question: string;
  askId: string;
}

export interface AskChunkParams {
  askId: string;
  text: string;
  done: boolean;
}

export interface ListModelsResult {
  models: ModelChoice[];
}

export interface ExportLcovParams {
  uri: string;
}

export interface ExportLcovResult {
  lcov: string;
}

export type ModelStatusParams = ModelStatus;

/** Result of `chorus/generate`. */
export type GenerateResponse = GenerateResult;

export type { CoverageReport };
