/** The built language server over stdio, driven by a real JSON-RPC/LSP client. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CancellationTokenSource,
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import { Methods, type GenerateResult, type LoopEventParams, type ModelStatus } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { commandOf, descendants, waitFor } from '../helpers/procs';
import { replayModel } from '../helpers/replay';

const fifoPath = join(repoRoot, 'examples', 'fifo', 'fifo.sv');
const fifoUri = pathToFileURL(fifoPath).toString();
const counterPath = join(repoRoot, 'examples', 'vending', 'vending.sv');
const counterUri = pathToFileURL(counterPath).toString();
const replay = JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8')) as { responses: string[] };

let server: ChildProcess;
let conn: MessageConnection;
let settings: Record<string, unknown> = {};
const loopEvents: LoopEventParams[] = [];
const progress: unknown[] = [];
const statuses: ModelStatus[] = [];

before(async () => {
  server = spawn(process.execPath, [join(repoRoot, 'dist', 'server.js'), '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  conn = createMessageConnection(new StreamMessageReader(server.stdout!), new StreamMessageWriter(server.stdin!));
  conn.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) => p.items.map(() => settings));
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('workspace/codeLens/refresh', () => null);
  conn.onNotification('$/progress', (p: unknown) => progress.push(p));
  conn.onNotification(Methods.loopEvent, (p: LoopEventParams) => loopEvents.push(p));
  conn.onNotification(Methods.modelStatus, (p: ModelStatus) => statuses.push(p));
  conn.onNotification('window/logMessage', () => undefined);
  conn.onNotification('textDocument/publishDiagnostics', () => undefined);
  conn.listen();
  const init = (await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(repoRoot).toString(),
    capabilities: { workspace: { configuration: true, codeLens: { refreshSupport: true } }, window: { workDoneProgress: true } },
    workspaceFolders: null,
  })) as { capabilities: Record<string, unknown> };
  assert.ok(init.capabilities.documentSymbolProvider);
  await conn.sendNotification('initialized', {});
  for (const [uri, path] of [[fifoUri, fifoPath], [counterUri, counterPath]]) {
    await conn.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'systemverilog', version: 1, text: readFileSync(path, 'utf8') },
    });
  }
});

after(async () => {
  try {
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
  } finally {
    conn.dispose();
    server.kill();
  }
});

test('document symbols: modules with ports and parameters as children', async () => {
  const symbols = (await conn.sendRequest('textDocument/documentSymbol', { textDocument: { uri: fifoUri } })) as {
    name: string;
    children: { name: string; detail: string }[];
  }[];
  assert.equal(symbols.length, 1);
  assert.equal(symbols[0].name, 'fifo');
  const names = symbols[0].children.map((c) => c.name);
  for (const n of ['WIDTH', 'DEPTH', 'clk', 'push', 'dout', 'level']) assert.ok(names.includes(n), `${n} is a child`);
  assert.match(symbols[0].children.find((c) => c.name === 'dout')!.detail, /output \[7:0\]/);
});

test('code lens: generate above each module', async () => {
  const lenses = (await conn.sendRequest('textDocument/codeLens', { textDocument: { uri: fifoUri } })) as { command: { title: string; command: string } }[];
  assert.equal(lenses.length, 1);
  assert.equal(lenses[0].command.title, 'Generate high-coverage stimulus');
  assert.equal(lenses[0].command.command, 'chorus.generate');
});

test('chorus/generate with a replay model streams events to completion; lenses and hover follow', async () => {
  settings = { engine: 'llm', model: replayModel(replay.responses), maxRounds: 3 };
  const result = (await conn.sendRequest(Methods.generate, { uri: fifoUri, runId: 'run-1' })) as GenerateResult;
  assert.equal(result.pass, true);
  assert.equal(result.rounds.length, 2);
  assert.equal(result.points, undefined, 'points stay on the server');
  const mine = loopEvents.filter((e) => e.runId === 'run-1').map((e) => e.event.type);
  for (const t of ['start', 'roundStart', 'tokens', 'parsed', 'build', 'coverage', 'feedback', 'roundEnd', 'final']) {
    assert.ok(mine.includes(t as never), `event ${t} streamed`);
  }
  assert.ok(progress.length >= 3, 'work-done progress begin/report/end');
  assert.ok(statuses.some((s) => s.state === 'ready'), 'model status notifications');

  const lenses = (await conn.sendRequest('textDocument/codeLens', { textDocument: { uri: fifoUri } })) as { command: { title: string } }[];
  assert.ok(lenses.some((l) => /^line 100% · branch 100%.* · \d+ holes?$/.test(l.command.title)), lenses.map((l) => l.command.title).join(' | '));

  // The `level <= level + 1'b1;` line of the push arm.
  const src = readFileSync(fifoPath, 'utf8').split('\n');
  const line = src.findIndex((l) => l.includes("level  <= level + 1'b1;"));
  const hover = (await conn.sendRequest('textDocument/hover', { textDocument: { uri: fifoUri }, position: { line, character: 12 } })) as {
    contents: { value: string };
  } | null;
  assert.ok(hover, 'hover after a run');
  assert.match(hover.contents.value, /line hit \*\*\d+\*\* time/);

  const cov = (await conn.sendRequest(Methods.coverage, { uri: fifoUri })) as { result: GenerateResult | null; lines: unknown[] };
  assert.ok(cov.result && cov.lines.length > 0);
  const lcov = (await conn.sendRequest(Methods.exportLcov, { uri: fifoUri })) as { lcov: string };
  assert.match(lcov.lcov, /^SF:.*fifo\.sv$/m);
});

test('one run per DUT; cancellation stops the run and leaves no child processes', async () => {
  settings = { engine: 'random' };
  const source = new CancellationTokenSource();
  const first = conn.sendRequest(Methods.generate, { uri: counterUri, runId: 'run-2', budgetSeconds: 120, targets: { toggle: 100, line: 100 } }, source.token);
  // Wait until the search is simulating.
  const started = await waitFor(() => loopEvents.some((e) => e.runId === 'run-2' && e.event.type === 'build'), 60_000);
  assert.ok(started, 'the run started');
  await assert.rejects(conn.sendRequest(Methods.generate, { uri: counterUri, runId: 'run-3' }), /already in progress/);
  source.cancel();
  await assert.rejects(first, (err: { code?: number }) => err.code === -32800);
  const clean = await waitFor(() => descendants(server.pid!).length === 0, 10_000);
  assert.ok(clean, `left behind: ${descendants(server.pid!).map(commandOf).join('; ')}`);
  // The server is still alive and answers.
  const symbols = (await conn.sendRequest('textDocument/documentSymbol', { textDocument: { uri: counterUri } })) as unknown[];
  assert.equal(symbols.length, 1);
});

test('a failure inside a run is an error response, not a dead server', async () => {
  settings = { engine: 'llm', model: replayModel([]) };
  await assert.rejects(conn.sendRequest(Methods.generate, { uri: fifoUri, runId: 'run-4' }), /replay/i);
  const lenses = (await conn.sendRequest('textDocument/codeLens', { textDocument: { uri: fifoUri } })) as unknown[];
  assert.ok(lenses.length >= 1);
});
