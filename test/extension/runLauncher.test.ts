/**
 * The launcher: its pre-flight refuses what cannot run (restricted workspace, no design document, a run already
 * going on the DUT, a missing model), asks what it must (model, top module), and then sends one `chorus/generate`
 * per run, between its start and end events.
 */
import './stub/register';
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { RunLauncher, SELECT_MODEL, USE_MODEL_FREE, type RunEnd, type RunStart } from '../../src/extension/runLauncher';
import { RunRegistry } from '../../src/extension/runRegistry';
import { readSettings } from '../../src/extension/settings';
import { fakeServer, finalResult, memento, openCounter, type CounterWorkspace, type FakeServer } from './runFixtures';
import { makeDocument, makeEditor, stub } from './stub/vscode';

interface Harness extends CounterWorkspace {
  server: FakeServer;
  runs: RunRegistry;
  launcher: RunLauncher;
  started: RunStart[];
  ended: RunEnd[];
  /** What the model picker does when the launcher opens it. */
  onSelectModel: () => void;
  /** What the server last said of the model (`modelAvailable`); undefined before its first status. */
  modelAvailable: boolean | undefined;
}

let h: Harness;

beforeEach(() => {
  const ws = openCounter();
  const server = fakeServer(() => {});
  server.script = async (p) => finalResult(p, []);
  const runs = new RunRegistry();
  const launcher = new RunLauncher({
    server,
    runs,
    settings: () => readSettings(vscode.workspace.getConfiguration('chorus')),
    state: memento(),
    selectModel: async () => h.onSelectModel(),
    modelAvailable: () => h.modelAvailable,
  });
  const started: RunStart[] = [];
  const ended: RunEnd[] = [];
  launcher.onDidStart((s) => started.push(s));
  launcher.onDidEnd((e) => void ended.push(e));
  h = { ...ws, server, runs, launcher, started, ended, onSelectModel: () => {}, modelAvailable: undefined };
});

afterEach(() => {
  h.launcher.dispose();
  rmSync(h.dir, { recursive: true, force: true });
});

/** A script that runs until its request is cancelled, and says when it has started. */
function untilCancelled(): { going: Promise<void> } {
  let started: () => void = () => {};
  const going = new Promise<void>((r) => (started = r));
  h.server.script = (_p, token) =>
    new Promise((_resolve, reject) => {
      token.onCancellationRequested(() => reject(Object.assign(new Error('Request cancelled'), { code: -32800 })));
      started();
    });
  return { going };
}

test('in a restricted workspace nothing is sent and the user is told why', async () => {
  stub.trusted = false;
  assert.equal(await h.launcher.generate(), undefined);
  assert.equal(h.server.calls.length, 0);
  assert.equal(h.started.length, 0);
  assert.match(stub.messages[0].text, /restricted workspace/);
  assert.deepEqual(stub.messages[0].items, ['Manage Workspace Trust']);
});

test('without a design document open, the user is told to open one', async () => {
  const notes = makeEditor(makeDocument(vscode.Uri.file(join(h.dir, 'notes.txt')), 'not a design', 'plaintext'));
  stub.activeTextEditor = notes;
  assert.equal(await h.launcher.generate(), undefined);
  stub.activeTextEditor = undefined;
  assert.equal(await h.launcher.generate(), undefined);
  assert.equal(h.server.calls.length, 0);
  assert.deepEqual(
    stub.messages.map((m) => [m.level, m.text]),
    Array(2).fill([
      'warning',
      'Open a Verilog or SystemVerilog design file, then run "CHORUS: Generate high-coverage stimulus".',
    ]),
  );
});

test('a second run on a DUT that is running is refused; Stop cancels the first, which ends as cancelled', async () => {
  const { going } = untilCancelled();
  const first = h.launcher.generate();
  await going;
  assert.equal(stub.context['chorus.running'], true);
  assert.equal(await h.launcher.generate(), undefined);
  assert.equal(h.server.calls.length, 1, 'the second run sent nothing');
  assert.deepEqual(stub.messages.at(-1), {
    level: 'info',
    text: 'CHORUS is already running on counter: stop it first (CHORUS: Stop).',
    items: [],
    modal: false,
  });

  assert.equal(h.runs.stop(), true);
  assert.equal(await first, undefined);
  assert.deepEqual(
    h.ended.map((e) => e.outcome.kind),
    ['cancelled'],
  );
  assert.equal(h.ended[0].run.running, false);
  assert.equal(stub.context['chorus.running'], false);
  assert.equal(h.runs.stop(), false, 'nothing left to stop');
  assert.equal(stub.messages.filter((m) => m.level === 'error').length, 0, 'a cancellation is no error');
});

test('an unsaved design document is saved before the request', async () => {
  let saved = false;
  h.editor.document.isDirty = true;
  h.editor.document.save = async () => {
    saved = true;
    return true;
  };
  h.server.script = async (p) => {
    assert.ok(saved, 'saved before the server reads the file');
    return finalResult(p, []);
  };
  assert.ok(await h.launcher.generate());
  assert.equal(h.ended[0].outcome.kind, 'completed');
});

