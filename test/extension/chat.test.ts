import './stub/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { HostToWebview, LoopEvent, ModelStatus, WebviewToHost } from '../../src/protocol';
import { chatActions } from '../../src/extension/chatActions';
import { ChatHost, type ChatActions } from '../../src/extension/chatHost';
import type { RunRegistry } from '../../src/extension/runRegistry';
import type { ChorusServer } from '../../src/extension/server';
import { CoverageStore } from '../../src/extension/store';
import { Transcript, KEPT_RUNS } from '../../src/extension/transcript';
import { makeWebview, stub, EventEmitter, type FakeWebview } from './stub/vscode';

const tokens = (round: number, text: string): HostToWebview => ({
  type: 'loopEvent',
  runId: 'r1',
  event: { type: 'tokens', round, text },
});
const runStart = (runId: string): HostToWebview => ({
  type: 'runStart',
  run: { runId, dut: 'fifo', files: ['fifo.sv'], targets: { line: 100 }, engine: 'llm' },
});

test('the transcript merges streamed pieces and keeps the last runs', () => {
  const t = new Transcript();
  t.add(runStart('r1'));
  t.add(tokens(1, 'mod'));
  t.add(tokens(1, 'ule'));
  t.add(tokens(2, 'x'));
  assert.equal(t.length, 3);
  const restore = t.restoreFor([]);
  assert.equal(restore?.type, 'restore');
  const msgs = restore?.type === 'restore' ? restore.messages : [];
  assert.deepEqual(msgs[1], tokens(1, 'module'));
  assert.equal(t.restoreFor(['r1']), undefined, 'the panel already shows everything');

  t.noteQuestion('a1', 'why is line 12 a hole?');
  t.add({ type: 'askChunk', askId: 'a1', text: 'Because ', done: false });
  t.add({ type: 'askChunk', askId: 'a1', text: 'full is never set.', done: true });
  const ask =
    t.restoreFor([])?.type === 'restore'
      ? (t.restoreFor([]) as { messages: HostToWebview[] }).messages.at(-1)
      : undefined;
  assert.deepEqual(ask, {
    type: 'askChunk',
    askId: 'a1',
    text: 'Because full is never set.',
    done: true,
    error: undefined,
    question: 'why is line 12 a hole?',
  });

  for (let i = 2; i <= KEPT_RUNS + 2; i++) t.add(runStart(`r${i}`));
  assert.deepEqual(
    t.runIds(),
    Array.from({ length: KEPT_RUNS }, (_, i) => `r${i + 3}`),
  );
  t.add({ type: 'reset' });
  assert.equal(t.length, 0);
});

function host(actions: Partial<ChatActions>, warnings: string[] = [], fallback?: () => ModelStatus | undefined) {
  stub.reset();
  const context = { extensionUri: vscode.Uri.file('/ext'), subscriptions: [] } as unknown as vscode.ExtensionContext;
  const logger = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} };
  return new ChatHost(context, () => actions as ChatActions, logger, fallback);
}

test('before the server reports a model status, the panel hears the one the settings imply', async () => {
  const h = host({}, [], () => ({ state: 'not_configured' }));
  h.openPanel();
  stub.webviews[0].receive.fire({ type: 'ready', restoredRuns: [] } satisfies WebviewToHost);
  await tick();
  assert.deepEqual(stub.webviews[0].posted, [{ type: 'modelStatus', status: { state: 'not_configured' } }]);
  h.post({ type: 'modelStatus', status: { state: 'loading', percent: 10 } });
  stub.webviews[0].receive.fire({ type: 'ready', restoredRuns: [] } satisfies WebviewToHost);
  await tick();
  assert.deepEqual(stub.webviews[0].posted.at(-1), { type: 'modelStatus', status: { state: 'loading', percent: 10 } });
});

