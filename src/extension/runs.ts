/**
 * One closure-loop run from the editor: pick the DUT and top, send `chorus/generate`, turn its loop events into
 * progress, live gutter updates and chat messages, then publish the result (Test Coverage, testbench, status).
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GenerateParams, GenerateResult, LoopEvent, LoopEventParams, Logger, RunRequestInfo } from '../protocol';
import { describeError, type ErrorReporter } from './errors';
import { progressStep, summaryText, type ProgressState } from './format';
import { expectedEngine, generateParams, needsModel, type ChorusSettings } from './settings';
import type { ChatHost } from './chatHost';
import type { ChorusServer } from './server';
import type { StatusBar } from './statusBar';
import type { CoverageStore } from './store';
import { CoverageTests, toFileCoverage, type FileCoverageWithDetails } from './testCoverage';
import { testbenchFileName, type TestbenchWriter } from './testbench';
import { pickTop } from './topPicker';
import { ensureTrusted } from './trust';
import { HDL_FILE, HDL_LANGUAGES } from './languages';

export interface RunRecord {
  runId: string;
  dut: vscode.Uri;
  top?: string;
  params: GenerateParams;
  /** Absolute paths of the DUT files (from the `start` event; the document until then). */
  dutFiles: string[];
  cts: vscode.CancellationTokenSource;
  running: boolean;
  round: number;
  onEvent?: (e: LoopEvent) => void;
}

export interface RunDeps {
  server: ChorusServer;
  store: CoverageStore;
  tests: CoverageTests;
  status: StatusBar;
  chat: Pick<ChatHost, 'post'>;
  testbenches: TestbenchWriter;
  errors: ErrorReporter;
  logger: Logger;
  settings(scope: vscode.Uri): ChorusSettings;
  state: vscode.Memento;
  selectModel(): Promise<unknown>;
}

export interface GenerateOptions {
  dut?: vscode.Uri;
  top?: string;
  /** Cancels the run too (a test run's token). */
  token?: vscode.CancellationToken;
  /** The test run to publish into (runs started from the Test Coverage profile). */
  testRun?: vscode.TestRun;
}

const KEPT_RECORDS = 20;
const TOPS_KEY = 'chorus.lastTop';

export function isHdlDocument(doc: vscode.TextDocument): boolean {
  return (HDL_LANGUAGES as readonly string[]).includes(doc.languageId) || HDL_FILE.test(doc.uri.path);
}

/** Where the DUT's testbench goes: `<workspace folder>/<chorus.testbenchFolder>/tb_<top>.sv`. */
export function testbenchUri(dut: vscode.Uri, folder: string, top: string): vscode.Uri {
  const root = vscode.workspace.getWorkspaceFolder(dut)?.uri ?? vscode.Uri.joinPath(dut, '..');
  return vscode.Uri.joinPath(root, folder, testbenchFileName(top));
}

function baseTop(dut: vscode.Uri): string {
  return path.basename(dut.fsPath).replace(/\.[^.]+$/, '');
}

export class Runs {
  private readonly records = new Map<string, RunRecord>();

  constructor(private readonly deps: RunDeps) {}

  get(runId: string): RunRecord | undefined {
    return this.records.get(runId);
  }

  /** The running run of `dut`, or else the newest running one. */
  current(dut?: vscode.Uri): RunRecord | undefined {
    const running = [...this.records.values()].filter((r) => r.running);
    return running.find((r) => dut && r.dut.toString() === dut.toString()) ?? running[running.length - 1];
  }

  latest(): RunRecord | undefined {
    return [...this.records.values()].pop();
  }

  /** A loop event from the server: progress, live coverage, chat. */
  onLoopEvent(p: LoopEventParams): void {
    const r = this.records.get(p.runId);
    // Our own run's `final` waits until the testbench is written, so the panel learns where it went.
    if (!(r?.running && p.event.type === 'final')) this.deps.chat.post({ type: 'loopEvent', runId: p.runId, event: p.event });
    if (!r) return;
    const e = p.event;
    if (e.type === 'start') {
      r.top = r.top ?? e.top;
      const base = path.dirname(r.dut.fsPath);
      if (e.files.length) r.dutFiles = e.files.map((f) => (path.isAbsolute(f) ? f : path.join(base, f)));
    } else if (e.type === 'roundStart') {
      r.round = e.round;
    } else if (e.type === 'coverage') {
      const top = r.top ?? baseTop(r.dut);
      this.deps.store.update(r.dut, { top, coverage: e.coverage, holes: e.holes, lines: e.lines, dutFiles: r.dutFiles });
      this.deps.status.update({ last: { top, coverage: e.coverage } });
    } else if (e.type === 'log') {
      this.deps.logger[e.level](`[${r.top ?? baseTop(r.dut)}] ${e.message}`);
    }
    r.onEvent?.(e);
  }

