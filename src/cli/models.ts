/** The CLI's models: `--model`, CHORUS_MODEL or a GGUF found in models/, or `--endpoint`; one backend per run. */
import { findModel, openModel, type ChatBackend, type ModelProvider } from '../engine';
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
}

/** A provider for one command: what it opened is closed by `dispose()` when the command ends. */
export function cliModels(flags: ModelFlags, ctx: CliContext): ModelProvider & { dispose(): Promise<void> } {
  const model = findModel(flags.model ?? process.env.CHORUS_MODEL, flags.endpoint, cliModelDirs());
  const opened: ChatBackend[] = [];
  return {
    configured: () => model || flags.endpoint,
    async open(signal) {
      if (!model && !flags.endpoint) {
        throw new ChorusError('bad_input', 'No model configured: pass --model <path|id|replay:file> or --endpoint <url>, or use --engine random.');
      }
      const backend = await openModel(model, {
        logger: ctx.logger,
        signal,
        modelDirs: cliModelDirs(),
        gpu: flags.gpu === 'cpu' ? false : flags.gpu,
        contextSize: flags.contextSize,
        threads: flags.threads,
        endpoint: flags.endpoint
          ? {
              baseUrl: flags.endpoint,
              model: flags.apiModel,
              apiKey: process.env.CHORUS_API_KEY,
              ...(flags.requestTimeout ? { responseTimeoutMs: flags.requestTimeout * 1000, idleTimeoutMs: flags.requestTimeout * 1000 } : {}),
            }
          : undefined,
      });
      opened.push(backend);
      return backend;
    },
    async dispose() {
      await Promise.all(opened.splice(0).map((b) => b.dispose()));
    },
  };
}
