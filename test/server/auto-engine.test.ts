/**
 * The engine an `auto` run would use is the engine's decision, told to the client in `chorus/modelStatus`
 * (`autoEngine`): sent once the server is initialized and again when the `chorus.*` settings change. Through the
 * built language server over stdio.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Notifications, Requests, type ModelStatusParams } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { makeTinyGguf } from '../fixtures/llm/make-tiny-gguf';
import { didOpen, onNotification, request, startServer, type ServerUnderTest } from '../helpers/lsp';
import { replayModel } from '../helpers/replay';

let dir: string;
let lsp: ServerUnderTest;
let settings: Record<string, unknown> = {};
const statuses: ModelStatusParams[] = [];
let waiting: ((s: ModelStatusParams) => void) | undefined;

/** The next `chorus/modelStatus` (or one already received and not yet taken). */
function nextStatus(): Promise<ModelStatusParams> {
  const queued = statuses.shift();
  if (queued) return Promise.resolve(queued);
  return new Promise((resolve) => (waiting = resolve));
}

/** The settings changed as an editor reports it (the server pulls them), then the status that follows. */
async function changeSettings(next: Record<string, unknown>): Promise<ModelStatusParams> {
  settings = next;
  statuses.length = 0;
  await lsp.conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
  return nextStatus();
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chorus-auto-engine-'));
  // An empty models folder: the repository's models/ (also searched) holds no GGUF either.
  lsp = await startServer(
    () => settings,
    { modelDirs: [dir] },
    (conn) =>
      onNotification(conn, Notifications.modelStatus, (s) => {
        if (waiting) {
          const w = waiting;
          waiting = undefined;
          w(s);
        } else statuses.push(s);
      }),
  );
});

after(async () => {
  await lsp?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('no model configured or found: auto means the model-free search, said once the server is initialized', async () => {
  const first = await nextStatus();
  assert.equal(first.autoEngine, 'random');
  assert.equal(first.modelAvailable, false, 'an explicit llm run would have no model');
  assert.equal(first.state, 'not_configured');
});

test('a GGUF dropped into the models folder makes auto mean llm; removing it, random again', async () => {
  copyFileSync(await makeTinyGguf(), join(dir, 'tiny.gguf'));
  const found = await changeSettings({});
  assert.equal(found.autoEngine, 'llm');
  // The client asks for a model only when the engine says there is none: a GGUF in models/ counts.
  assert.equal(found.modelAvailable, true);
  assert.equal((await changeSettings({ engine: 'llm' })).modelAvailable, true, 'an explicit llm run has its model');
  unlinkSync(join(dir, 'tiny.gguf'));
  const gone = await changeSettings({});
  assert.equal(gone.autoEngine, 'random');
  assert.equal(gone.modelAvailable, false);
});

test('a chorus.model or chorus.endpoint setting makes auto mean llm', async () => {
  assert.equal((await changeSettings({ model: join(dir, 'named.gguf') })).autoEngine, 'llm');
  assert.equal((await changeSettings({ endpoint: 'http://127.0.0.1:9/v1' })).autoEngine, 'llm');
  assert.equal(
    (await changeSettings({ engine: 'random' })).autoEngine,
    'random',
    'autoEngine is what auto would pick, whichever engine the setting chooses',
  );
});

test('a model opened, then settings naming another: the status no longer says the first is ready', async () => {
  const fifo = join(repoRoot, 'examples', 'fifo', 'fifo.sv');
  const uri = pathToFileURL(fifo).toString();
  const model = replayModel(['The FIFO holds DEPTH entries.']);
  await changeSettings({ engine: 'llm', model });
  await didOpen(lsp.conn, uri, readFileSync(fifo, 'utf8'));
  statuses.length = 0;
  await request(lsp.conn, Requests.ask, { uri, question: 'How deep is it?', askId: 'opens-the-model' });
  const opened = statuses.find((s) => s.state === 'ready');
  assert.equal(opened?.model, model, JSON.stringify(statuses));
  const same = await changeSettings({ engine: 'llm', model, maxRounds: 3 });
  assert.equal(same.state, 'ready', 'a setting the opened model does not depend on leaves its status');
  const other = await changeSettings({ engine: 'llm', model: replayModel(['Another model.']) });
  assert.equal(other.state, 'not_configured', 'the new model loads on its first run');
  assert.equal(other.modelAvailable, true);
});