  stop(runId?: string): boolean {
    const r = runId ? this.records.get(runId) : this.current(vscode.window.activeTextEditor?.document.uri);
    if (!r?.running) return false;
    r.cts.cancel();
    return true;
  }

  /** Runs the loop again on the DUT and top of an earlier run. */
  retry(runId: string): Promise<GenerateResult | undefined> {
    const r = this.records.get(runId);
    if (!r) return this.generate({});
    return this.generate({ dut: r.dut, top: r.top });
  }

  private async dutDocument(uri?: vscode.Uri): Promise<vscode.TextDocument | undefined> {
    const doc = uri ? await vscode.workspace.openTextDocument(uri) : vscode.window.activeTextEditor?.document;
    return doc && isHdlDocument(doc) ? doc : undefined;
  }

  async generate(opts: GenerateOptions): Promise<GenerateResult | undefined> {
    if (!ensureTrusted('generate stimulus')) return undefined;
    const doc = await this.dutDocument(opts.dut);
    if (!doc) {
      void vscode.window.showWarningMessage('Open a Verilog or SystemVerilog design file, then run "CHORUS: Generate high-coverage stimulus".');
      return undefined;
    }
    const busy = this.current(doc.uri);
    if (busy && busy.dut.toString() === doc.uri.toString()) {
      void vscode.window.showInformationMessage(`CHORUS is already running on ${busy.top ?? baseTop(doc.uri)}: stop it first (CHORUS: Stop).`);
      return undefined;
    }
    if (doc.isDirty) await doc.save();

    let settings = this.deps.settings(doc.uri);
    if (needsModel(settings)) {
      const pick = await vscode.window.showWarningMessage(
        `The ${settings.engine} engine needs a model, and none is configured.`,
        'Select model…',
        'Use the model-free search',
      );
      if (pick === 'Select model…') {
        await this.deps.selectModel();
        settings = this.deps.settings(doc.uri);
        if (needsModel(settings)) return undefined;
      } else if (pick === 'Use the model-free search') {
        settings = { ...settings, engine: 'random' };
      } else {
        return undefined;
      }
    }

    const remembered = this.deps.state.get<Record<string, string>>(TOPS_KEY)?.[doc.uri.toString()];
    const picked = opts.top ? { top: opts.top, cancelled: false } : await pickTop(doc, remembered);
    if (picked.cancelled) return undefined;
    if (picked.top) {
      await this.deps.state.update(TOPS_KEY, { ...this.deps.state.get<Record<string, string>>(TOPS_KEY), [doc.uri.toString()]: picked.top });
    }

    const runId = randomUUID();
    const params = generateParams(settings, { uri: doc.uri.toString(), runId, top: picked.top });
    const record: RunRecord = {
      runId,
      dut: doc.uri,
      top: picked.top,
      params,
      dutFiles: [doc.uri.fsPath],
      cts: new vscode.CancellationTokenSource(),
      running: true,
      round: 0,
    };
    this.remember(record);
    this.publishRunning();
    return this.execute(record, settings, opts);
  }

  /** `chorus.running` drives where Stop is offered. */
  private publishRunning(): void {
    void vscode.commands.executeCommand('setContext', 'chorus.running', [...this.records.values()].some((r) => r.running));
  }

  private remember(r: RunRecord): void {
    this.records.set(r.runId, r);
    for (const id of this.records.keys()) {
      if (this.records.size <= KEPT_RECORDS) break;
      if (!this.records.get(id)?.running) this.records.delete(id);
    }
  }

