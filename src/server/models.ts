/**
 * The model lives here, in the server process: opened lazily for the first run that needs it, kept warm between
 * runs, released on idle or shutdown. Its state goes to the client as `chorus/modelStatus`.
 */
import type { Connection } from 'vscode-languageserver';
import { BackendPool, findDefaultModel, openBackend } from '../llm';
import type { ChatBackend } from '../llm/backend';
import { Methods, type EngineName, type Logger, type ModelStatus } from '../protocol';
import type { ChorusSettings } from '../protocol';

export class ModelHost {
  private readonly pool = new BackendPool({ idleMs: 10 * 60_000 });
  private last: ModelStatus = { state: 'not_configured' };

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
    void this.connection.sendNotification(Methods.modelStatus, status);
  }

  /** The model a run would use: the setting, or a GGUF found in the model folders. */
  configuredModel(settings: ChorusSettings): string | undefined {
    return settings.model || (settings.endpoint ? undefined : findDefaultModel(this.modelDirs));
  }

  engineFor(settings: ChorusSettings, requested?: EngineName): EngineName {
    if (requested) return requested;
    if (settings.engine !== 'auto') return settings.engine;
    return this.configuredModel(settings) || settings.endpoint ? 'llm' : 'random';
  }

  async backendFor(settings: ChorusSettings, modelOverride: string | undefined, signal: AbortSignal): Promise<ChatBackend> {
    const model = modelOverride || this.configuredModel(settings);
    const endpoint = !modelOverride && settings.endpoint ? { baseUrl: settings.endpoint, model: settings.apiModel || undefined, apiKey: process.env.CHORUS_API_KEY } : undefined;
    if (!model && !endpoint) {
      throw new Error('No model configured: set chorus.model to a GGUF file (or drop one into models/), or chorus.endpoint to an OpenAI-compatible server.');
    }
    const key = JSON.stringify({ model, endpoint: endpoint?.baseUrl, apiModel: endpoint?.model, gpu: settings.gpu, ctx: settings.contextSize });
    try {
      return await this.pool.get(key, () =>
        openBackend(model, {
          logger: this.logger,
          signal,
          onStatus: (s) => this.publish(s),
          gpu: settings.gpu === 'cpu' ? false : settings.gpu,
          contextSize: settings.contextSize || undefined,
          modelDirs: this.modelDirs,
          endpoint,
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
