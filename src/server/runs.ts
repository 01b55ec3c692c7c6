/**
 * `chorus/generate`: one closure run per DUT at a time, events streamed as `chorus/loopEvent`, progress through
 * work-done reports, cancellation from `$/cancelRequest` turned into the engine's AbortSignal.
 */
import type { CancellationToken, Connection, WorkDoneProgressReporter, WorkDoneProgressServerReporter } from 'vscode-languageserver';
import { generateToEnd, overallPct } from '../engine';
import { ChorusError, Methods, type GenerateParams, type GenerateResult, type LoopEvent, type Logger } from '../protocol';
import { selectDutFiles } from './dutFiles';
import type { ModelHost } from './models';
import type { ResultStore } from './results';
import { readSettings } from './settings';
import { uriToPath } from './uris';

interface ActiveRun {
  runId: string;
  key: string;
  controller: AbortController;
  steering: string[];
}

export class RunManager {
  private readonly active = new Map<string, ActiveRun>();

  constructor(
    private readonly connection: Connection,
    private readonly logger: Logger,
    private readonly models: ModelHost,
    private readonly results: ResultStore,
    private readonly configSupported: () => boolean,
    private readonly onFinished: (files: string[]) => void,
  ) {}

  isRunning(): boolean {
    return this.active.size > 0;
  }

  steer(runId: string, text: string): boolean {
    for (const run of this.active.values()) {
      if (run.runId === runId) {
        run.steering.push(text);
        return true;
      }
    }
    return false;
  }

  cancelAll(): void {
    for (const r of this.active.values()) r.controller.abort();
  }

  async generate(params: GenerateParams, token: CancellationToken, progress: WorkDoneProgressReporter): Promise<GenerateResult> {
    const document = uriToPath(params.uri);
    const settings = await readSettings(this.connection, params.uri, this.configSupported());
    const selection = await selectDutFiles(document, params.top, params.files?.map(uriToPath));
    const key = `${selection.top}|${[...selection.files].sort().join('|')}`;
    if (this.active.has(key)) {
      throw new ChorusError('bad_input', `A run on ${selection.top} is already in progress: stop it first (CHORUS: Stop).`);
    }
    const controller = new AbortController();
    const run: ActiveRun = { runId: params.runId, key, controller, steering: [] };
    this.active.set(key, run);
    const cancel = token.onCancellationRequested(() => controller.abort());
    progress.begin(`CHORUS: ${selection.top}`, 0, 'starting…', true);
    // Server-created progress can be cancelled from the notification itself.
    const progressCancel = 'token' in progress ? (progress as WorkDoneProgressServerReporter).token.onCancellationRequested(() => controller.abort()) : undefined;
    try {
      const engine = this.models.engineFor(settings, params.engine);
      const backend = engine === 'random' ? undefined : await this.models.backendFor(settings, params.model, controller.signal);
      const send = (event: LoopEvent) => {
        void this.connection.sendNotification(Methods.loopEvent, { runId: params.runId, uri: params.uri, event });
        if (event.type === 'roundStart') progress.report(`round ${event.round}`);
        if (event.type === 'coverage' && event.status === 'ok') {
          progress.report(Math.round(overallPct(event.coverage)), `round ${event.round}: line ${event.coverage.line.pct}% · branch ${event.coverage.branch.pct}%`);
        }
      };
      const result = await generateToEnd(
        {
          rtlFiles: selection.files,
          specFiles: params.specs?.map(uriToPath),
          top: selection.top,
          engine,
          targets: params.targets ?? settings.targets,
          rounds: params.rounds ?? settings.maxRounds,
          seed: params.seed,
          budgetSeconds: params.budgetSeconds,
          simTimeoutSeconds: settings.simTimeoutSeconds,
        },
        {
          logger: this.logger,
          signal: controller.signal,
          backend,
          steering: { take: () => run.steering.splice(0) },
          verilatorPath: settings.verilatorPath || undefined,
        },
        send,
      );
      if (backend) this.models.publish({ ...this.models.status, state: 'ready' });
      // A stopped run answers as cancelled: its partial figures must not replace the last finished run's.
      if (result.stopReason === 'cancelled' || controller.signal.aborted) throw new ChorusError('cancelled', 'Stopped.');
      this.results.set({ result, files: selection.files, finishedAt: Date.now() });
      this.onFinished(selection.files);
      return result;
    } finally {
      cancel.dispose();
      progressCancel?.dispose();
      progress.done();
      this.active.delete(key);
    }
  }
}