function view(): { webview: FakeWebview; onDidDispose: vscode.Event<void>; dispose: () => void } {
  const disposed = new EventEmitter<void>();
  return {
    webview: makeWebview(),
    onDidDispose: disposed.event as unknown as vscode.Event<void>,
    dispose: () => disposed.fire(),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

test('the view gets the panel HTML with a nonce CSP and the bundle, and every message the host posts', () => {
  const h = host({});
  const v = view();
  h.resolveWebviewView(v as unknown as vscode.WebviewView);
  const html = v.webview.html;
  const nonce = /nonce-([A-Za-z0-9_-]+)/.exec(html)?.[1];
  assert.ok(nonce && nonce.length >= 16);
  assert.match(
    html,
    new RegExp(
      `<script type="module" nonce="${nonce}" src="vscode-webview://stub/ext/dist/webview/panel.js"></script>`,
    ),
  );
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
  h.post(runStart('r1'));
  h.post({ type: 'modelStatus', status: { state: 'ready' } });
  assert.deepEqual(
    v.webview.posted.map((m) => (m as HostToWebview).type),
    ['runStart', 'modelStatus'],
  );
});

test('a panel that opens later is restored from the transcript and told the model status', async () => {
  const h = host({});
  h.post(runStart('r1'));
  h.post(tokens(1, 'a'));
  h.post(tokens(1, 'b'));
  h.post({ type: 'modelStatus', status: { state: 'generating', tokensPerSecond: 9 } });
  h.openPanel();
  const panel = stub.webviews[0];
  panel.receive.fire({ type: 'ready', restoredRuns: [] } satisfies WebviewToHost);
  await tick();
  const [restore, status] = panel.posted as HostToWebview[];
  assert.equal(restore.type, 'restore');
  assert.deepEqual(restore.type === 'restore' && restore.messages.map((m) => m.type), ['runStart', 'loopEvent']);
  assert.deepEqual(status, { type: 'modelStatus', status: { state: 'generating', tokensPerSecond: 9 } });
  panel.receive.fire({ type: 'ready', restoredRuns: ['r1'] } satisfies WebviewToHost);
  await tick();
  assert.equal(
    (panel.posted as HostToWebview[]).filter((m) => m.type === 'restore').length,
    1,
    'nothing new to restore',
  );
});

test('panel messages reach their actions; malformed ones are dropped; a failing action becomes a notice', async () => {
  const got: WebviewToHost[] = [];
  const warnings: string[] = [];
  const h = host(
    {
      stop: (m) => void got.push(m),
      copy: () => {
        throw new Error('clipboard unavailable');
      },
    },
    warnings,
  );
  const v = view();
  h.resolveWebviewView(v as unknown as vscode.WebviewView);
  v.webview.receive.fire({ type: 'stop', runId: 'r9' });
  v.webview.receive.fire({ type: 'stop' });
  v.webview.receive.fire({ type: 'rm -rf', runId: 'r9' });
  v.webview.receive.fire({ type: 'copy', text: 'x' });
  await tick();
  await tick();
  assert.deepEqual(got, [{ type: 'stop', runId: 'r9' }]);
  assert.equal(warnings.length, 2);
  const notice = (v.webview.posted as HostToWebview[]).find((m) => m.type === 'notice');
  assert.match(notice?.type === 'notice' ? notice.text : '', /copy failed: clipboard unavailable/);
});

test('steer goes to the running run, or is refused with the reason; ask is refused in a restricted workspace', async () => {
  stub.reset();
  const posted: HostToWebview[] = [];
  const steered: unknown[] = [];
  let running = false;
  let refuse = false;
  const record = {
    runId: 'r1',
    dut: vscode.Uri.file('/w/fifo.sv'),
    round: 2,
    get running() {
      return running;
    },
  };
  const server = {
    steer: async (p: unknown) => {
      steered.push(p);
      return { accepted: !refuse };
    },
    ask: async () => assert.fail('must not ask'),
  } as unknown as ChorusServer;
  const runs = {
    get: (id: string) => (id === 'r1' ? record : undefined),
    current: () => (running ? record : undefined),
    stop: () => false,
  } as unknown as RunRegistry;
  const actions = chatActions({
    server,
    runs,
    launcher: { retry: async () => assert.fail('must not retry') },
    publisher: { writeTestbench: async () => assert.fail('must not write') },
    store: new CoverageStore(),
    post: (m) => posted.push(m),
    noteQuestion() {},
  });

  await actions.steer({ type: 'steer', steerId: 's1', text: 'drive back-to-back pushes', runId: 'r1' });
  assert.equal(posted[0].type === 'steerResult' && posted[0].accepted, false);
  assert.match(posted[0].type === 'steerResult' ? (posted[0].message ?? '') : '', /No run is going/);

  running = true;
  await actions.steer({ type: 'steer', steerId: 's2', text: 'drive back-to-back pushes' });
  assert.deepEqual(steered, [{ runId: 'r1', text: 'drive back-to-back pushes' }]);
  assert.deepEqual(posted[1], { type: 'steerResult', steerId: 's2', accepted: true, runId: 'r1', round: 3 });

  refuse = true;
  await actions.steer({ type: 'steer', steerId: 's3', text: 'too late' });
  assert.equal(posted[2].type === 'steerResult' && posted[2].accepted, false, 'the server had no such run any more');

  stub.trusted = false;
  await actions.ask({ type: 'ask', askId: 'a1', question: 'why?' });
  assert.equal(posted[3].type === 'askChunk' && posted[3].done, true);
  assert.match(posted[3].type === 'askChunk' ? (posted[3].error ?? '') : '', /restricted workspace/);
});

test('loop events are relayed as the panel protocol says', () => {
  const h = host({});
  const v = view();
  h.resolveWebviewView(v as unknown as vscode.WebviewView);
  const e: LoopEvent = { type: 'roundStart', round: 1 };
  h.post({ type: 'loopEvent', runId: 'r1', event: e });
  assert.deepEqual(v.webview.posted[0], { type: 'loopEvent', runId: 'r1', event: e });
});
