/**
 * A Generate run end to end, with the pieces wired as activate() wires them (launcher, run view, publisher, the
 * server's notifications as events) against a scripted server: loop events become live gutter marks, progress
 * lines and chat messages; the response becomes Test Coverage, a testbench file beside the DUT and status text.
 */
import './stub/register';
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { HostToWebview } from '../../src/protocol';
import { ErrorReporter } from '../../src/extension/errors';
import { CoverageGutter } from '../../src/extension/gutter';
import { RunLauncher } from '../../src/extension/runLauncher';
import { RunPublisher } from '../../src/extension/runPublisher';
import { RunRegistry } from '../../src/extension/runRegistry';
import { RunView } from '../../src/extension/runView';
import { ServerNotifications } from '../../src/extension/serverNotifications';
import { readSettings } from '../../src/extension/settings';
import { StatusBar } from '../../src/extension/statusBar';
import { CoverageStore } from '../../src/extension/store';
import { CoverageTests } from '../../src/extension/testCoverage';
import { MARKER_PREFIX, TestbenchWriter } from '../../src/extension/testbench';
import { repoRoot } from '../helpers/cli';
import {
  cov,
  fakeServer,
  finalResult,
  memento,
  openCounter,
  round1Holes,
  round1Lines,
  round2Lines,
  silent,
  type CounterWorkspace,
  type FakeServer,
} from './runFixtures';
import { documentChanged, stub, type FakeEditor } from './stub/vscode';

interface Harness extends CounterWorkspace {
  server: FakeServer;
  runs: RunRegistry;
  launcher: RunLauncher;
  posted: HostToWebview[];
  gutter: CoverageGutter;
  disposables: vscode.Disposable[];
}

let h: Harness;

function marks(editor: FakeEditor): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [type, opts] of editor.decorations) {
    const icon = String((type as { options: { gutterIconPath: string } }).options.gutterIconPath);
    const state = icon.replace(/^.*\//, '').replace('.svg', '');
    out[state] = opts.map((o) => o.range.start.line + 1);
  }
  return out;
}

beforeEach(() => {
  const ws = openCounter();
  const store = new CoverageStore();
  const status = new StatusBar({ configured: false, modelFree: true });
  const posted: HostToWebview[] = [];
  const state = memento();
  const settings = () => readSettings(vscode.workspace.getConfiguration('chorus'));
  const notifications = new ServerNotifications();
  const server = fakeServer((p) => notifications.onLoopEvent(p));
  const runs = new RunRegistry();
  const launcher = new RunLauncher({
    server,
    runs,
    settings,
    state,
    selectModel: async () => undefined,
    modelAvailable: () => notifications.modelStatus?.modelAvailable,
  });
  const tests = new CoverageTests(async (dut, token, testRun) => {
    await launcher.generate({ dut, token, testRun });
  });
  const testbenches = new TestbenchWriter(vscode.workspace.fs, state, async () => false);
  const publisher = new RunPublisher(
    { tests, testbenches, store, settings },
    { started: launcher.onDidStart, ended: launcher.onDidEnd },
  );
  const view = new RunView(
    {
      runs,
      store,
      status,
      chat: { post: (m) => posted.push(m) },
      errors: new ErrorReporter(silent, () => {}),
      logger: silent,
      autoEngine: () => notifications.modelStatus?.autoEngine,
    },
    {
      started: launcher.onDidStart,
      loopEvents: notifications.onDidLoopEvent,
      requestEnded: launcher.onDidEnd,
      settled: publisher.onDidSettle,
      testbenchWritten: publisher.onDidWriteTestbench,
    },
  );
  const context = {
    asAbsolutePath: (p: string) => join(repoRoot, p),
    workspaceState: state,
  } as unknown as vscode.ExtensionContext;
  const gutter = new CoverageGutter(context, store);
  h = {
    ...ws,
    server,
    runs,
    launcher,
    posted,
    gutter,
    disposables: [notifications, launcher, publisher, view, tests, gutter, store, status],
  };
});

afterEach(() => {
  for (const d of h.disposables) d.dispose();
  rmSync(h.dir, { recursive: true, force: true });
});

