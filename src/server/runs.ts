/**
 * `chorus/generate`: one closure run per DUT at a time, events streamed as `chorus/loopEvent`, progress through
 * work-done reports, cancellation from `$/cancelRequest` turned into the engine's AbortSignal.
 */
import type { CancellationToken, Connection, WorkDoneProgressReporter } from 'vscode-languageserver';
import { checkOutputTarget, generateToEnd, overallPct, planRun, readWaiverFile } from '../engine';
import {
  ChorusError,
  Notifications,
  parseByteSize,
  type GenerateParams,
  type GenerateResult,
  type LoopEvent,
  type Logger,
} from '../protocol';
import type { ModelHost } from './models';
import type { ResultStore } from './results';
import { sendNotification } from './rpc';
import { folderOf, resolveDesign } from './design';
import { readDesignSettings, readSettings } from './settings';
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
    /** A run's end: its DUT files and its result (the design's lint warnings among it). */
    private readonly onFinished: (files: string[], result: GenerateResult) => void,
    /** The workspace folders (absolute): relative design settings resolve against the document's. */
    private readonly folders: () => readonly string[] = () => [],
  ) {}

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

  /** Runs one request to the end and answers its wire result; the store keeps the points for lcov export. */
  /** `progressCancel`: the Cancel button of a progress the server created (a client-made one has none here). */
  async generate(
    params: GenerateParams,
    token: CancellationToken,
    progress: WorkDoneProgressReporter,
    progressCancel?: CancellationToken,
  ): Promise<GenerateResult> {
    const settings = await readSettings(this.connection, params.uri, this.configSupported(), (message) =>
      this.logger.warn(message),
    );
    const models = this.models.provider(settings, params.model);
    // The design settings: the filelist's sources when it lists the document, its and the settings' include
    // folders and macros, and the top's parameters (a bad setting or list line fails here, naming it).
    const document = uriToPath(params.uri);
    const design = await resolveDesign(
      await readDesignSettings(this.connection, params.uri, this.configSupported()),
      document,
      folderOf(document, this.folders()),
    );
    const regression = params.regression?.map(uriToPath) ?? design.regression;
    if (design.waiverFile) await checkWaiverSetting(design.waiverFile, [document, ...(design.files ?? [])]);
    const { request, dut } = await planRun(
      {
        document,
        files: params.files?.map(uriToPath) ?? design.files,
        ...(design.includeDirs.length ? { includeDirs: design.includeDirs } : {}),
        ...(Object.keys(design.defines).length ? { defines: design.defines } : {}),
        ...(Object.keys(design.parameters).length ? { parameters: design.parameters } : {}),
        top: params.top,
        engine: params.engine ?? settings.engine,
        targets: params.targets ?? settings.targets,
        rounds: params.rounds ?? settings.maxRounds,
        seed: params.seed,
        budgetSeconds: params.budgetSeconds,
        simTimeoutSeconds: settings.simTimeoutSeconds,
        // The signoff files: the waiver file is checked and written back by the output rule (never a file CHORUS
        // did not write), the regression is the run's starting state (params first, then the setting).
        ...(design.waiverFile ? { waivers: { file: design.waiverFile } } : {}),
        ...(regression.length ? { regression } : {}),
        contextSize: settings.contextSize || undefined,
        ...(settings.candidates ? { candidates: settings.candidates } : {}),
        ...(settings.promptTemplates ? { promptTemplates: settings.promptTemplates } : {}),
        sampling: {
          temperature: settings.temperature,
          maxTokens: settings.maxTokens,
          ...(settings.thinking !== 'auto' ? { thinking: settings.thinking === 'on' } : {}),
        },
      },
      models,
    );
    const top = dut.top.name;
    const key = `${top}|${[...dut.files].sort().join('|')}`;
    if (this.active.has(key)) {
      throw new ChorusError('bad_input', `A run on ${top} is already in progress: stop it first (CHORUS: Stop).`);
    }
    const controller = new AbortController();
    const run: ActiveRun = { runId: params.runId, key, controller, steering: [] };
    this.active.set(key, run);
    const cancel = token.onCancellationRequested(() => controller.abort());
    progress.begin(`CHORUS: ${top}`, 0, 'starting…', true);
    const progressCancelled = progressCancel?.onCancellationRequested(() => controller.abort());
    try {
      const send = (event: LoopEvent) => {
        sendNotification(this.connection, Notifications.loopEvent, { runId: params.runId, uri: params.uri, event });
        if (event.type === 'roundStart') progress.report(`round ${event.round}`);
        if (event.type === 'coverage' && event.status === 'ok') {
          progress.report(
            Math.round(overallPct(event.coverage)),
            `round ${event.round}: line ${event.coverage.line.pct}% · branch ${event.coverage.branch.pct}%`,
          );
        }
      };
      const { points, ...result } = await generateToEnd(
        request,
        {
          logger: this.logger,
          signal: controller.signal,
          models,
          steering: { take: () => run.steering.splice(0) },
          verilatorPath: settings.verilatorPath || undefined,
          // Checked when read: both parse (the defaults, `4G` and `2G`, stand in for a bad value).
          memoryLimitBytes: parseByteSize(settings.memoryLimit),
          cacheMaxBytes: parseByteSize(settings.cacheMax),
        },
        send,
        dut,
      );
      if (request.engine !== 'random') this.models.publish({ ...this.models.status, state: 'ready' });
      // A stopped run answers as cancelled: its partial figures must not replace the last finished run's.
      if (result.stopReason === 'cancelled' || controller.signal.aborted)
        throw new ChorusError('cancelled', 'Stopped.');
      this.results.set({ result, points, files: dut.files, finishedAt: Date.now() });
      this.onFinished(dut.files, result);
      return result;
    } finally {
      cancel.dispose();
      progressCancelled?.dispose();
      progress.done();
      this.active.delete(key);
    }
  }
}

/**
 * `chorus.waiverFile` before the run, so a refusal comes before minutes of work: a file CHORUS did not write is
 * never replaced from the editor (the setting has no `force`), and a malformed one is refused naming its line.
 */
export async function checkWaiverSetting(file: string, inputs: string[]): Promise<void> {
  try {
    await checkOutputTarget({ path: file, option: 'chorus.waiverFile', kind: 'waivers', force: false, inputs });
  } catch (err) {
    if (!(err instanceof ChorusError)) throw err;
    throw new ChorusError(
      'bad_input',
      `chorus.waiverFile names ${file}, which CHORUS may not write (${err.message.replace(/\.$/, '')}): a waiver file begins "# CHORUS waivers" (docs/waivers.md); choose another path, or clear the setting.`,
      { file },
      { cause: err },
    );
  }
  await readWaiverFile(file);
}
