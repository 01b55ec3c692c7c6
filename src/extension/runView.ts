/**
 * What the user sees of a run: the progress notification (with Cancel) while the request is out, live gutter
 * marks and status-bar coverage from its loop events, its log lines, and its chat messages. Loop events only
 * show progress; the final result and the run's end come from the publisher, which has the response.
 */
import * as vscode from 'vscode';
import type { EngineName, LoopEvent, LoopEventParams, Logger, RunRequestInfo } from '../protocol';
import type { AsyncEvent } from './asyncEvent';
import type { ChatHost } from './chatHost';
import { describeError, type ErrorReporter } from './errors';
import { progressStep, summaryText, type ProgressState } from './format';
import type { RunEnd, RunStart } from './runLauncher';
import type { TestbenchWritten } from './runPublisher';
import { topOf, type RunRecord, type RunRegistry } from './runRegistry';
import { runEngine, type ChorusSettings } from './settings';
import type { StatusBar } from './statusBar';
import type { CoverageStore } from './store';

export interface RunViewDeps {
  runs: Pick<RunRegistry, 'get'>;
  store: Pick<CoverageStore, 'update'>;
  status: Pick<StatusBar, 'update'>;
  chat: Pick<ChatHost, 'post'>;
  errors: Pick<ErrorReporter, 'report'>;
  logger: Logger;
  /** The engine the server says an `auto` run would use (`chorus/modelStatus`); undefined before it said. */
  autoEngine: () => EngineName | undefined;
}

export interface RunViewEvents {
  started: vscode.Event<RunStart>;
  loopEvents: vscode.Event<LoopEventParams>;
  /** The request is over: its progress notification closes. */
  requestEnded: AsyncEvent<RunEnd>;
  /** The publisher's last word on a run. */
  settled: vscode.Event<RunEnd>;
  testbenchWritten: vscode.Event<TestbenchWritten>;
}

interface RunProgress {
  state: ProgressState;
  /** The line shown: every report repeats it, since a report without one resets the notification to its title. */
  message: string;
  /** Set once VS Code shows the notification. */
  report?: (step: { message: string; increment?: number }) => void;
  close(): void;
}

/**
 * What the chat panel shows of a run's request before the server says more (its `start` event names the engine
 * it chose). The server sends `autoEngine` as soon as it is initialized; should a run start before that arrives,
 * the model-free engine is shown until the `start` event.
 */
export function requestInfo(
  run: RunRecord,
  settings: ChorusSettings,
  autoEngine: EngineName | undefined,
): RunRequestInfo {
  const engine = run.params.engine ?? runEngine(settings, autoEngine ?? 'random');
  return {
    runId: run.runId,
    dut: topOf(run),
    files: [vscode.workspace.asRelativePath(run.dut)],
    // The settings the server reads for this document (the request carries none of them).
    targets: run.params.targets ?? settings.targets,
    engine,
    model: engine === 'random' ? undefined : settings.model || settings.endpoint || undefined,
    maxRounds: run.params.rounds ?? settings.maxRounds,
    startedAt: new Date().toISOString(),
  };
}

