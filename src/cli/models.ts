/** The CLI's models: `--model`, CHORUS_MODEL or a GGUF found in models/, or `--endpoint`; one backend per run. */
import {
  findModel,
  GPU_CANDIDATES,
  openModel,
  openModelExperts,
  type ChatBackend,
  type ModelProvider,
  type OpenedExperts,
} from '../engine';
import { ChorusError, type GpuSetting } from '../protocol';
import type { CliContext } from './context';
import { cliModelDirs } from './modelDirs';

export interface ModelFlags {
  model?: string;
  endpoint?: string;
  apiModel?: string;
  /** Tokens of context to allocate for a local model. */
  contextSize?: number;
  gpu?: GpuSetting;
  threads?: number;
  /** Seconds an endpoint may take to start answering, and to stay silent mid-stream. */
  requestTimeout?: number;
  /** `--expert` URIs: the experts a run's candidates are spread over. */
  expert?: string[];
  /** `--candidates`: candidate testbenches per round (a local GPU model gets as many sequences). */
  candidates?: number;
}

/** A provider for one command: what it opened is closed by `dispose()` when the command ends. */
export function cliModels(flags: ModelFlags, ctx: CliContext): ModelProvider & { dispose(): Promise<void> } {
  const model = findModel(flags.model ?? process.env.CHORUS_MODEL, flags.endpoint, cliModelDirs());
  const opened: ChatBackend[] = [];
  const expertUris = flags.expert ?? [];
  const backendOptions = (signal: AbortSignal) => ({
    logger: ctx.logger,
    signal,
    modelDirs: cliModelDirs(),
    gpu: flags.gpu === 'cpu' ? (false as const) : flags.gpu,
    contextSize: flags.contextSize,
    threads: flags.threads,
    parallel: flags.candidates ?? GPU_CANDIDATES,
    endpoint: flags.endpoint
      ? {
          baseUrl: flags.endpoint,
          model: flags.apiModel,
          apiKey: process.env.CHORUS_API_KEY,
          ...(flags.requestTimeout
            ? { responseTimeoutMs: flags.requestTimeout * 1000, idleTimeoutMs: flags.requestTimeout * 1000 }
            : {}),
        }
      : undefined,
  });
  // Experts are opened once per command (a bench shares them between items) and closed with it.
  let experts: Promise<OpenedExperts> | undefined;
  const openExpertSet = (signal: AbortSignal): Promise<OpenedExperts> => {
    // Each expert gets the sequences for its share of a round's candidates (one each by default).
    const share = flags.candidates ? Math.ceil(flags.candidates / expertUris.length) : 1;
    experts ??= openModelExperts(expertUris, { ...backendOptions(signal), parallel: share, baseModel: model }).then(
      (set) => {
        opened.push(...set.experts);
        return set;
      },
    );
    return experts;
  };
  return {
    configured: () => model || flags.endpoint || expertUris[0],
    async open(signal) {
      if (!model && !flags.endpoint && expertUris.length) {
        // Experts alone: the first that opens stands as the run's model (its context sizes the prompts).
        const set = await openExpertSet(signal);
        if (set.experts[0]) return set.experts[0];
        throw new ChorusError(
          'bad_input',
          `No expert could be opened: ${set.failures.map((f) => `${f.expert}: ${f.message}`).join('; ')}.`,
        );
      }
      if (!model && !flags.endpoint) {
        throw new ChorusError(
          'bad_input',
          'No model configured: pass --model <path|id|replay:file> or --endpoint <url>, or use --engine random.',
        );
      }
      const backend = await openModel(model, backendOptions(signal));
      opened.push(backend);
      return backend;
    },
    ...(expertUris.length ? { experts: openExpertSet } : {}),
    async dispose() {
      await Promise.all(opened.splice(0).map((b) => b.dispose()));
    },
  };
}