test('loop events update the gutter live; the response is published, written and shown', async () => {
  const seen: Record<string, number[]>[] = [];
  h.server.script = async (p, _token, emit) => {
    emit({ type: 'start', top: 'counter', engine: 'random', targets: p.targets ?? {}, files: [h.dut.fsPath] });
    emit({ type: 'roundStart', round: 1 });
    emit({ type: 'build', round: 1, status: 'ok', ms: 900, diagnostics: [] });
    emit({
      type: 'coverage',
      round: 1,
      coverage: cov(8, 6),
      holes: round1Holes(h.dut.fsPath),
      status: 'ok',
      lines: round1Lines(h.dut.fsPath),
    });
    seen.push(marks(h.editor));
    emit({
      type: 'roundEnd',
      round: { index: 1, status: 'ok', coverage: cov(8, 6), ms: { generate: 5, build: 900, sim: 30 } },
    });
    // The server's final event says what the response says; only the response counts.
    emit({ type: 'final', result: { ...finalResult(p, []), stopReason: 'stalled' } });
    return finalResult(p, round2Lines(h.dut.fsPath));
  };
  const result = await h.launcher.generate();
  assert.equal(result?.top, 'counter');
  assert.equal(h.server.calls[0].top, 'counter', 'the only top candidate is sent');

  assert.deepEqual(
    seen[0],
    { covered: [17], uncovered: [34], partial: [26], proven: [], waived: [] },
    'after round 1, before the run ended',
  );
  assert.deepEqual(
    marks(h.editor),
    { covered: [17, 26, 34], uncovered: [], partial: [], proven: [], waived: [] },
    'after the response',
  );
  const hover = h.editor.decorations.values().next().value;
  assert.ok(hover?.every((o) => o.hoverMessage && o.hoverMessage.value.includes('CHORUS')));

  const progress = stub.progress[0];
  assert.equal(progress.title, 'CHORUS: counter');
  assert.ok(progress.reports.some((r) => r.message === 'Round 1 of 3 — line 80% · branch 75% · toggle 50%'));
  assert.equal(progress.done, true);

  const run = stub.testRuns[0];
  assert.equal(run.coverage.length, 1);
  assert.deepEqual([run.coverage[0].statementCoverage.covered, run.coverage[0].statementCoverage.total], [3, 3]);
  assert.deepEqual([run.passed.length, run.ended], [1, true]);

  const tb = join(h.dir, 'tb', 'tb_counter.sv');
  assert.ok(readFileSync(tb, 'utf8').startsWith(MARKER_PREFIX));
  assert.deepEqual(stub.shown.at(-1), { uri: vscode.Uri.file(tb).toString(), viewColumn: vscode.ViewColumn.Beside });
  assert.match(stub.statusItems[0].text, /line 100% · branch 100%/);

  const types = h.posted.map((m) => (m.type === 'loopEvent' ? `loopEvent:${m.event.type}` : m.type));
  assert.deepEqual(types, [
    'runStart',
    'loopEvent:start',
    'loopEvent:roundStart',
    'loopEvent:build',
    'loopEvent:coverage',
    'loopEvent:roundEnd',
    'notice',
    'loopEvent:final',
    'runEnded',
  ]);
  const final = h.posted.at(-2);
  assert.equal(final?.type === 'loopEvent' && final.event.type === 'final' && final.event.result.testbenchPath, tb);
  assert.equal(
    final?.type === 'loopEvent' && final.event.type === 'final' && final.event.result.stopReason,
    'targets met',
    'the response, not the notification',
  );
  assert.deepEqual(h.posted.at(-1), { type: 'runEnded', runId: h.server.calls[0].runId, outcome: 'completed' });
  assert.equal(stub.context['chorus.running'], false);

  // An edit makes the measured line numbers wrong: the marks go until the next run; the toggle hides them too.
  documentChanged.fire({ document: h.editor.document, contentChanges: [{ text: '\n' }] });
  assert.deepEqual(marks(h.editor), { covered: [], uncovered: [], partial: [], proven: [], waived: [] });
  await h.launcher.generate();
  assert.deepEqual(marks(h.editor).covered, [17, 26, 34]);
  await h.gutter.toggle();
  assert.deepEqual(marks(h.editor), { covered: [], uncovered: [], partial: [], proven: [], waived: [] });
  assert.equal(stub.context['chorus.gutterVisible'], false);
  await h.gutter.toggle();
  assert.deepEqual(marks(h.editor).covered, [17, 26, 34]);
});

test('Stop cancels the request; the run ends as cancelled without an error', async () => {
  let started: () => void = () => {};
  const going = new Promise<void>((r) => (started = r));
  h.server.script = (_p, token, emit) =>
    new Promise((_resolve, reject) => {
      emit({ type: 'roundStart', round: 1 });
      token.onCancellationRequested(() => reject(Object.assign(new Error('Request cancelled'), { code: -32800 })));
      started();
    });
  const pending = h.launcher.generate();
  await going;
  assert.equal(h.runs.stop(), true);
  assert.equal(await pending, undefined);
  assert.deepEqual(h.posted.at(-1), { type: 'runEnded', runId: h.server.calls[0].runId, outcome: 'cancelled' });
  assert.equal(stub.testRuns[0].skipped.length, 1);
  assert.equal(stub.progress[0].done, true);
  assert.equal(stub.messages.filter((m) => m.level === 'error').length, 0);
});

test('a server error ends the run as failed, shown once with Show log', async () => {
  h.server.script = async () => {
    throw Object.assign(
      new Error('Verilator not found: install it with `apt-get install verilator` or set chorus.verilatorPath'),
      {
        code: -32803,
        data: { kind: 'missing_tool' },
      },
    );
  };
  assert.equal(await h.launcher.generate(), undefined);
  const errors = stub.messages.filter((m) => m.level === 'error');
  assert.equal(errors.length, 1);
  assert.match(errors[0].text, /Verilator not found/);
  assert.deepEqual(errors[0].items, ['Open settings', 'Show log']);
  const ended = h.posted.at(-1);
  assert.equal(ended?.type === 'runEnded' && ended.outcome, 'failed');
  assert.equal(stub.testRuns[0].errored.length, 1);
});
