/**
 * The model lives here, in the server process: opened lazily for the first run that needs it, kept warm between
 * runs, released on idle or shutdown. Its state goes to the client as `chorus/modelStatus`.
 */
import type { Connection } from 'vscode-languageserver';
import {
  BackendPool,
  decideEngine,
  findModel,
  GPU_CANDIDATES,
  openModel,
  openModelExperts,
  type ModelProvider,
  type OpenedExperts,
} from '../engine';
import {
  ChorusError,
  Notifications,
  type ChorusSettings,
  type EngineName,
  type Logger,
  type ModelStatus,
} from '../protocol';
import { sendNotification } from './rpc';

/** What an opened model or expert set depends on: a change of any of these opens it again. */
function openingKey(
  settings: ChorusSettings,
  model: string | undefined,
  endpoint: { baseUrl: string; model?: string | undefined } | undefined,
) {
  return {
    model,
    endpoint: endpoint?.baseUrl,
    apiModel: endpoint?.model,
    gpu: settings.gpu,
    ctx: settings.contextSize,
    threads: settings.threads,
    timeout: settings.requestTimeoutSeconds,
    candidates: settings.candidates,
  };
}

export class ModelHost {
  private readonly pool = new BackendPool({ idleMs: 10 * 60_000 });
  private last: ModelStatus = { state: 'not_configured' };
  /** What `chooseEngine` picks for `auto` with the window's settings; updated by `settingsChanged`. */
  private autoEngine: EngineName = 'random';
  private modelAvailable = false;
  /** The opening (`openingKey`) that `last` describes: settings that name another model make it stale. */
  private statusKey?: string | undefined;
  private expertSet?: { key: string; opened: Promise<OpenedExperts> } | undefined;

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
    sendNotification(this.connection, Notifications.modelStatus, {
      ...status,
      autoEngine: this.autoEngine,
      modelAvailable: this.modelAvailable,
    });
  }

  /** The window's `chorus.*` settings (re)read: the client learns the engine an `auto` run would now use. */
  settingsChanged(settings: ChorusSettings): void {
    const { model, endpoint } = this.target(settings);
    if (this.statusKey !== undefined && this.statusKey !== JSON.stringify(openingKey(settings, model, endpoint))) {
      // Another model now: the last status (say, another model "ready") is not about it until it opens.
      this.last = { state: 'not_configured' };
      this.statusKey = undefined;
    }
    const decided = decideEngine('auto', this.provider(settings));
    this.autoEngine = decided.engine;
    // An explicit model run would have its model: the engine's own answer, shown by the client.
    this.modelAvailable = !decideEngine('llm', this.provider(settings)).missingModel;
    this.publish(this.last);
  }

  /**
   * The engine's view of the models for one request's settings: the model a run would use (`modelOverride`, the
   * setting, or a GGUF found in the model folders; or the endpoint), opened through the warm pool.
   */
  provider(settings: ChorusSettings, modelOverride?: string): ModelProvider {
    const { model, endpoint } = this.target(settings, modelOverride);
    const experts = modelOverride ? [] : settings.experts;
    return {
      configured: () => model || endpoint?.baseUrl || experts[0],
      open: (signal) =>
        !model && !endpoint && experts.length
          ? this.firstExpert(settings, experts, signal)
          : this.open(settings, model, endpoint, signal),
      ...(experts.length
        ? { experts: (signal: AbortSignal) => this.openExperts(settings, experts, model, endpoint, signal) }
        : {}),
    };
  }

  /** The model a run with these settings opens: the override, the setting or a GGUF in the model folders; or the endpoint. */
  private target(settings: ChorusSettings, modelOverride?: string) {
    const model = modelOverride || findModel(settings.model, settings.endpoint, this.modelDirs);
    const endpoint =
      !modelOverride && settings.endpoint
        ? { baseUrl: settings.endpoint, model: settings.apiModel || undefined, apiKey: process.env.CHORUS_API_KEY }
        : undefined;
    return { model, endpoint };
  }

  /**
   * The experts of `chorus.experts`: the model and endpoint experts opened once per settings and kept warm beside the
   * pool (a LoRA expert shares its base with the pool's model); replay experts answer in order, so they are opened
   * afresh for each run (they hold no model). The set keeps the setting's order.
   */
  private async openExperts(
    settings: ChorusSettings,
    uris: string[],
    model: string | undefined,
    endpoint: { baseUrl: string; model?: string | undefined; apiKey?: string | undefined } | undefined,
    signal: AbortSignal,
  ): Promise<OpenedExperts> {
    const open = (group: string[]) =>
      openModelExperts(group, {
        logger: this.logger,
        signal,
        baseModel: model,
        gpu: settings.gpu === 'cpu' ? false : settings.gpu,
        contextSize: settings.contextSize || undefined,
        threads: settings.threads || undefined,
        // Each expert gets the sequences for its share of a round's candidates (one each by default).
        parallel: settings.candidates ? Math.ceil(settings.candidates / uris.length) : 1,
        modelDirs: this.modelDirs,
        endpoint: endpoint && {
          ...endpoint,
          responseTimeoutMs: settings.requestTimeoutSeconds * 1000,
          idleTimeoutMs: settings.requestTimeoutSeconds * 1000,
        },
      });
    const isReplay = (u: string) => u.startsWith('replay:');
    const warmUris = uris.filter((u) => !isReplay(u));
    const freshUris = uris.filter(isReplay);
    const none: OpenedExperts = { experts: [], failures: [] };
    const [warm, fresh] = await Promise.all([
      warmUris.length ? this.warmExperts(settings, warmUris, model, endpoint, () => open(warmUris)) : none,
      freshUris.length ? open(freshUris) : none,
    ]);
    // Back into the setting's order: candidates are spread over the experts round-robin in that order.
    const out: OpenedExperts = { experts: [], failures: [...warm.failures, ...fresh.failures] };
    const next = { warm: 0, fresh: 0 };
    for (const uri of uris) {
      if (out.failures.some((f) => f.expert === uri)) continue;
      const from = isReplay(uri) ? 'fresh' : 'warm';
      const backend = (from === 'fresh' ? fresh : warm).experts[next[from]++];
      if (backend) out.experts.push(backend);
    }
    return out;
  }

  /** The warm set of model and endpoint experts for these settings; a different set replaces (and releases) it. */
  private warmExperts(
    settings: ChorusSettings,
    uris: string[],
    model: string | undefined,
    endpoint: { baseUrl: string; model?: string | undefined } | undefined,
    open: () => Promise<OpenedExperts>,
  ): Promise<OpenedExperts> {
    const key = JSON.stringify({ uris, ...openingKey(settings, model, endpoint) });
    if (this.expertSet?.key !== key) {
      void this.releaseExperts();
      const opened = open();
      // A failed or cancelled opening is tried again by the next run.
      opened.catch(() => this.expertSet?.opened === opened && (this.expertSet = undefined));
      this.expertSet = { key, opened };
    }
    return this.expertSet.opened;
  }

  private async firstExpert(settings: ChorusSettings, uris: string[], signal: AbortSignal) {
    const set = await this.openExperts(settings, uris, undefined, undefined, signal);
    if (set.experts[0]) return set.experts[0];
    const why = set.failures.map((f) => `${f.expert}: ${f.message.replace(/\.$/, '')}`).join('; ');
    throw new ChorusError(
      'bad_input',
      `No expert in chorus.experts could be opened (${why}). Fix or remove them (chorus.experts).`,
    );
  }

  private async releaseExperts(): Promise<void> {
    const set = this.expertSet;
    this.expertSet = undefined;
    const opened = await set?.opened.catch(() => undefined);
    await Promise.all((opened?.experts ?? []).map((b) => b.dispose().catch(() => undefined)));
  }

  private async open(
    settings: ChorusSettings,
    model: string | undefined,
    endpoint: { baseUrl: string; model?: string | undefined; apiKey?: string | undefined } | undefined,
    signal: AbortSignal,
  ) {
    if (!model && !endpoint) {
      throw new ChorusError(
        'bad_input',
        'No model configured: set chorus.model to a GGUF file (or drop one into models/), or chorus.endpoint to an OpenAI-compatible server.',
      );
    }
    const key = JSON.stringify(openingKey(settings, model, endpoint));
    try {
      return await this.pool.get(key, () =>
        openModel(model, {
          logger: this.logger,
          signal,
          onStatus: (s) => {
            this.statusKey = key;
            this.publish(s);
          },
          gpu: settings.gpu === 'cpu' ? false : settings.gpu,
          contextSize: settings.contextSize || undefined,
          threads: settings.threads || undefined,
          // A round's candidates generate side by side on a GPU, one context sequence each.
          parallel: settings.candidates || GPU_CANDIDATES,
          modelDirs: this.modelDirs,
          endpoint: endpoint && {
            ...endpoint,
            responseTimeoutMs: settings.requestTimeoutSeconds * 1000,
            idleTimeoutMs: settings.requestTimeoutSeconds * 1000,
          },
        }),
      );
    } catch (err) {
      this.statusKey = key;
      this.publish({ state: 'error', model, message: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  }

  async dispose(): Promise<void> {
    await this.releaseExperts();
    await this.pool.disposeAll();
  }
}
