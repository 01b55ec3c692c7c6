/** The built language server over stdio, driven by a real JSON-RPC/LSP client. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CancellationTokenSource, type MessageConnection } from 'vscode-jsonrpc/node';
import {
  LensCommands,
  Notifications,
  readLensArgs,
  Requests,
  type LoopEventParams,
  type ModelStatus,
} from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { didOpen, onNotification, request, startServer, type ServerUnderTest } from '../helpers/lsp';
import { commandOf, descendants, waitFor } from '../helpers/procs';
import { replayModel } from '../helpers/replay';
import { limitMs } from '../helpers/time-limits';

// Measured with an empty build cache (CHORUS_CACHE_DIR), `nice -n 10 node --import tsx --test test/server/server.test.ts`:
// the first run, Verilator runtime build included, took 47 s at load average 7.1 (the vending build waited on
// below is the first build when this test runs alone); the whole cancellation test, 3.2 s at load 7.1.
const FIRST_BUILD_MS = limitMs(47_400, 7.1);
const TOOLS_GONE_MS = limitMs(3_200, 7.1);

const fifoPath = join(repoRoot, 'examples', 'fifo', 'fifo.sv');
const fifoUri = pathToFileURL(fifoPath).toString();
const counterPath = join(repoRoot, 'examples', 'vending', 'vending.sv');
const counterUri = pathToFileURL(counterPath).toString();
const replay = JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8')) as {
  responses: string[];
};

let lsp: ServerUnderTest;
let conn: MessageConnection;
let settings: Record<string, unknown> = {};
const loopEvents: LoopEventParams[] = [];
const statuses: ModelStatus[] = [];

before(async () => {
  lsp = await startServer(() => settings);
  conn = lsp.conn;
  onNotification(conn, Notifications.loopEvent, (p) => loopEvents.push(p));
  onNotification(conn, Notifications.modelStatus, (p) => statuses.push(p));
  for (const [uri, path] of [
    [fifoUri, fifoPath],
    [counterUri, counterPath],
  ])
    await didOpen(conn, uri, readFileSync(path, 'utf8'));
});

after(() => lsp?.close());

test('document symbols: modules with ports and parameters as children', async () => {
  assert.ok(lsp.capabilities.documentSymbolProvider);
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
  const lenses = (await conn.sendRequest('textDocument/codeLens', { textDocument: { uri: fifoUri } })) as {
    command: { title: string; command: string; arguments: unknown[] };
  }[];
  assert.equal(lenses.length, 1);
  assert.equal(lenses[0].command.title, 'Generate high-coverage stimulus');
  assert.equal(lenses[0].command.command, LensCommands.generate);
  assert.deepEqual(
    readLensArgs(lenses[0].command.arguments[0]),
    { uri: fifoUri, top: 'fifo' },
    'the declared lens argument',
  );
});

test('chorus/generate with a replay model streams events to completion; lenses and hover follow', async () => {
  settings = { engine: 'llm', model: replayModel(replay.responses), maxRounds: 3 };
  const result = await request(conn, Requests.generate, { uri: fifoUri, runId: 'run-1' });
  assert.equal(result.pass, true);
  assert.equal(result.rounds.length, 2);
  assert.equal('points' in result, false, 'points stay on the server');
  const mine = loopEvents.filter((e) => e.runId === 'run-1').map((e) => e.event.type);
  for (const t of ['start', 'roundStart', 'tokens', 'parsed', 'build', 'coverage', 'feedback', 'roundEnd', 'final']) {
    assert.ok(mine.includes(t as never), `event ${t} streamed`);
  }
  assert.ok(lsp.progress.length >= 3, 'work-done progress begin/report/end');
  assert.ok(
    statuses.some((s) => s.state === 'ready'),
    'model status notifications',
  );

  const lenses = (await conn.sendRequest('textDocument/codeLens', { textDocument: { uri: fifoUri } })) as {
    command: { title: string };
  }[];
  assert.ok(
    lenses.some((l) => /^line 100% · branch 100%.* · \d+ holes?$/.test(l.command.title)),
    lenses.map((l) => l.command.title).join(' | '),
  );

  // The `level <= level + 1'b1;` line of the push arm.
  const src = readFileSync(fifoPath, 'utf8').split('\n');
  const line = src.findIndex((l) => l.includes("level  <= level + 1'b1;"));
  const hover = (await conn.sendRequest('textDocument/hover', {
    textDocument: { uri: fifoUri },
    position: { line, character: 12 },
  })) as {
    contents: { value: string };
  } | null;
  assert.ok(hover, 'hover after a run');
  assert.match(hover.contents.value, /line hit \*\*\d+\*\* time/);

  const cov = await request(conn, Requests.coverage, { uri: fifoUri });
  assert.ok(cov.result && cov.lines.length > 0);
  const lcov = await request(conn, Requests.exportLcov, { uri: fifoUri });
  assert.match(lcov.lcov, /^SF:.*fifo\.sv$/m);
});

test('one run per DUT; cancellation stops the run and leaves no child processes', async () => {
  settings = { engine: 'random' };
  const source = new CancellationTokenSource();
  const first = request(
    conn,
    Requests.generate,
    { uri: counterUri, runId: 'run-2', budgetSeconds: 120, targets: { toggle: 100, line: 100 } },
    source.token,
  );
  // Wait until the search is simulating.
  const started = await waitFor(
    () => loopEvents.some((e) => e.runId === 'run-2' && e.event.type === 'build'),
    FIRST_BUILD_MS,
  );
  assert.ok(started, 'the run started');
  await assert.rejects(request(conn, Requests.generate, { uri: counterUri, runId: 'run-3' }), /already in progress/);
  source.cancel();
  await assert.rejects(first, (err: { code?: number }) => err.code === -32800);
  // The orphan guard (src/sim/process/orphanGuard.ts) lives as long as the server by design; every tool must be gone.
  const tools = () => descendants(lsp.server.pid!).filter((pid) => !commandOf(pid).includes('while read -r op id'));
  const clean = await waitFor(() => tools().length === 0, TOOLS_GONE_MS);
  assert.ok(clean, `left behind: ${tools().map(commandOf).join('; ')}`);
  // The server is still alive and answers.
  const symbols = (await conn.sendRequest('textDocument/documentSymbol', {
    textDocument: { uri: counterUri },
  })) as unknown[];
  assert.equal(symbols.length, 1);
});

test('a failure inside a run is an error response, not a dead server', async () => {
  settings = { engine: 'llm', model: replayModel([]) };
  await assert.rejects(request(conn, Requests.generate, { uri: fifoUri, runId: 'run-4' }), /replay/i);
  const lenses = (await conn.sendRequest('textDocument/codeLens', { textDocument: { uri: fifoUri } })) as unknown[];
  assert.ok(lenses.length >= 1);
});
