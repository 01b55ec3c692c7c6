/**
 * Which engine a run uses, decided once for every adapter: an adapter injects a `ModelProvider` (what model is
 * configured or found, and how to open its backend: the server keeps a warm pool behind it, the CLI opens one
 * per run) and the engine asks it.
 */
import {
  findDefaultModel,
  openBackend,
  openExperts,
  type ChatBackend,
  type ExpertOptions,
  type OpenBackendOptions,
  type OpenedExperts,
} from '../llm';
import { ChorusError, type EngineName } from '../protocol';

export interface ModelProvider {
  /** The model a run would use (a file, manifest id, `replay:` file or endpoint), or undefined when there is none. */
  configured(): string | undefined;
  /** The chat backend for that model; the provider owns it (disposes it, or keeps it warm for the next run). */
  open(signal: AbortSignal): Promise<ChatBackend>;
  /**
   * The experts a run spreads its candidates over (`--expert`, `chorus.experts`), when any are configured: each
   * opened (and owned by the provider, as `open`'s backend is), or reported with why it failed.
   */
  experts?(signal: AbortSignal): Promise<OpenedExperts>;
}

/** The engine a run uses, and whether it is missing the model it needs: decided here, for every adapter. */
export interface EngineDecision {
  engine: EngineName;
  /** The model the provider has (configured, or a GGUF found in the model folders). */
  model?: string;
  /** The engine needs a model (llm, hybrid) and the provider has none: the run cannot start. */
  missingModel: boolean;
}

/**
 * The one decision of engine and model need. `auto` (or nothing asked): the model when one is configured or
 * found, else the model-free search; an asked engine as asked, missing its model when it needs one and there is none.
 */
export function decideEngine(requested: EngineName | 'auto' | undefined, models: ModelProvider): EngineDecision {
  const model = models.configured();
  const engine = requested && requested !== 'auto' ? requested : model ? 'llm' : 'random';
  return { engine, ...(model ? { model } : {}), missingModel: engine !== 'random' && !model };
}

/** The error of a run whose engine is missing its model (`EngineDecision.missingModel`), for every adapter. */
export function missingModelError(engine: EngineName): ChorusError {
  return new ChorusError(
    'bad_input',
    `The ${engine} engine needs a model, and none is configured or found in models/: pass --model <path|id|replay:file> or --endpoint <url> (in the editor: CHORUS: Select model…), or use the model-free engine (random).`,
  );
}

/** The engine of `decideEngine`. */
export function chooseEngine(requested: EngineName | 'auto' | undefined, models: ModelProvider): EngineName {
  return decideEngine(requested, models).engine;
}

/** The model a setting or flag names, else a GGUF found in the model folders (none when an endpoint serves it). */
export function findModel(
  model: string | undefined,
  endpoint: string | undefined,
  modelDirs: string[],
): string | undefined {
  return model || (endpoint ? undefined : findDefaultModel(modelDirs));
}

/** Opens a backend: a `replay:` file, an endpoint, or a local GGUF (loaded on first use). */
export function openModel(model: string | undefined, opts: OpenBackendOptions): Promise<ChatBackend> {
  return openBackend(model, opts);
}

/** Opens the experts a run spreads its candidates over (`--expert`, `chorus.experts`); failures are listed, not thrown. */
export function openModelExperts(uris: readonly string[], opts: ExpertOptions): Promise<OpenedExperts> {
  return openExperts(uris, opts);
}

export type { OpenedExperts };
