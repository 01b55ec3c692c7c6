/**
 * The run view folds a run's events into what the user sees: loop events into the run record, live gutter marks,
 * the status bar, the log, progress lines and the chat; the publisher's last word into the chat's final result
 * and end, or one error notification.
 */
import './stub/register';
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { EngineName, HostToWebview, LoopEventParams } from '../../src/protocol';
import { AsyncEmitter } from '../../src/extension/asyncEvent';
import { ErrorReporter } from '../../src/extension/errors';
import type { RunEnd, RunStart } from '../../src/extension/runLauncher';
import type { TestbenchWritten } from '../../src/extension/runPublisher';
import { RunRegistry, type RunRecord } from '../../src/extension/runRegistry';
import { RunView } from '../../src/extension/runView';
import { DEFAULT_SETTINGS } from '../../src/extension/settings';
import { StatusBar } from '../../src/extension/statusBar';
import { CoverageStore } from '../../src/extension/store';
import {
  cov,
  finalResult,
  openCounter,
  round1Holes,
  round1Lines,
  runRecord,
  type CounterWorkspace,
} from './runFixtures';
import { stub } from './stub/vscode';

interface Harness extends CounterWorkspace {
  run: RunRecord;
  store: CoverageStore;
  posted: HostToWebview[];
  logged: string[];
  view: RunView;
  started: vscode.EventEmitter<RunStart>;
  loop: vscode.EventEmitter<LoopEventParams>;
  requestEnded: AsyncEmitter<RunEnd>;
  settled: vscode.EventEmitter<RunEnd>;
  written: vscode.EventEmitter<TestbenchWritten>;
  emit(event: LoopEventParams['event']): void;
  /** What the server last said `auto` stands for (`chorus/modelStatus`); undefined: it has not said yet. */
  autoEngine: EngineName | undefined;
}

let h: Harness;

beforeEach(() => {
  const ws = openCounter();
  const run = runRecord(ws.dut, { top: undefined });
  const runs = new RunRegistry();
  runs.add(run);
  const store = new CoverageStore();
  const posted: HostToWebview[] = [];
  const logged: string[] = [];
  const logger = {
    debug() {},
    info: (m: string) => logged.push(`info ${m}`),
    warn: (m: string) => logged.push(`warn ${m}`),
    error: (m: string) => logged.push(`error ${m}`),
  };
  const started = new vscode.EventEmitter<RunStart>();
  const loop = new vscode.EventEmitter<LoopEventParams>();
  const requestEnded = new AsyncEmitter<RunEnd>();
  const settled = new vscode.EventEmitter<RunEnd>();
  const written = new vscode.EventEmitter<TestbenchWritten>();
  const view = new RunView(
    {
      runs,
      store,
      status: new StatusBar({ configured: false, modelFree: true }),
      chat: { post: (m) => posted.push(m) },
      errors: new ErrorReporter({ debug() {}, info() {}, warn() {}, error() {} }, () => {}),
      logger,
      autoEngine: () => h.autoEngine,
    },
    {
      started: started.event,
      loopEvents: loop.event,
      requestEnded: requestEnded.event,
      settled: settled.event,
      testbenchWritten: written.event,
    },
  );
  const emit = (event: LoopEventParams['event']) => loop.fire({ runId: run.runId, uri: ws.dut.toString(), event });
  h = {
    ...ws,
    run,
    store,
    posted,
    logged,
    view,
    started,
    loop,
    requestEnded,
    settled,
    written,
    emit,
    autoEngine: 'random',
  };
});

afterEach(() => {
  h.view.dispose();
  rmSync(h.dir, { recursive: true, force: true });
});

const tick = () => new Promise((r) => setImmediate(r));
const types = () => h.posted.map((m) => (m.type === 'loopEvent' ? `loopEvent:${m.event.type}` : m.type));

test('a start posts the request to the chat and opens a progress notification that Cancel stops', async () => {
  h.started.fire({ run: h.run, settings: DEFAULT_SETTINGS });
  const start = h.posted[0];
  assert.equal(start.type, 'runStart');
  if (start.type !== 'runStart') return;
  assert.deepEqual(
    { ...start.run, startedAt: undefined },
    {
      runId: 'run-1',
      dut: 'counter',
      files: ['counter.sv'],
      targets: { line: 100 },
      engine: 'random',
      model: undefined,
      maxRounds: 3,
      startedAt: undefined,
    },
    'engine auto, and the server said auto means the model-free engine',
  );
  assert.equal(stub.progress[0].title, 'CHORUS: counter');
  assert.equal(stub.progress[0].done, false);
  stub.progress[0].cancel();
  assert.equal(h.run.cts.token.isCancellationRequested, true, 'Cancel on the notification cancels the run');
  await h.requestEnded.fire({ run: h.run, outcome: { kind: 'cancelled' } });
  await tick();
  assert.equal(stub.progress[0].done, true, 'the notification closes when the request ends');
});

test('before the start event, an auto run shows the engine the server said auto stands for', () => {
  h.autoEngine = 'llm';
  h.started.fire({ run: h.run, settings: { ...DEFAULT_SETTINGS, model: '/m/tiny.gguf' } });
  const shown = h.posted[0];
  assert.deepEqual(shown.type === 'runStart' && [shown.run.engine, shown.run.model], ['llm', '/m/tiny.gguf']);
  h.started.fire({
    run: runRecord(h.dut, { runId: 'run-2', params: { ...h.run.params, engine: 'hybrid' } }),
    settings: DEFAULT_SETTINGS,
  });
  const chosen = h.posted[1];
  assert.deepEqual(chosen.type === 'runStart' && chosen.run.engine, 'hybrid', 'an engine the request names wins');
});

