/**
 * The model lives here, in the server process: opened lazily for the first run that needs it, kept warm between
 * runs, released on idle or shutdown. Its state goes to the client as `chorus/modelStatus`.
 */
import type { Connection } from 'vscode-languageserver';
import { BackendPool, chooseEngine, findModel, openModel, type ModelProvider } from '../engine';
import { ChorusError, Notifications, type ChorusSettings, type EngineName, type Logger, type ModelStatus } from '../protocol';
import { sendNotification } from './rpc';

export class ModelHost {
  private readonly pool = new BackendPool({ idleMs: 10 * 60_000 });
  private last: ModelStatus = { state: 'not_configured' };
  /** What `chooseEngine` picks for `auto` with the window's settings; updated by `settingsChanged`. */
  private autoEngine: EngineName = 'random';

  constructor(
    private readonly connection: Connection,
    private readonly logger: Logger,
    readonly modelDirs: string[],
  ) {}

  get status(): ModelStatus {
    return this.last;
  }

  publish(status: ModelStatus): void {
    this.last = status;
    sendNotification(this.connection, Notifications.modelStatus, { ...status, autoEngine: this.autoEngine });
  }

  /** The window's `chorus.*` settings (re)read: the client learns the engine an `auto` run would now use. */
  settingsChanged(settings: ChorusSettings): void {
    this.autoEngine = chooseEngine('auto', this.provider(settings));
    this.publish(this.last);
  }

  /**
   * The engine's view of the models for one request's settings: the model a run would use (`modelOverride`, the
   * setting, or a GGUF found in the model folders; or the endpoint), opened through the warm pool.
   */
  provider(settings: ChorusSettings, modelOverride?: string): ModelProvider {
    const model = modelOverride || findModel(settings.model, settings.endpoint, this.modelDirs);
    const endpoint = !modelOverride && settings.endpoint ? { baseUrl: settings.endpoint, model: settings.apiModel || undefined, apiKey: process.env.CHORUS_API_KEY } : undefined;
    return {
      configured: () => model || endpoint?.baseUrl,
      open: (signal) => this.open(settings, model, endpoint, signal),
    };
  }

  private async open(settings: ChorusSettings, model: string | undefined, endpoint: { baseUrl: string; model?: string; apiKey?: string } | undefined, signal: AbortSignal) {
    if (!model && !endpoint) {
      throw new ChorusError('bad_input', 'No model configured: set chorus.model to a GGUF file (or drop one into models/), or chorus.endpoint to an OpenAI-compatible server.');
    }
    const key = JSON.stringify({
      model,
      endpoint: endpoint?.baseUrl,
      apiModel: endpoint?.model,
      gpu: settings.gpu,
      ctx: settings.contextSize,
      threads: settings.threads,
      timeout: settings.requestTimeoutSeconds,
    });
    try {
      return await this.pool.get(key, () =>
        openModel(model, {
          logger: this.logger,
          signal,
          onStatus: (s) => this.publish(s),
          gpu: settings.gpu === 'cpu' ? false : settings.gpu,
          contextSize: settings.contextSize || undefined,
          threads: settings.threads || undefined,
          modelDirs: this.modelDirs,
          endpoint: endpoint && { ...endpoint, responseTimeoutMs: settings.requestTimeoutSeconds * 1000, idleTimeoutMs: settings.requestTimeoutSeconds * 1000 },
        }),
      );
    } catch (err) {
      this.publish({ state: 'error', model, message: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  }

  async dispose(): Promise<void> {
    await this.pool.disposeAll();
  }
}
