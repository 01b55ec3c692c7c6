/**
 * Every declared `chorus/*` request sent to the built language server over stdio through its descriptor (so tsc
 * checks params and results on this end as it does in the server and the extension): valid params answer the
 * declared result; bad params answer InvalidParams (-32602) naming the field.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { JSONSchemaType } from 'ajv';
import { ResponseError, type MessageConnection } from 'vscode-jsonrpc/node';
import type { Connection } from 'vscode-languageserver/node';
import { handleRequest, type ToResponseError } from '../../src/server/rpc';
import {
  isChorusErrorData,
  LensCommands,
  Notifications,
  readLensArgs,
  Requests,
  type AskChunkParams,
  type ChorusErrorData,
  type ChorusInitOptions,
  type LoopEventParams,
  type RequestDescriptor,
  type RequestName,
  type SteerParams,
} from '../../src/protocol';
import type { CommandId } from '../../src/extension/commands';
import { repoRoot } from '../helpers/cli';
import { didOpen, onNotification, request, requestUnchecked, startServer, type ServerUnderTest } from '../helpers/lsp';
import { replayModel } from '../helpers/replay';

const counterPath = join(repoRoot, 'examples', 'counter', 'counter.sv');
const counterUri = pathToFileURL(counterPath).toString();
const fifoUri = pathToFileURL(join(repoRoot, 'examples', 'fifo', 'fifo.sv')).toString();
const scratch = mkdtempSync(join(tmpdir(), 'chorus-protocol-'));
// Open in the editor only, never saved: `chorus/tops` must read the editor's text.
const unsavedUri = pathToFileURL(join(scratch, 'chip.sv')).toString();
const unsavedText = `module leaf(input logic clk); endmodule
module chip(input logic clk);
  leaf u_leaf (.clk(clk));
endmodule
module spare(input logic clk); endmodule
`;

let lsp: ServerUnderTest;
let settings: Record<string, unknown> = {};
const sent = new Set<string>();
const chunks: AskChunkParams[] = [];
const loopEvents: LoopEventParams[] = [];

/** A request with valid params, recorded so the last test can check that every declared request was sent. */
function send<P, R>(descriptor: RequestDescriptor<P, R, ChorusErrorData>, params: P): Promise<R> {
  sent.add(descriptor.method);
  return request(lsp.conn, descriptor, params);
}

/** The error response a request is answered with (fails the test when it succeeds). */
async function failure(pending: Promise<unknown>): Promise<ResponseError<unknown>> {
  try {
    await pending;
  } catch (err) {
    assert.ok(err instanceof ResponseError, `a JSON-RPC error response, got ${String(err)}`);
    return err;
  }
  assert.fail('the request succeeded');
}

before(async () => {
  lsp = await startServer(() => settings);
  onNotification(lsp.conn, Notifications.askChunk, (p) => chunks.push(p));
  onNotification(lsp.conn, Notifications.loopEvent, (p) => loopEvents.push(p));
  await didOpen(lsp.conn, unsavedUri, unsavedText);
});

after(async () => {
  await lsp?.close();
  rmSync(scratch, { recursive: true, force: true });
});

test('chorus/tops: the modules of the editor text, every one offered (those nothing instantiates first); a closed file is read from disk', async () => {
  const open = await send(Requests.tops, { uri: unsavedUri });
  assert.deepEqual(open.modules, ['leaf', 'chip', 'spare']);
  assert.deepEqual(open.tops, ['chip', 'spare', 'leaf']);
  assert.deepEqual(open.candidates, ['chip', 'spare', 'leaf']);
  const closed = await send(Requests.tops, { uri: fifoUri });
  assert.deepEqual(closed, { modules: ['fifo'], tops: ['fifo'], candidates: ['fifo'] });
  const missing = await failure(send(Requests.tops, { uri: pathToFileURL(join(scratch, 'absent.sv')).toString() }));
  assert.ok(isChorusErrorData(missing.data) && missing.data.kind === 'bad_input', JSON.stringify(missing.data));
  assert.match(missing.message, /absent\.sv.*No such file/);
});

