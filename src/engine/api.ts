/** The engine's entry contract, shared by the CLI, the language server and tests. */
import type { CoveragePoint, EngineName, GenerateResult, Logger, Targets } from '../protocol';
import type { ChatBackend } from '../llm';
import type { ModelProvider } from './models';
import type { Clock } from './clock';

export interface GenerateRequest {
  /** DUT source files (absolute paths). */
  rtlFiles: string[];
  /** Specification files (absolute paths), given to the model as context. */
  specFiles?: string[];
  /** DUT top module; found by analysis when omitted. */
  top?: string | undefined;
  /** `+incdir` folders of the design (absolute), from `-I` or a filelist. */
  includeDirs?: string[] | undefined;
  /** `+define+` macros of the design (`-D`, a filelist); an `undefined` value defines the name alone. */
  defines?: Record<string, string | undefined> | undefined;
  /** Parameter overrides of the DUT top (`-G name=value`), as Verilog literals. */
  parameters?: Record<string, string> | undefined;
  /** Instance name of the DUT in the testbench; `uut` by default. */
  instanceName?: string | undefined;
  engine: EngineName;
  targets: Targets;
  /** LLM refinement rounds after the first generation (default 3: 1 + 3 generations, LLM4Cov's protocol). */
  rounds?: number | undefined;
  seed?: number | undefined;
  /** Model-free search budget in seconds. */
  budgetSeconds?: number | undefined;
  /** Wall-clock bound per simulation, in seconds. */
  simTimeoutSeconds?: number | undefined;
  /** Stop after this many rounds without a coverage gain. */
  stallRounds?: number;
  /** Folder for generated files of this run; a fresh temporary folder when omitted. */
  workDir?: string;
  /** Extra instruction text for the model (a benchmark item's `instruction`), added to the prompt's instructions. */
  instruction?: string;
  /** A JSON file of prompt templates over the built-in ones (for a model trained on other wording). */
  promptTemplates?: string;
  /** How often a model reply with no code (or an empty one) is asked again within its round; default 1. */
  parseRetries?: number;
  /** The model's context in tokens, for fitting prompts (a local model reports its own; an endpoint's is unknown). */
  contextSize?: number | undefined;
  /**
   * Candidate testbenches per LLM round, spread over the experts; the simulator keeps the best. Default: one per
   * expert with several experts, else 1 on a CPU and 4 on an endpoint or a GPU.
   */
  candidates?: number | undefined;
  /**
   * The formal engine (Yosys) on the holes the model-free search leaves: proofs of unreachability, witness
   * stimulus. Default on for the random and hybrid engines; false turns it off.
   */
  formal?: boolean;
  /**
   * Judge the targets on raw coverage: points proven unreachable or waived count as missed (default: they are
   * excluded, as signoff tools count them; see src/engine/verdict.ts).
   */
  requireRaw?: boolean;
  /**
   * A waiver file (docs/waivers.md) checked against the run and written back with its new proofs; its entries
   * exclude the points they waive. `force` replaces a file at that path that CHORUS did not write.
   */
  waivers?: { file: string; force?: boolean };
  /**
   * The user's regression (`--merge`): coverage.dat files (absolute) of their own testbenches, the run's starting
   * state; only what they leave is targeted and the result reports the regression, CHORUS's addition and the merge.
   */
  regression?: string[];
  /** Sampling for model replies; `seed` above also seeds it, one derived seed per round. */
  sampling?: { temperature?: number; topP?: number; maxTokens?: number; thinking?: boolean };
}

export interface EngineServices {
  logger: Logger;
  signal: AbortSignal;
  /** The chat backend for `llm`/`hybrid`, opened by the caller; else `models` opens one when the engine needs it. */
  backend?: ChatBackend | undefined;
  /** Experts opened by the caller (a bench opens them once for every item); else `models.experts` opens them. */
  experts?: ChatBackend[] | undefined;
  /** The adapter's models: what is configured and how to open it (the engine calls it for `llm`/`hybrid`). */
  models?: ModelProvider;
  /** User instructions queued from the chat panel; the loop drains them at the start of each round. */
  steering?: { take(): string[] };
  verilatorPath?: string | undefined;
  cacheDir?: string | undefined;
  /** Most memory CHORUS and a tool building or running a testbench (Verilator, g++, the simulator) may hold; default 4 GiB. */
  memoryLimitBytes?: number | undefined;
  /** Byte cap of the build cache; default 2 GiB. */
  cacheMaxBytes?: number | undefined;
  /** The clock the model loop's wall-clock budget runs on; default the system clock (tests inject their own). */
  clock?: Clock | undefined;
}

/** The engine's result: what goes on the wire, plus the measured points the engine side keeps (lcov export). */
export interface EngineResult extends GenerateResult {
  points: CoveragePoint[];
}
