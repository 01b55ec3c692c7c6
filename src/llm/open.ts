/** One entry point for every kind of model: replay file, OpenAI-compatible endpoint, or a local GGUF. */
import { ChorusError, throwIfAborted, type Logger } from '../protocol';
import type { ChatBackend, ModelStatusListener, SamplingOptions } from './backend';
import { EndpointBackend, type EndpointOptions } from './endpoint/openai';
import type { GpuSetting } from './local/compute';
import { LocalBackend } from './local/localBackend';
import { resolveModelFile } from './models/resolve';
import { ReplayBackend } from './replay';

export interface OpenBackendOptions {
  logger: Logger;
  /** Cancels the opening only; the backend itself outlives it (it may be kept warm). */
  signal?: AbortSignal;
  onStatus?: ModelStatusListener;
  gpu?: GpuSetting | undefined;
  contextSize?: number | undefined;
  /** Folders searched for `*.gguf` and downloaded models: models/ and the extension's storage. */
  modelDirs?: string[];
  manifestPath?: string;
  /** When given, the model is served there (the `model` argument is then ignored unless it is `replay:`). */
  endpoint?: EndpointOptions | undefined;
  sampling?: SamplingOptions;
  /** CPU threads for a local model. */
  threads?: number | undefined;
  /** Calls a local model on a GPU generates side by side (a round's candidates). */
  parallel?: number;
}

/**
 * `replay:<file.json>` | a .gguf path | a manifest id | an `hf:`/https URI already pulled; with `endpoint`, an
 * OpenAI-compatible server. Never touches the network for a local model: `chorus model pull` does that.
 * A local model is loaded on first use (or `load()`), not here.
 */
export async function openBackend(model: string | undefined, opts: OpenBackendOptions): Promise<ChatBackend> {
  throwIfAborted(opts.signal);
  if (model?.startsWith('replay:')) {
    const file = model.slice('replay:'.length);
    if (!file) throw new ChorusError('bad_input', 'replay: needs a file: --model replay:<file.json>.');
    return ReplayBackend.open(file, opts.onStatus);
  }
  if (opts.endpoint) {
    const backend = new EndpointBackend({
      ...opts.endpoint,
      logger: opts.logger,
      onStatus: opts.onStatus,
      sampling: opts.sampling,
    });
    opts.onStatus?.({ state: 'ready', model: backend.label, backend: 'endpoint' });
    return backend;
  }
  if (!model) {
    throw new ChorusError(
      'bad_input',
      'No model configured: pass --model <file.gguf|id|replay:file.json> (chorus.model), put a .gguf into models/, or use --endpoint <url>.',
    );
  }
  return openLocal(model, opts);
}

/** A local GGUF backend (a file or a manifest id), with the options' compute settings; `label` from the manifest unless given. */
export function openLocal(
  model: string,
  opts: OpenBackendOptions,
  extra: {
    label?: (path: string, id?: string) => string | undefined;
    lora?: { filePath: string; scale?: number }[];
  } = {},
): LocalBackend {
  const { path, entry } = resolveModelFile(model, { modelDirs: opts.modelDirs ?? [], manifestPath: opts.manifestPath });
  return new LocalBackend({
    modelPath: path,
    label: extra.label ? extra.label(path, entry?.id) : entry?.id,
    logger: opts.logger,
    onStatus: opts.onStatus,
    gpu: opts.gpu,
    contextSize: opts.contextSize ?? entry?.contextSize,
    sampling: opts.sampling,
    threads: opts.threads,
    parallel: opts.parallel,
    ...(extra.lora ? { lora: extra.lora } : {}),
  });
}
