/** BackendPool: one warm backend per key, released when idle, replaced by another model, or at shutdown. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatBackend, ChatResult } from '../../src/llm/backend';
import { BackendPool, LocalBackend, openBackend } from '../../src/llm';
import { makeTinyGguf } from '../fixtures/llm/make-tiny-gguf';
import { memoryLogger } from './support';

interface Fake extends ChatBackend {
  disposed: Promise<void>;
  isDisposed: boolean;
  calls: number;
}

function fake(label: string, kind: ChatBackend['kind'] = 'local', reply?: () => Promise<void>): Fake {
  let done!: () => void;
  const disposed = new Promise<void>((r) => (done = r));
  const f: Fake = {
    label,
    kind,
    calls: 0,
    isDisposed: false,
    disposed,
    async chat(): Promise<ChatResult> {
      f.calls++;
      await reply?.();
      return {
        text: label,
        finishReason: 'stop',
        usage: { promptTokens: 1, evaluatedPromptTokens: 1, completionTokens: 1, ms: 0 },
      };
    },
    async dispose() {
      f.isDisposed = true;
      done();
    },
  };
  return f;
}

const hi = [{ role: 'user' as const, content: 'hi' }];

test('the same key opens once and shares the backend; the handle cannot dispose it', async () => {
  const pool = new BackendPool();
  let opens = 0;
  const backend = fake('m');
  const open = async () => (opens++, backend);
  const [a, b] = await Promise.all([pool.get('k', open), pool.get('k', open)]);
  const c = await pool.get('k', open);
  assert.equal(opens, 1);
  assert.equal((await a.chat(hi)).text, 'm');
  await b.chat(hi);
  await c.dispose();
  assert.equal(backend.isDisposed, false, 'a handle does not dispose the pooled backend');
  assert.equal(backend.calls, 2);
  assert.deepEqual(pool.keys(), ['k']);
  await pool.disposeAll();
  assert.equal(backend.isDisposed, true);
  assert.deepEqual(pool.keys(), []);
});

test('released after the idle time, never while a chat is running; the next get opens again', async () => {
  const pool = new BackendPool({ idleMs: 20 });
  let finish!: () => void;
  const gate = new Promise<void>((r) => (finish = r));
  const first = fake('m', 'local', () => gate);
  const h = await pool.get('k', async () => first);
  const running = h.chat(hi);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(first.isDisposed, false, 'busy: kept');
  finish();
  await running;
  // The idle timer is unref'd (an idle model must not keep a CLI alive): hold the loop open while waiting.
  const keepAlive = setTimeout(() => undefined, 10_000);
  await first.disposed;
  clearTimeout(keepAlive);
  assert.deepEqual(pool.keys(), []);
  const second = fake('m2');
  const h2 = await pool.get('k', async () => second);
  assert.equal((await h2.chat(hi)).text, 'm2');
  await pool.disposeAll();
});

test('a new model pushes out an idle one beyond maxEntries (default 1)', async () => {
  const pool = new BackendPool();
  const a = fake('a');
  const b = fake('b');
  await pool.get('a', async () => a);
  await pool.get('b', async () => b);
  assert.equal(a.isDisposed, true);
  assert.equal(b.isDisposed, false);
  assert.deepEqual(pool.keys(), ['b']);
  const two = new BackendPool({ maxEntries: 2 });
  const c = fake('c');
  const d = fake('d');
  await two.get('c', async () => c);
  await two.get('d', async () => d);
  assert.equal(c.isDisposed, false);
  await Promise.all([pool.disposeAll(), two.disposeAll()]);
});

test('replay backends are never shared (they answer in order), and a failed open is not cached', async () => {
  const pool = new BackendPool();
  const dir = mkdtempSync(join(tmpdir(), 'chorus-pool-'));
  const file = join(dir, 'r.json');
  writeFileSync(file, JSON.stringify({ responses: ['first'] }));
  const logger = memoryLogger();
  const r1 = await pool.get('replay', () => openBackend(`replay:${file}`, { logger }));
  const r2 = await pool.get('replay', () => openBackend(`replay:${file}`, { logger }));
  assert.equal((await r1.chat(hi)).text, 'first');
  assert.equal((await r2.chat(hi)).text, 'first', 'a second run starts the replay from the top');
  assert.deepEqual(pool.keys(), []);

  let attempts = 0;
  const flaky = async () => {
    attempts++;
    if (attempts === 1) throw new Error('no such file');
    return fake('ok');
  };
  await assert.rejects(pool.get('x', flaky), /no such file/);
  assert.equal((await (await pool.get('x', flaky)).chat(hi)).text, 'ok');
  assert.equal(attempts, 2);
  await pool.disposeAll();
});

test('a pooled local model keeps its KV cache between runs', async () => {
  const pool = new BackendPool();
  const modelPath = await makeTinyGguf();
  const logger = memoryLogger();
  const open = async () => new LocalBackend({ modelPath, logger, gpu: false, threads: 1 });
  const messages = [
    { role: 'system' as const, content: 'You write testbenches.' },
    { role: 'user' as const, content: 'module m; endmodule '.repeat(40) },
  ];
  const run1 = await pool.get('tiny', open);
  const r1 = await run1.chat(messages, { maxTokens: 4, seed: 1 });
  await run1.dispose();
  const run2 = await pool.get('tiny', open);
  const r2 = await run2.chat(messages, { maxTokens: 4, seed: 1 });
  assert.equal(r1.usage.evaluatedPromptTokens, r1.usage.promptTokens);
  assert.ok(
    r2.usage.evaluatedPromptTokens <= 2,
    `the second run re-evaluated ${r2.usage.evaluatedPromptTokens} tokens`,
  );
  await pool.disposeAll();
});
