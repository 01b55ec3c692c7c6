/**
 * Starts a run from the editor. The pre-flight: a trusted workspace, a design document not already being run,
 * saved; a model, or the user's choice of the model-free search; the top module. Then the `chorus/generate`
 * request, whose response is the run's one result: `onDidEnd` carries it (or why there is none), and the run is
 * over once every listener of `onDidEnd` has finished with it.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { EngineName, GenerateResponse } from '../protocol';
import { AsyncEmitter } from './asyncEvent';
import { describeError } from './errors';
import { isHdlDocument } from './languages';
import { topOf, type RunRecord, type RunRegistry } from './runRegistry';
import type { ChorusServer } from './server';
import { generateParams, needsModel, type ChorusSettings } from './settings';
import { pickTop } from './topPicker';
import { ensureTrusted } from './trust';

export interface LaunchOptions {
  /** The DUT document; the active editor's when absent. */
  dut?: vscode.Uri | undefined;
  /** The top module; asked for (when there are several candidates) when absent. */
  top?: string | undefined;
  /** Cancels the run too (a test run's token). */
  token?: vscode.CancellationToken;
  /** The test run to publish into (runs started from the Test Coverage profile). */
  testRun?: vscode.TestRun;
  /** coverage.dat files of the user's regression to start from (instead of `chorus.regressionCoverage`). */
  regression?: readonly vscode.Uri[];
  /** The engine, over the settings' (the model-free search the user chose for a regression). */
  engine?: EngineName;
}

export interface RunStart {
  run: RunRecord;
  /** The settings the run goes with (after the user's choice of engine, if asked). */
  settings: ChorusSettings;
  /** The test run it was started from, if any. */
  testRun?: vscode.TestRun | undefined;
}

export type RunOutcome =
  | { kind: 'completed'; result: GenerateResponse; ms: number }
  | { kind: 'cancelled' }
  | { kind: 'failed'; error: unknown };

export interface RunEnd {
  run: RunRecord;
  outcome: RunOutcome;
}

export interface LauncherDeps {
  server: Pick<ChorusServer, 'generate' | 'tops'>;
  runs: RunRegistry;
  settings(scope: vscode.Uri): ChorusSettings;
  /** Workspace state: the top last picked per DUT document. */
  state: Pick<vscode.Memento, 'get' | 'update'>;
  /** Opens the model picker. */
  selectModel(): Promise<unknown>;
  /** Whether a run has a model, as the server last said (`ModelStatusParams.modelAvailable`); undefined before. */
  modelAvailable(): boolean | undefined;
}

const TOPS_KEY = 'chorus.lastTop';
export const SELECT_MODEL = 'Select model…';
export const USE_MODEL_FREE = 'Use the model-free search';

export class RunLauncher implements vscode.Disposable {
  private readonly started = new vscode.EventEmitter<RunStart>();
  private readonly ended = new AsyncEmitter<RunEnd>();
  /** A run passed the pre-flight; its request is about to be sent. */
  readonly onDidStart = this.started.event;
  /** The request answered, failed or was cancelled. */
  readonly onDidEnd = this.ended.event;

  constructor(private readonly deps: LauncherDeps) {}

  /** Runs the closure loop on a DUT: the response, once its result is published; undefined when refused, cancelled or failed. */
  async generate(opts: LaunchOptions = {}): Promise<GenerateResponse | undefined> {
    const ready = await this.preflight(opts);
    if (!ready) return undefined;
    const runId = randomUUID();
    const run: RunRecord = {
      runId,
      dut: ready.doc.uri,
      top: ready.top,
      params: {
        ...generateParams({ uri: ready.doc.uri.toString(), runId, top: ready.top }, ready.engine),
        ...(opts.regression?.length ? { regression: opts.regression.map((u) => u.toString()) } : {}),
      },
      cts: new vscode.CancellationTokenSource(),
      running: true,
      round: 0,
    };
    this.deps.runs.add(run);
    this.started.fire({ run, settings: ready.settings, testRun: opts.testRun });
    const outcome = await this.send(run, opts.token);
    try {
      await this.ended.fire({ run, outcome });
    } finally {
      this.deps.runs.end(run);
      run.cts.dispose();
    }
    return outcome.kind === 'completed' ? outcome.result : undefined;
  }

  /** Runs the loop again on the DUT and top of an earlier run (on the active editor's DUT when it is unknown). */
  retry(runId: string): Promise<GenerateResponse | undefined> {
    const run = this.deps.runs.get(runId);
    return this.generate(run ? { dut: run.dut, top: run.top } : {});
  }