test('an engine that needs a model: dismissing refuses, the model-free search runs random, a picked model runs', async () => {
  stub.config['chorus.engine'] = 'llm';
  const warning = 'The llm engine needs a model, and none is configured.';

  assert.equal(await h.launcher.generate(), undefined, 'dismissed');
  assert.deepEqual(stub.messages.at(-1), {
    level: 'warning',
    text: warning,
    items: [SELECT_MODEL, USE_MODEL_FREE],
    modal: false,
  });
  assert.equal(h.server.calls.length, 0);

  stub.answer = () => SELECT_MODEL;
  assert.equal(await h.launcher.generate(), undefined, 'the picker was closed without a model');
  assert.equal(h.server.calls.length, 0);

  stub.answer = () => USE_MODEL_FREE;
  await h.launcher.generate();
  assert.equal(h.server.calls[0].engine, 'random');
  assert.equal(h.started[0].settings.engine, 'random', 'the run view shows the engine chosen');

  stub.answer = () => SELECT_MODEL;
  h.onSelectModel = () => {
    stub.config['chorus.model'] = '/models/tiny.gguf';
  };
  await h.launcher.generate();
  // The picked model is now the setting, which the server reads: the request names neither it nor the engine.
  assert.equal(h.server.calls.length, 2, 'a run with the picked model is sent');
  assert.deepEqual([h.server.calls[1].engine, h.server.calls[1].model], [undefined, undefined]);
  assert.equal(h.started[1]?.settings.model, '/models/tiny.gguf');
});

test('several top candidates: a quick pick, remembered for the next run; dismissing it cancels', async () => {
  h.server.topModules = ['counter', 'counter_top'];
  const offered: string[][] = [];
  stub.quickPick = (items) => {
    offered.push(items.map((i) => i.label));
    return items.find((i) => i.label === 'counter_top');
  };
  await h.launcher.generate();
  assert.equal(h.server.calls[0].top, 'counter_top');
  await h.launcher.generate();
  assert.deepEqual(offered[1], ['counter_top', 'counter'], 'the last choice first');
  stub.quickPick = () => undefined;
  assert.equal(await h.launcher.generate(), undefined);
  assert.equal(h.server.calls.length, 2, 'dismissing the pick sends nothing');

  h.server.topModules = ['counter'];
  await h.launcher.generate();
  assert.equal(h.server.calls[2].top, 'counter', 'the only candidate is sent without asking');
  assert.equal(offered.length, 2);
});

test('a run starts before its request and is over only after every end listener; the response is the result', async () => {
  let publishedLate = false;
  h.launcher.onDidEnd(async () => {
    await new Promise((r) => setTimeout(r, 20));
    publishedLate = true;
  });
  h.server.script = async (p) => {
    assert.equal(h.started.length, 1, 'started before the request');
    const run = h.started[0].run;
    assert.deepEqual([run.runId, run.running, run.top, run.dut.fsPath], [p.runId, true, 'counter', h.dut.fsPath]);
    assert.equal(stub.context['chorus.running'], true);
    assert.equal(h.ended.length, 0);
    return { ...finalResult(p, []), stopReason: 'stalled' };
  };
  const result = await h.launcher.generate();
  assert.equal(publishedLate, true, 'generate waits for async end listeners');
  assert.equal(result?.stopReason, 'stalled');
  const end = h.ended[0];
  assert.equal(
    end.outcome.kind === 'completed' && end.outcome.result,
    result,
    'the end event carries the response itself',
  );
  assert.equal(h.server.calls[0].engine, undefined, 'engine auto: the server decides');
  // Targets and rounds are settings the server reads for the document: the request does not copy them.
  assert.equal(h.server.calls[0].targets, undefined);
  assert.equal(h.server.calls[0].rounds, undefined);
  assert.equal(stub.context['chorus.running'], false);
});

test('a server error ends the run as failed, carrying the error; the launcher shows nothing itself', async () => {
  const error = Object.assign(new Error('Verilator not found'), { code: -32803, data: { kind: 'missing_tool' } });
  h.server.script = async () => {
    throw error;
  };
  assert.equal(await h.launcher.generate(), undefined);
  const outcome = h.ended[0].outcome;
  assert.equal(outcome.kind === 'failed' && outcome.error, error);
  assert.equal(stub.messages.length, 0);
});

test('a test run token cancels the request; an earlier run can be retried on its DUT and top', async () => {
  const { going } = untilCancelled();
  const cts = new vscode.CancellationTokenSource();
  const pending = h.launcher.generate({ dut: h.dut, top: 'counter_top', token: cts.token });
  await going;
  cts.cancel();
  assert.equal(await pending, undefined);
  assert.equal(h.ended[0].outcome.kind, 'cancelled');

  h.server.script = async (p) => finalResult(p, []);
  stub.activeTextEditor = undefined;
  await h.launcher.retry(h.ended[0].run.runId);
  assert.deepEqual([h.server.calls[1].uri, h.server.calls[1].top], [h.dut.toString(), 'counter_top']);
  assert.notEqual(h.server.calls[1].runId, h.server.calls[0].runId, 'a retry is a new run');
});

test('an explicit llm run with a model the server found (a GGUF in models/) starts: the engine decides, not the settings', async () => {
  stub.config['chorus.engine'] = 'llm';
  // No chorus.model in the settings, but the server's status says the engine has a model.
  h.modelAvailable = true;
  assert.ok(await h.launcher.generate(), 'the run was sent and completed');
  assert.equal(h.server.calls.length, 1);
  assert.equal(stub.messages.filter((m) => m.level === 'warning').length, 0, 'no "needs a model" warning');
  // The server says there is none: the launcher asks.
  h.modelAvailable = false;
  assert.equal(await h.launcher.generate(), undefined);
  assert.equal(stub.messages.at(-1)?.text, 'The llm engine needs a model, and none is configured.');
});
