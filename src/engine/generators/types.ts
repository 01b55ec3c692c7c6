/** What every generator is: one call that runs on a prepared DUT, streams loop events and hands back an outcome. */
import type { CoveragePoint, CoverageReport, EngineName, GenerateResult, LoopEvent } from '../../protocol';
import type { EngineServices } from '../api';
import type { Emit } from '../channel';
import type { RunContext } from '../context';

/** A generator's result, with what a following generator needs to continue from it. */
export interface Outcome {
  result: GenerateResult;
  /** The measured report of the result's testbench; null when no testbench was measured. */
  report: CoverageReport | null;
  /** Its coverage points. */
  points: CoveragePoint[];
  /** The file name its testbench was measured under. */
  filename: string;
}

export interface Generator {
  readonly name: EngineName;
  generate(ctx: RunContext, services: EngineServices, emit: Emit<LoopEvent>): Promise<Outcome>;
}

/** A run's knobs, resolved from the request once for every generator. */
export interface RunSettings {
  rounds: number;
  stallRounds: number;
  seed: number;
  /** Wall-clock budget for the run, in ms; each generator's own default when absent. */
  budgetMs?: number | undefined;
  /** When the run started (before its design check and build), on the wall clock: budgets count from here. */
  startedAt?: number | undefined;
  simTimeoutMs: number;
  /** The seed the user gave (seeds model sampling per round); unset: the backend's own randomness. */
  samplingSeed?: number;
  /** Extra instruction text for the model's opening prompt. */
  instruction?: string;
  /** A JSON file of prompt templates over the built-in ones. */
  promptTemplates?: string;
  /** How often a reply with no code is asked again within its round. */
  parseRetries?: number;
  /** Candidate testbenches per LLM round; the loop's default when absent. */
  candidates?: number;
  contextSize?: number;
  /** Judge on raw coverage (`--require-raw`): excluded points count as missed. */
  requireRaw?: boolean;
  /** The waiver file to check against the run and write back (absolute). */
  waivers?: { file: string; force: boolean };
  /** Whether the model-free search hands the holes it stalls on to the formal engine. */
  formal: boolean;
  sampling?: { temperature?: number; topP?: number; maxTokens?: number; thinking?: boolean };
}
