/**
 * Workspace trust over a real LSP connection: in a restricted session the server refuses every request that builds,
 * simulates or opens a model with an `untrusted` error, and answers the rest; once the client says the user granted
 * trust (`chorus/workspaceTrust`), those requests run.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import {
  ClientNotifications,
  Notifications,
  Requests,
  type ModelStatus,
  type WorkspaceTrustParams,
} from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { didOpen, onNotification, request, requestUnchecked, startServer, type ServerUnderTest } from '../helpers/lsp';
import { replayModel } from '../helpers/replay';

const fifoPath = join(repoRoot, 'examples', 'fifo', 'fifo.sv');
const fifoUri = pathToFileURL(fifoPath).toString();
const replay = JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8')) as {
  responses: string[];
};
const ANSWER = 'The FIFO holds DEPTH entries.';

/** Valid params for each request that needs trust: a request declared so later must get a line here. */
const TRUSTED_ONLY: Record<string, object> = {
  [Requests.generate.method]: { uri: fifoUri, runId: 'restricted' },
  [Requests.ask.method]: { uri: fifoUri, question: 'How deep is it?', askId: 'restricted' },
};

let lsp: ServerUnderTest;
let conn: MessageConnection;
let settings: Record<string, unknown> = {};
const statuses: ModelStatus[] = [];

before(async () => {
  lsp = await startServer(
    () => settings,
    { workspaceTrusted: false },
    (c) => onNotification(c, Notifications.modelStatus, (p) => statuses.push(p)),
  );
  conn = lsp.conn;
  await didOpen(conn, fifoUri, readFileSync(fifoPath, 'utf8'));
});

after(() => lsp?.close());

function refusedForTrust(method: string) {
  return (err: { data?: { kind?: string }; message?: string }) => {
    assert.equal(err.data?.kind, 'untrusted', `${method}: ${err.message}`);
    assert.match(
      err.message ?? '',
      new RegExp(`^${method} was refused: this workspace is not trusted.*Manage Workspace Trust`),
    );
    return true;
  };
}

async function sendTrust(params: WorkspaceTrustParams | object): Promise<void> {
  await conn.sendNotification(ClientNotifications.workspaceTrust.method, params);
}

test('restricted: every request that builds, simulates or opens a model is refused naming trust; the others answer', async () => {
  settings = { engine: 'llm', model: replayModel([ANSWER, ...replay.responses]) };
  const declared = Object.values(Requests)
    .filter((d) => d.needsTrust)
    .map((d) => d.method)
    .sort();
  assert.deepEqual(declared, Object.keys(TRUSTED_ONLY).sort(), 'each request that needs trust is tried here');
  for (const [method, params] of Object.entries(TRUSTED_ONLY))
    await assert.rejects(requestUnchecked(conn, { method }, params), refusedForTrust(method));
  // A notification that does not fit its schema changes nothing.
  await sendTrust({ trusted: 'yes' });
  await assert.rejects(
    request(conn, Requests.ask, { uri: fifoUri, question: 'Still?', askId: 'a0' }),
    refusedForTrust(Requests.ask.method),
  );

  assert.ok(
    !statuses.some((s) => s.state === 'loading' || s.state === 'ready'),
    `no model was opened: ${statuses.map((s) => s.state).join(', ')}`,
  );
  // What only reads goes on: the design's modules, stored results, the model folders, symbols.
  assert.deepEqual(await request(conn, Requests.tops, { uri: fifoUri }), {
    modules: ['fifo'],
    tops: ['fifo'],
    candidates: ['fifo'],
  });
  assert.deepEqual(await request(conn, Requests.coverage, { uri: fifoUri }), { result: null, lines: [] });
  assert.ok(Array.isArray((await request(conn, Requests.listModels, {})).models));
  const symbols = (await conn.sendRequest('textDocument/documentSymbol', {
    textDocument: { uri: fifoUri },
  })) as unknown[];
  assert.equal(symbols.length, 1);
});

test('after the client says trust was granted, the model answers and a run builds and simulates', async () => {
  await sendTrust({ trusted: true });
  const answer = await request(conn, Requests.ask, { uri: fifoUri, question: 'How deep is it?', askId: 'a1' });
  assert.equal(answer.text, ANSWER);
  settings = { engine: 'llm', model: replayModel(replay.responses), maxRounds: 1 };
  const result = await request(conn, Requests.generate, { uri: fifoUri, runId: 'trusted' });
  assert.ok(
    result.rounds.length >= 1 && result.rounds[0].status === 'ok',
    JSON.stringify(result.rounds.map((r) => r.status)),
  );
});