  private async preflight(opts: LaunchOptions): Promise<
    | {
        doc: vscode.TextDocument;
        settings: ChorusSettings;
        /** An engine chosen for this run alone (the caller's, or the user's pick of the model-free search). */
        engine?: EngineName | undefined;
        top?: string | undefined;
      }
    | undefined
  > {
    if (!ensureTrusted('generate stimulus')) return undefined;
    const doc = await this.dutDocument(opts.dut);
    if (!doc) {
      void vscode.window.showWarningMessage(
        'Open a Verilog or SystemVerilog design file, then run "CHORUS: Generate high-coverage stimulus".',
      );
      return undefined;
    }
    const busy = this.deps.runs.current(doc.uri);
    if (busy && busy.dut.toString() === doc.uri.toString()) {
      void vscode.window.showInformationMessage(
        `CHORUS is already running on ${topOf(busy)}: stop it first (CHORUS: Stop).`,
      );
      return undefined;
    }
    if (doc.isDirty) await doc.save();
    const chosen = opts.engine
      ? { settings: { ...this.deps.settings(doc.uri), engine: opts.engine }, engine: opts.engine }
      : await this.settingsWithModel(doc.uri);
    if (!chosen) return undefined;
    const picked = await this.top(doc, opts.top);
    if (picked.cancelled) return undefined;
    return { doc, settings: chosen.settings, engine: chosen.engine, top: picked.top };
  }

  private async dutDocument(uri?: vscode.Uri): Promise<vscode.TextDocument | undefined> {
    const doc = uri ? await vscode.workspace.openTextDocument(uri) : vscode.window.activeTextEditor?.document;
    return doc && isHdlDocument(doc) ? doc : undefined;
  }

  /**
   * The settings to run with: an engine that needs a model gets one, or the user's leave to search without (then
   * `engine` is that run's own choice, sent with its request).
   */
  private async settingsWithModel(
    scope: vscode.Uri,
  ): Promise<{ settings: ChorusSettings; engine?: EngineName } | undefined> {
    const settings = this.deps.settings(scope);
    if (!needsModel(settings, this.deps.modelAvailable())) return { settings };
    const pick = await vscode.window.showWarningMessage(
      `The ${settings.engine} engine needs a model, and none is configured.`,
      SELECT_MODEL,
      USE_MODEL_FREE,
    );
    if (pick === USE_MODEL_FREE) return { settings: { ...settings, engine: 'random' }, engine: 'random' };
    if (pick !== SELECT_MODEL) return undefined;
    await this.deps.selectModel();
    const chosen = this.deps.settings(scope);
    return needsModel(chosen, this.deps.modelAvailable()) ? undefined : { settings: chosen };
  }

  /** The given top, or the only candidate, or the user's pick (the last pick offered first); remembered per DUT. */
  private async top(
    doc: vscode.TextDocument,
    given?: string,
  ): Promise<{ top?: string | undefined; cancelled: boolean }> {
    const key = doc.uri.toString();
    const picked: { top?: string | undefined; cancelled: boolean } = given
      ? { top: given, cancelled: false }
      : await pickTop(this.deps.server, doc, this.deps.state.get<Record<string, string>>(TOPS_KEY)?.[key]);
    if (picked.top)
      await this.deps.state.update(TOPS_KEY, {
        ...this.deps.state.get<Record<string, string>>(TOPS_KEY),
        [key]: picked.top,
      });
    return picked;
  }

  /** Sends `chorus/generate`; Stop, the progress notification's Cancel and a test run's token all cancel it. */
  private async send(run: RunRecord, token?: vscode.CancellationToken): Promise<RunOutcome> {
    const link = token?.onCancellationRequested(() => run.cts.cancel());
    if (token?.isCancellationRequested) run.cts.cancel();
    const started = Date.now();
    try {
      const result = await this.deps.server.generate(run.params, run.cts.token);
      return { kind: 'completed', result, ms: Date.now() - started };
    } catch (error) {
      const cancelled = describeError(error).kind === 'cancelled' || run.cts.token.isCancellationRequested;
      return cancelled ? { kind: 'cancelled' } : { kind: 'failed', error };
    } finally {
      link?.dispose();
    }
  }

  dispose(): void {
    this.started.dispose();
    this.ended.dispose();
  }
}
