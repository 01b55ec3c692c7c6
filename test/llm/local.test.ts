/** The local GGUF backend on a real llama.cpp runtime, with a tiny random-weight model written at test time. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChorusError, type ChatMessage, type ModelStatus } from '../../src/protocol';
import { LocalBackend, openBackend } from '../../src/llm';
import { makeTinyGguf } from '../fixtures/llm/make-tiny-gguf';
import { roundSeed } from '../../src/engine/llm/seed';
import { memoryLogger } from './support';

let modelPath: string;
let backend: LocalBackend;
const statuses: ModelStatus[] = [];
const logger = memoryLogger();

const system = 'You are a testbench expert. Write a SystemVerilog testbench that maximizes coverage.';
// Long enough that the opening messages dominate the prompt, as the RTL context does in a real run.
const user = `<context>\n// File: counter.sv\n${'module counter(input clk, input rst, output reg [3:0] q); always @(posedge clk) q <= rst ? 0 : q + 1; endmodule\n'.repeat(12)}</context>`;
const opening: ChatMessage[] = [
  { role: 'system', content: system },
  { role: 'user', content: user },
];

before(async () => {
  modelPath = await makeTinyGguf();
  backend = new LocalBackend({ modelPath, logger, onStatus: (s) => statuses.push(s), gpu: false, threads: 1 });
});

after(async () => {
  await backend.dispose();
});

test('loads lazily, reports loading progress then ready on the CPU, and reads the chat template from the GGUF', async () => {
  assert.equal(statuses.length, 0, 'nothing happens before first use');
  const info = await backend.info();
  assert.equal(info.compute, 'cpu');
  assert.equal(info.chatFormat, 'ChatML');
  assert.equal(info.contextSize, 4096);
  const loading = statuses.filter((s) => s.state === 'loading');
  assert.ok(loading.length >= 1);
  assert.ok(loading.every((s) => typeof s.percent === 'number' && s.percent >= 0 && s.percent <= 100));
  assert.deepEqual(statuses.at(-1), { model: 'tiny-llama-chatml.gguf', state: 'ready', backend: 'cpu' });

  // Without a template in the file, node-llama-cpp falls back to another format: the template really is read.
  const bare = new LocalBackend({
    modelPath: await makeTinyGguf({ chatTemplate: false }),
    logger,
    gpu: false,
    threads: 1,
  });
  try {
    assert.notEqual((await bare.info()).chatFormat, 'ChatML');
  } finally {
    await bare.dispose();
  }
});

test('streams tokens through onToken, counts them, and stops at maxTokens', async () => {
  const pieces: string[] = [];
  statuses.length = 0;
  const r = await backend.chat(opening, { maxTokens: 12, seed: 1, temperature: 0, onToken: (t) => pieces.push(t) });
  assert.ok(pieces.length >= 1);
  assert.equal(pieces.join(''), r.text);
  assert.ok(r.usage.completionTokens >= 1 && r.usage.completionTokens <= 12);
  if (r.usage.completionTokens === 12) assert.equal(r.finishReason, 'length');
  assert.ok(r.usage.promptTokens > 300, `prompt tokens ${r.usage.promptTokens}`);
  assert.ok(statuses.some((s) => s.state === 'generating'));
  assert.equal(statuses.at(-1)?.state, 'ready');
});

test('the same seed gives the same reply (sampling options reach llama.cpp)', async () => {
  const a = await backend.chat(opening, { maxTokens: 16, seed: 42, temperature: 0.7, topP: 0.8 });
  const b = await backend.chat(opening, { maxTokens: 16, seed: 42, temperature: 0.7, topP: 0.8 });
  assert.equal(a.text, b.text);
});

test('per-round seeds: rounds with the same prompt sample differently, the same run seed repeats; thinking off still answers', async () => {
  const reply = async (seed: number) =>
    (await backend.chat(opening, { maxTokens: 16, temperature: 0.7, seed, thinking: false })).text;
  const round2 = await reply(roundSeed(7, 2));
  const round3 = await reply(roundSeed(7, 3));
  assert.notEqual(round2, round3, 'rounds 2 and 3 differ');
  assert.equal(await reply(roundSeed(7, 2)), round2, 'the same run seed gives the same round reply');
});

test('the backend reports its context and counts a prompt with the model template', async () => {
  assert.equal(await backend.contextSize(), 4096);
  const n = await backend.countTokens(opening);
  const r = await backend.chat(opening, { maxTokens: 1, seed: 1, temperature: 0 });
  assert.equal(n, r.usage.promptTokens);
});

test('abort mid-stream rejects with ChorusError(cancelled) at once, and the model stays usable', async () => {
  const controller = new AbortController();
  let afterAbort = 0;
  const pending = backend.chat(opening, {
    maxTokens: 2000,
    seed: 3,
    signal: controller.signal,
    onToken: () => {
      if (controller.signal.aborted) afterAbort++;
      else controller.abort();
    },
  });
  await assert.rejects(pending, (err: unknown) => err instanceof ChorusError && err.kind === 'cancelled');
  assert.equal(afterAbort, 0, 'nothing streams after the abort');
  const again = await backend.chat(opening, { maxTokens: 4, seed: 5 });
  assert.ok(again.usage.completionTokens >= 1);
});

test('a JSON schema constrains the reply to well-formed JSON even with random weights', async () => {
  const schema = {
    type: 'object',
    properties: { covered: { type: 'boolean' }, kind: { enum: ['line', 'toggle', 'branch'] } },
    required: ['covered', 'kind'],
  };
  for (const seed of [1, 2, 3]) {
    const r = await backend.chat(opening, { jsonSchema: schema, maxTokens: 200, seed });
    const parsed = JSON.parse(r.text) as { covered: unknown; kind: unknown };
    assert.equal(typeof parsed.covered, 'boolean');
    assert.ok(['line', 'toggle', 'branch'].includes(parsed.kind as string), r.text);
  }
});

test('KV reuse: a later round evaluates only what differs from the previous prompt', async () => {
  const fresh = new LocalBackend({ modelPath, logger, gpu: false, threads: 1 });
  const cold = new LocalBackend({ modelPath, logger, gpu: false, threads: 1 });
  try {
    const r1 = await fresh.chat(opening, { maxTokens: 8, seed: 11 });
    assert.equal(r1.usage.evaluatedPromptTokens, r1.usage.promptTokens, 'a fresh sequence evaluates the whole prompt');

    const round2: ChatMessage[] = [
      ...opening,
      { role: 'assistant', content: r1.text },
      { role: 'user', content: 'EDA result:\n- status: ok\n- line coverage: 50%' },
    ];
    const r2 = await fresh.chat(round2, { maxTokens: 8, seed: 12 });
    assert.ok(r2.usage.promptTokens > r1.usage.promptTokens);
    assert.ok(
      r2.usage.evaluatedPromptTokens < r2.usage.promptTokens / 4,
      `round 2 evaluated ${r2.usage.evaluatedPromptTokens} of ${r2.usage.promptTokens}`,
    );
    assert.ok(r2.usage.evaluatedPromptTokens >= 10, 'the new feedback itself was evaluated');

    // The same round-2 prompt on a cold sequence costs the whole prompt: the saving above is real.
    const r2cold = await cold.chat(round2, { maxTokens: 8, seed: 12 });
    assert.equal(r2cold.usage.evaluatedPromptTokens, r2cold.usage.promptTokens);
    assert.equal(r2cold.usage.promptTokens, r2.usage.promptTokens);

    // Round 3 with a different best reply still reuses the opening messages.
    const round3: ChatMessage[] = [
      ...opening,
      { role: 'assistant', content: 'module tb; endmodule' },
      { role: 'user', content: 'EDA result:\n- status: compile error' },
    ];
    const r3 = await fresh.chat(round3, { maxTokens: 8, seed: 13 });
    assert.ok(
      r3.usage.evaluatedPromptTokens < r3.usage.promptTokens / 4,
      `round 3 evaluated ${r3.usage.evaluatedPromptTokens} of ${r3.usage.promptTokens}`,
    );
  } finally {
    await fresh.dispose();
    await cold.dispose();
  }
});

test('a prompt longer than the context is a clear bad_input error', async () => {
  const small = new LocalBackend({ modelPath, logger, gpu: false, threads: 1, contextSize: 512 });
  try {
    await assert.rejects(
      small.chat(opening, { maxTokens: 4 }),
      (err: unknown) => err instanceof ChorusError && err.kind === 'bad_input' && /context holds 512/.test(err.message),
    );
  } finally {
    await small.dispose();
  }
});

test('openBackend opens a .gguf path lazily and a missing file fails with bad_input', async () => {
  const opened = await openBackend(modelPath, { logger, gpu: false, threads: 1 });
  try {
    assert.equal(opened.kind, 'local');
    assert.equal(opened.label, 'tiny-llama-chatml.gguf');
    const r = await opened.chat(opening, { maxTokens: 3, seed: 1 });
    assert.ok(r.usage.completionTokens >= 1);
  } finally {
    await opened.dispose();
  }
  await assert.rejects(
    openBackend('/nonexistent/model.gguf', { logger }),
    (err: unknown) => err instanceof ChorusError && err.kind === 'bad_input' && /not found/.test(err.message),
  );
  await assert.rejects(
    openBackend(undefined, { logger }),
    (err: unknown) => err instanceof ChorusError && err.kind === 'bad_input' && /No model configured/.test(err.message),
  );
});

test('a disposed backend refuses new calls with a clear error', async () => {
  const b = new LocalBackend({ modelPath, logger, gpu: false, threads: 1 });
  await b.chat(opening, { maxTokens: 2, seed: 1 });
  await b.dispose();
  await assert.rejects(b.chat(opening, { maxTokens: 2 }), /released/);
});

test('a broken file: a corrupt header is refused before llama.cpp parses it; a load failure gives an error status', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-bad-'));
  // A header whose counts claim more than the file holds made node-llama-cpp's parser loop and grow without bound.
  const truncated = join(dir, 'truncated.gguf');
  writeFileSync(truncated, Buffer.from('GGUF\u0003\u0000\u0000\u0000 truncated data, and some more of it'));
  const seen: ModelStatus[] = [];
  const t = new LocalBackend({ modelPath: truncated, logger, gpu: false, threads: 1, onStatus: (s) => seen.push(s) });
  await assert.rejects(
    t.chat(opening, { maxTokens: 2 }),
    (err: unknown) =>
      err instanceof ChorusError &&
      err.kind === 'bad_input' &&
      /truncated\.gguf is not a readable GGUF model .*truncated or corrupt/.test(err.message),
  );
  assert.equal(seen.at(-1)?.state, 'error');
  await t.dispose();

  // A well-formed but empty GGUF (no architecture, no tensors) passes the header check and fails in llama.cpp.
  const empty = join(dir, 'empty.gguf');
  const header = Buffer.alloc(24);
  header.write('GGUF', 0, 'latin1');
  header.writeUInt32LE(3, 4);
  writeFileSync(empty, header);
  seen.length = 0;
  const e = new LocalBackend({ modelPath: empty, logger, gpu: false, threads: 1, onStatus: (s) => seen.push(s) });
  await assert.rejects(
    e.chat(opening, { maxTokens: 2 }),
    (err: unknown) =>
      err instanceof ChorusError &&
      err.kind === 'failed' &&
      /Cannot load the model .*empty\.gguf.*chorus model info/.test(err.message),
  );
  assert.equal(seen.at(-1)?.state, 'error');
  assert.match(seen.at(-1)?.message ?? '', /empty\.gguf/);
  await e.dispose();
});

test('a cancelled load rejects with cancelled and the next call loads the model', async () => {
  const b = new LocalBackend({ modelPath, logger, gpu: false, threads: 1 });
  try {
    const controller = new AbortController();
    const loading = b.load(controller.signal);
    controller.abort();
    await assert.rejects(loading, (err: unknown) => err instanceof ChorusError && err.kind === 'cancelled');
    const r = await b.chat(opening, { maxTokens: 2, seed: 1 });
    assert.ok(r.usage.completionTokens >= 1);
  } finally {
    await b.dispose();
  }
});