test('loop events update the record, the gutter, the status bar, the log, the progress line and the chat', async () => {
  h.started.fire({ run: h.run, settings: DEFAULT_SETTINGS });
  h.emit({ type: 'start', top: 'counter', engine: 'random', targets: {}, files: [h.dut.fsPath] });
  assert.equal(h.run.top, 'counter', 'the top the server chose');
  h.emit({ type: 'roundStart', round: 1 });
  assert.equal(h.run.round, 1);
  h.emit({ type: 'log', level: 'warn', message: 'no clock found' });
  assert.deepEqual(h.logged, ['warn [counter] no clock found']);
  h.emit({
    type: 'coverage',
    round: 1,
    coverage: cov(8, 6),
    holes: round1Holes(h.dut.fsPath),
    status: 'ok',
    lines: round1Lines(h.dut.fsPath),
  });

  const entry = h.store.get(h.dut);
  assert.deepEqual(entry?.coverage, cov(8, 6));
  assert.deepEqual(
    entry?.files.get(h.dut.fsPath)?.lines.map((l) => l.line),
    [17, 26, 34],
    'the live line table',
  );
  assert.equal(entry?.holes.length, 2);
  assert.match(stub.statusItems[0].text, /line 80% · branch 75%/);

  h.emit({
    type: 'roundEnd',
    round: { index: 1, status: 'ok', coverage: cov(8, 6), ms: { generate: 5, build: 900, sim: 30 } },
  });
  const reports = stub.progress[0].reports;
  assert.equal(reports[0].message, 'Starting (random)…');
  assert.deepEqual(
    reports.at(-1),
    { message: 'Round 1 of 3 — line 80% · branch 75% · toggle 50%', increment: 100 / 3 },
    'the bar moves, the line stays',
  );
  assert.deepEqual(types(), [
    'runStart',
    'loopEvent:start',
    'loopEvent:roundStart',
    'loopEvent:log',
    'loopEvent:coverage',
    'loopEvent:roundEnd',
  ]);
});

test('a final loop event is not the result: neither relayed nor stored', () => {
  h.started.fire({ run: h.run, settings: DEFAULT_SETTINGS });
  h.emit({ type: 'final', result: finalResult({}, round1Lines(h.dut.fsPath)) });
  assert.deepEqual(types(), ['runStart']);
  assert.equal(h.store.get(h.dut), undefined);
  assert.equal(stub.statusItems[0].text.includes('%'), false);
});

test('events of a run this window does not know are relayed to the chat only', () => {
  h.loop.fire({
    runId: 'other',
    uri: h.dut.toString(),
    event: { type: 'coverage', round: 1, coverage: cov(8, 6), holes: [], status: 'ok' },
  });
  assert.deepEqual(types(), ['loopEvent:coverage']);
  assert.equal(h.store.get(h.dut), undefined);
});

test('a published result becomes the final chat message, with where the testbench went, then the end', () => {
  const tb = join(h.dir, 'tb', 'tb_counter.sv');
  const result = { ...finalResult({}, undefined), testbenchPath: tb };
  h.settled.fire({ run: h.run, outcome: { kind: 'completed', result, ms: 5 } });
  assert.deepEqual(h.posted, [
    { type: 'loopEvent', runId: 'run-1', event: { type: 'final', result } },
    { type: 'runEnded', runId: 'run-1', outcome: 'completed' },
  ]);
  assert.match(stub.statusItems[0].text, /line 100% · branch 100%/);
  assert.deepEqual(h.logged, ['info counter: line 100% · branch 100% · toggle 50% after 1 round(s) (targets met).']);

  h.settled.fire({ run: h.run, outcome: { kind: 'completed', result: { ...result, stopReason: 'cancelled' }, ms: 5 } });
  assert.deepEqual(
    h.posted.at(-1),
    { type: 'runEnded', runId: 'run-1', outcome: 'cancelled' },
    'stopped after a round: its result, then cancelled',
  );
});

test('a failed run is shown once with Show log; a cancelled one ends quietly', async () => {
  const error = Object.assign(
    new Error('Verilator not found: install it with `apt-get install verilator` or set chorus.verilatorPath'),
    {
      code: -32803,
      data: { kind: 'missing_tool' },
    },
  );
  h.settled.fire({ run: h.run, outcome: { kind: 'failed', error } });
  assert.deepEqual(h.posted, [{ type: 'runEnded', runId: 'run-1', outcome: 'failed', message: error.message }]);
  const errors = stub.messages.filter((m) => m.level === 'error');
  assert.equal(errors.length, 1);
  assert.match(errors[0].text, /^Generating stimulus for counter failed: Verilator not found/);
  assert.deepEqual(errors[0].items, ['Open settings', 'Show log']);

  h.settled.fire({ run: h.run, outcome: { kind: 'cancelled' } });
  assert.deepEqual(h.posted.at(-1), { type: 'runEnded', runId: 'run-1', outcome: 'cancelled' });
  assert.equal(stub.messages.length, 1, 'nothing shown for a cancellation');
});

test('testbench writes become chat notices; an unchanged file says nothing', () => {
  const target = vscode.Uri.file(join(h.dir, 'tb', 'tb_counter.sv'));
  h.written.fire({ dut: h.dut, target, outcome: 'created' });
  h.written.fire({ dut: h.dut, target, outcome: 'unchanged' });
  h.written.fire({ dut: h.dut, target, outcome: 'declined' });
  assert.deepEqual(
    h.posted.map((m) => (m.type === 'notice' ? m.text : m.type)),
    ['Wrote tb/tb_counter.sv.', 'Kept tb/tb_counter.sv as it was; the new testbench is open unsaved.'],
  );
});