test('chorus/filelistsFor: the candidate lists that name the document; unreadable ones are no candidates', async () => {
  const listing = join(scratch, 'counter.f');
  const other = join(scratch, 'other.f');
  const broken = join(scratch, 'broken.f');
  writeFileSync(listing, `${counterPath}\n`);
  writeFileSync(other, `${join(repoRoot, 'examples', 'fifo', 'fifo.sv')}\n`);
  writeFileSync(broken, `+bogus+\n${counterPath}\n`);
  const lists = [listing, other, broken, join(scratch, 'absent.f')].map((f) => pathToFileURL(f).toString());
  assert.deepEqual((await send(Requests.filelistsFor, { uri: counterUri, lists })).lists, [lists[0]]);
});

test('chorus/listModels: the manifest models', async () => {
  const { models } = await send(Requests.listModels, {});
  assert.ok(models.length > 0, 'models/manifest.json lists at least one model');
  assert.ok(models.every((m) => typeof m.id === 'string' && typeof m.present === 'boolean'));
  assert.ok(models.some((m) => m.source === 'manifest'));
});

test('chorus/steer: a run id that is not going is not accepted', async () => {
  const r = await send(Requests.steer, { runId: 'no-such-run', text: 'drive back-to-back pushes' });
  assert.equal(r.accepted, false);
});

test('chorus/ask: the answer streams as chorus/askChunk and comes back whole', async () => {
  settings = { model: replayModel(['The full flag rises after DEPTH pushes without a pop.']) };
  const r = await send(Requests.ask, { uri: fifoUri, question: 'When is full set?', askId: 'ask-1' });
  assert.equal(r.text, 'The full flag rises after DEPTH pushes without a pop.');
  const mine = chunks.filter((c) => c.askId === 'ask-1');
  assert.equal(mine.map((c) => c.text).join(''), r.text);
  assert.equal(mine.at(-1)?.done, true, 'the last chunk says done');
});

test('chorus/exportLcov before any run: an error response with ChorusErrorData saying what to do', async () => {
  const err = await failure(send(Requests.exportLcov, { uri: counterUri }));
  assert.ok(isChorusErrorData(err.data), JSON.stringify(err.data));
  assert.equal(err.data.kind, 'bad_input');
  assert.match(err.message, /run "Generate high-coverage stimulus" first/);
});

test('chorus/generate, then chorus/coverage and chorus/exportLcov of its result', async () => {
  settings = { engine: 'random' };
  const result = await send(Requests.generate, {
    uri: counterUri,
    runId: 'run-1',
    engine: 'random',
    seed: 1,
    budgetSeconds: 60,
    targets: { line: 100 },
  });
  assert.equal(result.top, 'counter');
  assert.equal(result.engine, 'random');
  assert.ok(result.coverage.line.total > 0 && result.coverage.line.covered > 0, JSON.stringify(result.coverage));
  assert.equal('points' in result, false, 'engine-side points stay on the server');
  assert.ok(
    loopEvents.some((e) => e.runId === 'run-1' && e.uri === counterUri && e.event.type === 'final'),
    'loop events carry the run id',
  );

  const cov = await send(Requests.coverage, { uri: counterUri });
  assert.equal(cov.result?.top, 'counter');
  assert.ok(cov.lines.length > 0 && cov.lines.every((l) => l.file === counterPath), 'lines of the document');
  const { lcov } = await send(Requests.exportLcov, { uri: counterUri });
  assert.match(lcov, /^SF:.*counter\.sv$/m);
  // The run's exclusions for Verilator, written by the server through the output rule.
  const vlt = join(scratch, 'counter.vlt');
  const exported = await send(Requests.exportWaivers, {
    uri: counterUri,
    format: 'vlt',
    target: pathToFileURL(vlt).href,
  });
  assert.equal(exported.status, 'written');
  assert.ok(readFileSync(vlt, 'utf8').startsWith('`verilator_config\n// CHORUS exclusions'));
});

// What tsc must refuse (each line below is a type error, or `@ts-expect-error` itself fails the type check): a
// mismatched params or result on the client end, a mismatched result on the server end, a schema that does not
// describe its params type. Never called.
function mismatchesAreTypeErrors(
  conn: MessageConnection,
  connection: Connection,
  toResponseError: ToResponseError,
): void {
  // @ts-expect-error runId is a string
  void request(conn, Requests.steer, { runId: 1, text: 'x' });
  // @ts-expect-error chorus/steer answers SteerResult
  const _answer: Promise<{ text: string }> = request(conn, Requests.steer, { runId: 'r', text: 'x' });
  // @ts-expect-error a handler must answer the declared result
  handleRequest(connection, Requests.steer, toResponseError, () => ({ accepted: 'yes' }));
  // @ts-expect-error the schema must require what the type requires
  const _schema: JSONSchemaType<SteerParams> = {
    type: 'object',
    required: ['runId'],
    properties: { runId: { type: 'string' }, text: { type: 'string' } },
  };
}
void mismatchesAreTypeErrors;