export class RunView implements vscode.Disposable {
  private readonly progress = new Map<string, RunProgress>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly deps: RunViewDeps,
    events: RunViewEvents,
  ) {
    this.subscriptions = [
      events.started((s) => this.onStarted(s)),
      events.loopEvents((p) => this.onLoopEvent(p)),
      events.requestEnded((e) => this.closeProgress(e.run)),
      events.settled((e) => this.onSettled(e)),
      events.testbenchWritten((w) => this.onTestbenchWritten(w)),
    ];
  }

  private onStarted({ run, settings }: RunStart): void {
    this.deps.chat.post({ type: 'runStart', run: requestInfo(run, settings, this.deps.autoEngine()) });
    this.openProgress(run, settings.maxRounds);
  }

  private onLoopEvent({ runId, event }: LoopEventParams): void {
    // The result arrives with the response (onSettled); relaying its notification too would show it twice.
    if (event.type === 'final') return;
    this.deps.chat.post({ type: 'loopEvent', runId, event });
    const run = this.deps.runs.get(runId);
    if (!run) return;
    this.fold(run, event);
    this.reportProgress(runId, event);
  }

  /** The event into the run's record, the live gutter, the status bar and the log. */
  private fold(run: RunRecord, e: LoopEvent): void {
    if (e.type === 'start') {
      run.top = run.top ?? e.top;
    } else if (e.type === 'roundStart') {
      run.round = e.round;
    } else if (e.type === 'coverage') {
      const top = topOf(run);
      this.deps.store.update(run.dut, { top, coverage: e.coverage, holes: e.holes, lines: e.lines });
      this.deps.status.update({ last: { top, coverage: e.coverage } });
    } else if (e.type === 'log') {
      this.deps.logger[e.level](`[${topOf(run)}] ${e.message}`);
    }
  }

  private openProgress(run: RunRecord, maxRounds: number): void {
    let close = () => {};
    const closed = new Promise<void>((resolve) => (close = resolve));
    const view: RunProgress = {
      state: { round: 0, maxRounds: run.params.rounds ?? maxRounds, tokens: 0 },
      message: '',
      close,
    };
    this.progress.set(run.runId, view);
    const title = `CHORUS: ${topOf(run)}`;
    void Promise.resolve(
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title, cancellable: true },
        async (progress, token) => {
          view.report = (step) => progress.report(step);
          const cancel = token.onCancellationRequested(() => run.cts.cancel());
          try {
            await closed;
          } finally {
            cancel.dispose();
          }
        },
      ),
    ).catch((err: unknown) => this.deps.logger.warn(`The progress notification of ${title} failed: ${String(err)}`));
  }

  private reportProgress(runId: string, e: LoopEvent): void {
    const view = this.progress.get(runId);
    if (!view) return;
    const step = progressStep(view.state, e);
    if (step.message === undefined && step.increment === undefined) return;
    view.message = step.message ?? view.message;
    view.report?.({
      message: view.message,
      ...(step.increment !== undefined ? { increment: step.increment } : {}),
    });
  }

  private closeProgress(run: RunRecord): void {
    this.progress.get(run.runId)?.close();
    this.progress.delete(run.runId);
  }

  private onSettled({ run, outcome }: RunEnd): void {
    if (outcome.kind === 'completed') {
      const { result } = outcome;
      this.deps.status.update({ last: { top: result.top, coverage: result.coverage } });
      this.deps.logger.info(
        `${result.top}: ${summaryText(result.coverage) || 'nothing measured'} after ${result.rounds.length} round(s) (${result.stopReason}${result.stopDetail ? `: ${result.stopDetail}` : ''}).`,
      );
      this.deps.chat.post({ type: 'loopEvent', runId: run.runId, event: { type: 'final', result } });
      this.deps.chat.post({
        type: 'runEnded',
        runId: run.runId,
        outcome: result.stopReason === 'cancelled' ? 'cancelled' : 'completed',
      });
    } else if (outcome.kind === 'cancelled') {
      this.deps.chat.post({ type: 'runEnded', runId: run.runId, outcome: 'cancelled' });
    } else {
      this.deps.chat.post({
        type: 'runEnded',
        runId: run.runId,
        outcome: 'failed',
        message: describeError(outcome.error).message,
      });
      this.deps.errors.report(outcome.error, `Generating stimulus for ${topOf(run)} failed`);
    }
  }

  private onTestbenchWritten({ target, outcome }: TestbenchWritten): void {
    const name = vscode.workspace.asRelativePath(target);
    if (outcome === 'declined') {
      this.deps.chat.post({
        type: 'notice',
        level: 'info',
        text: `Kept ${name} as it was; the new testbench is open unsaved.`,
      });
    } else if (outcome !== 'unchanged') {
      this.deps.chat.post({ type: 'notice', level: 'info', text: `Wrote ${name}.` });
    }
  }

  dispose(): void {
    for (const p of this.progress.values()) p.close();
    for (const s of this.subscriptions) s.dispose();
  }
}
