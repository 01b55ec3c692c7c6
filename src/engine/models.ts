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
import type { EngineName } from '../protocol';

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

/** `auto` (or nothing asked): the model when one is configured or found, else the model-free search. */
export function chooseEngine(requested: EngineName | 'auto' | undefined, models: ModelProvider): EngineName {
  if (requested && requested !== 'auto') return requested;
  return models.configured() ? 'llm' : 'random';
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
