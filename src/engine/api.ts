/** The engine's entry contract, shared by the CLI, the language server and tests. */
import type { EngineName, Logger, Targets } from '../protocol';
import type { ChatBackend } from '../llm/backend';

export interface GenerateRequest {
  /** DUT source files (absolute paths). */
  rtlFiles: string[];
  /** Specification files (absolute paths), given to the model as context. */
  specFiles?: string[];
  /** DUT top module; found by analysis when omitted. */
  top?: string;
  /** Instance name of the DUT in the testbench; `uut` by default. */
  instanceName?: string;
  engine: EngineName;
  targets: Targets;
  /** LLM rounds (default 3, the paper's protocol). */
  rounds?: number;
  seed?: number;
  /** Model-free search budget in seconds. */
  budgetSeconds?: number;
  /** Wall-clock bound per simulation, in seconds. */
  simTimeoutSeconds?: number;
  /** Stop after this many rounds without a coverage gain. */
  stallRounds?: number;
  /** A starting testbench (hybrid engine, or a user's own). */
  initialTestbench?: string;
  /** Folder for generated files of this run; a fresh temporary folder when omitted. */
  workDir?: string;
  /** Workspace root: includes outside it are rejected by the sandbox check. */
  workspaceRoot?: string;
}

export interface EngineServices {
  logger: Logger;
  signal: AbortSignal;
  /** The chat backend for `llm`/`hybrid`; opened by the caller, kept warm across runs. */
  backend?: ChatBackend;
  /** User instructions queued from the chat panel; the loop drains them at the start of each round. */
  steering?: { take(): string[] };
  verilatorPath?: string;
  cacheDir?: string;
}
