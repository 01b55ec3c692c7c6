/** `replay:<file.json>`: canned replies in order, streamed in pieces; clear errors for bad files and running out. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChorusError, type ModelStatus } from '../../src/protocol';
import { openBackend } from '../../src/llm';
import { memoryLogger } from './support';

let dir: string;
const logger = memoryLogger();
const user = [{ role: 'user' as const, content: 'write a testbench' }];

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'chorus-replay-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

test('answers in order, streaming each reply in several pieces, then errors when it runs out', async () => {
  const long = `filename: tb_counter.sv\n\`\`\`systemverilog\nmodule tb;\n${'  initial #1;\n'.repeat(10)}endmodule\n\`\`\``;
  const p = file('two.json', JSON.stringify({ responses: [long, 'NO_CHANGES'] }));
  const statuses: ModelStatus[] = [];
  const b = await openBackend(`replay:${p}`, { logger, onStatus: (s) => statuses.push(s) });
  assert.equal(b.kind, 'replay');
  assert.equal(b.label, `replay:${p}`);

  const pieces: string[] = [];
  const r1 = await b.chat(user, { onToken: (t) => pieces.push(t) });
  assert.equal(r1.text, long);
  assert.ok(pieces.length > 5, `streamed in ${pieces.length} pieces`);
  assert.equal(pieces.join(''), long);
  assert.equal(r1.finishReason, 'stop');
  assert.ok(r1.usage.completionTokens > 0 && r1.usage.estimated);

  const r2 = await b.chat(user);
  assert.equal(r2.text, 'NO_CHANGES');

  await assert.rejects(
    b.chat(user),
    (err: unknown) =>
      err instanceof ChorusError &&
      err.kind === 'failed' &&
      err.message.includes(`replay file ${p} has only 2 responses`),
  );
  assert.ok(statuses.some((s) => s.state === 'ready' && s.backend === 'replay'));
  await b.dispose();
});

test('an abort mid-reply rejects with cancelled', async () => {
  const p = file('abort.json', JSON.stringify({ responses: ['x'.repeat(2000)] }));
  const b = await openBackend(`replay:${p}`, { logger });
  const controller = new AbortController();
  let pieces = 0;
  await assert.rejects(
    b.chat(user, { signal: controller.signal, onToken: () => ++pieces === 3 && controller.abort() }),
    (err: unknown) => err instanceof ChorusError && err.kind === 'cancelled',
  );
  assert.equal(pieces, 3);
});

test('bad JSON, a wrong shape or a missing file are bad_input errors naming the file', async () => {
  const bad = file('bad.json', '{"responses": ["a", ');
  await assert.rejects(
    openBackend(`replay:${bad}`, { logger }),
    (err: unknown) =>
      err instanceof ChorusError &&
      err.kind === 'bad_input' &&
      err.message.includes(bad) &&
      /not valid JSON/.test(err.message),
  );
  const shape = file('shape.json', '{"responses": [1, 2]}');
  await assert.rejects(
    openBackend(`replay:${shape}`, { logger }),
    (err: unknown) => err instanceof ChorusError && err.kind === 'bad_input' && err.message.includes(shape),
  );
  const missing = join(dir, 'missing.json');
  await assert.rejects(
    openBackend(`replay:${missing}`, { logger }),
    (err: unknown) => err instanceof ChorusError && err.kind === 'bad_input' && err.message.includes(missing),
  );
  await assert.rejects(
    openBackend('replay:', { logger }),
    (err: unknown) => err instanceof ChorusError && err.kind === 'bad_input',
  );
});

test('replay wins over an endpoint setting (tests of an endpoint-configured server stay reproducible)', async () => {
  const p = file('one.json', JSON.stringify({ responses: ['hi'] }));
  const b = await openBackend(`replay:${p}`, { logger, endpoint: { baseUrl: 'http://127.0.0.1:9' } });
  assert.equal(b.kind, 'replay');
  assert.equal((await b.chat(user)).text, 'hi');
});

test('recorded endings: a reply cut at the limit, a stream cut short, a backend error, a slow reply that a cancel stops', async () => {
  const p = file(
    'endings.json',
    JSON.stringify({
      responses: [
        { text: 'half a test', finishReason: 'length' },
        { text: 'partial', finishReason: 'interrupted' },
        { error: 'HTTP 503: overloaded' },
        { text: 'slow', delayMs: 60_000 },
      ],
    }),
  );
  const b = await openBackend(`replay:${p}`, { logger });
  const cut = await b.chat(user);
  assert.deepEqual([cut.text, cut.finishReason], ['half a test', 'length']);
  const interrupted = await b.chat(user);
  assert.equal(interrupted.finishReason, 'interrupted');
  assert.match(interrupted.note ?? '', /cut short/);
  await assert.rejects(
    b.chat(user),
    (err: unknown) => err instanceof ChorusError && err.kind === 'failed' && /HTTP 503: overloaded/.test(err.message),
  );
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const started = Date.now();
  await assert.rejects(
    b.chat(user, { signal: controller.signal }),
    (err: unknown) => err instanceof ChorusError && err.kind === 'cancelled',
  );
  assert.ok(Date.now() - started < 30_000, 'the delay ends with the cancel');

  const bad = file('bad-entry.json', JSON.stringify({ responses: ['ok', { text: 1 }] }));
  await assert.rejects(openBackend(`replay:${bad}`, { logger }), /responses\[1\] must be a string or \{"text"/);
});