// The server's lens commands are commands the extension registers (a type-only import: no vscode at run time).
const lensCommandsRegistered: readonly CommandId[] = Object.values(LensCommands);

// Bad params for each declared request, and the members the answer must name. Keyed by request: a new request
// without a case here is a type error.
const badParams: Record<RequestName, { params: object | undefined; names: string[] }[]> = {
  generate: [
    { params: { bogus: true }, names: ['uri', 'runId', 'bogus'] },
    { params: { uri: counterUri, runId: 'r', targets: { line: 'all' } }, names: ['targets/line'] },
    { params: { uri: counterUri, runId: 'r', engine: 'gpt', rounds: 0 }, names: ['engine', 'rounds'] },
    { params: { uri: counterUri, runId: 'r', files: [counterUri, 7] }, names: ['files/1'] },
  ],
  coverage: [{ params: { uri: 42 }, names: ['uri'] }],
  steer: [{ params: { runId: 'r' }, names: ['text'] }],
  ask: [{ params: undefined, names: ['uri', 'question', 'askId'] }],
  listModels: [{ params: { uri: '' }, names: ['uri'] }],
  exportLcov: [{ params: { uri: null }, names: ['uri'] }],
  exportWaivers: [
    { params: { uri: counterUri, format: 'vcs', target: counterUri }, names: ['format'] },
    { params: { uri: counterUri, format: 'urgEl', target: counterUri, dutPath: 'tb dut' }, names: ['dutPath'] },
  ],
  tops: [{ params: { uri: counterUri, top: 'counter' }, names: ['top'] }],
  filelistsFor: [{ params: { uri: counterUri, lists: [3] }, names: ['lists/0'] }],
};

for (const name of Object.keys(Requests) as RequestName[]) {
  const descriptor = Requests[name];
  const cases = badParams[name];
  test(`${descriptor.method} with bad params: InvalidParams naming the field`, async () => {
    for (const c of cases) {
      const err = await failure(requestUnchecked(lsp.conn, descriptor, c.params));
      assert.equal(err.code, -32602, `${JSON.stringify(c.params)}: ${err.message}`);
      for (const n of c.names)
        assert.ok(err.message.includes(`"${n}"`), `${JSON.stringify(c.params)}: names "${n}" in: ${err.message}`);
      assert.ok(isChorusErrorData(err.data) && err.data.kind === 'bad_input', JSON.stringify(err.data));
      assert.equal(err.data.field, `/${c.names[0]}`);
    }
  });
}

test('initializationOptions are checked against their declaration: initialize fails naming the member', async () => {
  await assert.rejects(
    startServer(() => ({}), { workspaceTrusted: 'yes', modelDirs: ['/m'] }),
    /initializationOptions: "workspaceTrusted" must be boolean/,
  );
  const ok: Required<ChorusInitOptions> = { workspaceTrusted: false, modelDirs: [scratch] };
  const restricted = await startServer(() => ({}), ok);
  try {
    const err = await failure(request(restricted.conn, Requests.generate, { uri: counterUri, runId: 'untrusted' }));
    assert.match(err.message, /not trusted/);
  } finally {
    await restricted.close();
  }
});

test('code lenses carry the declared arguments of registered commands', async () => {
  const lenses = await lsp.conn.sendRequest<{ command: { command: string; arguments: unknown[] } }[]>(
    'textDocument/codeLens',
    {
      textDocument: { uri: unsavedUri },
    },
  );
  assert.deepEqual(
    lenses.map((l) => [l.command.command, readLensArgs(l.command.arguments[0])]),
    ['leaf', 'chip', 'spare'].map((top) => [LensCommands.generate, { uri: unsavedUri, top }]),
  );
  assert.ok(lenses.every((l) => lensCommandsRegistered.some((c) => c === l.command.command)));
});

test('the server is alive after the bad params, and every declared request was sent with valid params', async () => {
  assert.equal((await send(Requests.steer, { runId: 'still-here', text: 'x' })).accepted, false);
  assert.deepEqual(
    [...sent].sort(),
    Object.values(Requests)
      .map((d) => d.method)
      .sort(),
  );
});