  private async execute(r: RunRecord, settings: ChorusSettings, opts: GenerateOptions): Promise<GenerateResult | undefined> {
    const top = r.top ?? baseTop(r.dut);
    const info: RunRequestInfo = {
      runId: r.runId,
      dut: top,
      files: [vscode.workspace.asRelativePath(r.dut)],
      targets: r.params.targets ?? {},
      engine: r.params.engine ?? expectedEngine(settings),
      model: expectedEngine(settings) === 'random' ? undefined : settings.model || settings.endpoint || undefined,
      maxRounds: r.params.rounds,
      startedAt: new Date().toISOString(),
    };
    this.deps.chat.post({ type: 'runStart', run: info });
    const testRun = opts.testRun ?? this.deps.tests.startRun(r.dut, top);
    const started = Date.now();
    const cancelLinks = [opts.token?.onCancellationRequested(() => r.cts.cancel())];
    let result: GenerateResult | undefined;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `CHORUS: ${top}`, cancellable: true },
        async (progress, token) => {
          cancelLinks.push(token.onCancellationRequested(() => r.cts.cancel()));
          const state: ProgressState = { round: 0, maxRounds: r.params.rounds ?? 0, tokens: 0 };
          let message = '';
          r.onEvent = (e) => {
            const step = progressStep(state, e);
            if (step.message === undefined && step.increment === undefined) return;
            // A report without a message resets the notification to its title: always repeat the last line.
            message = step.message ?? message;
            progress.report({ message, increment: step.increment });
          };
          return this.deps.server.generate(r.params, r.cts.token);
        },
      );
      const written = await this.finish(r, result, testRun, Date.now() - started);
      const final = { ...result, testbenchPath: written?.fsPath ?? result.testbenchPath };
      this.deps.chat.post({ type: 'loopEvent', runId: r.runId, event: { type: 'final', result: final } });
      this.deps.chat.post({ type: 'runEnded', runId: r.runId, outcome: result.stopReason === 'cancelled' ? 'cancelled' : 'completed' });
      return result;
    } catch (err) {
      const info = describeError(err);
      const item = this.deps.tests.itemFor(r.dut, top);
      if (info.kind === 'cancelled' || r.cts.token.isCancellationRequested) {
        testRun.skipped(item);
        this.deps.chat.post({ type: 'runEnded', runId: r.runId, outcome: 'cancelled' });
      } else {
        testRun.errored(item, new vscode.TestMessage(info.message));
        this.deps.chat.post({ type: 'runEnded', runId: r.runId, outcome: 'failed', message: info.message });
        this.deps.errors.report(err, `Generating stimulus for ${top} failed`);
      }
      return undefined;
    } finally {
      r.running = false;
      r.onEvent = undefined;
      this.publishRunning();
      for (const l of cancelLinks) l?.dispose();
      r.cts.dispose();
      if (!opts.testRun) testRun.end();
    }
  }

  /** The result into the store (gutter), Test Coverage, the status bar and the workspace (testbench); returns where the testbench went. */
  private async finish(r: RunRecord, result: GenerateResult, testRun: vscode.TestRun, ms: number): Promise<vscode.Uri | undefined> {
    r.top = result.top;
    let lines = result.lines;
    if (!lines) {
      try {
        lines = (await this.deps.server.coverage({ uri: r.dut.toString() })).lines;
      } catch (err) {
        this.deps.logger.warn(`No line coverage for ${result.top}: ${String(err)}`);
      }
    }
    const entry = this.deps.store.update(r.dut, {
      top: result.top,
      coverage: result.coverage,
      holes: result.holes,
      lines: lines ?? [],
      dutFiles: r.dutFiles,
      result,
    });
    this.deps.status.update({ last: { top: result.top, coverage: result.coverage } });

    const files: FileCoverageWithDetails[] = [];
    for (const data of entry.files.values()) {
      if (!data.lines.length) continue;
      const uri = vscode.Uri.file(data.file);
      const doc = await Promise.resolve(vscode.workspace.openTextDocument(uri)).catch(() => undefined);
      const lineText = (line: number) => (doc && line >= 1 && line <= doc.lineCount ? doc.lineAt(line - 1).text : undefined);
      files.push(toFileCoverage(uri, data, lineText));
    }
    this.deps.tests.publish(testRun, r.dut, result, files, ms);
    this.deps.logger.info(`${result.top}: ${summaryText(result.coverage)} after ${result.rounds.length} round(s) (${result.stopReason}).`);

    return result.testbench.trim() ? this.writeTestbench(r.dut, result.top, result.testbench) : undefined;
  }

  /** Writes a testbench for `dut` (asking before overwriting a file that is not CHORUS's) and opens it beside. */
  async writeTestbench(dut: vscode.Uri, top: string, text: string): Promise<vscode.Uri | undefined> {
    const target = testbenchUri(dut, this.deps.settings(dut).testbenchFolder, top);
    const outcome = await this.deps.testbenches.write(target, text, top);
    if (outcome === 'declined') {
      // Keep the work: show it unsaved instead of losing it.
      const doc = await vscode.workspace.openTextDocument({ language: 'systemverilog', content: text });
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
      this.deps.chat.post({ type: 'notice', level: 'info', text: `Kept ${vscode.workspace.asRelativePath(target)} as it was; the new testbench is open unsaved.` });
      return undefined;
    }
    this.deps.store.setTestbench(dut, target);
    await vscode.window.showTextDocument(target, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
    if (outcome !== 'unchanged') {
      this.deps.chat.post({ type: 'notice', level: 'info', text: `Wrote ${vscode.workspace.asRelativePath(target)}.` });
    }
    return target;
  }
}
