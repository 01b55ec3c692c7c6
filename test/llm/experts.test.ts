/**
 * Experts on one base model, on a real llama.cpp runtime: LoRA adapters written for the tiny test model
 * load over one shared base, and steer its replies differently; an adapter that does not fit the base is reported
 * by name while the others open. And a round's candidates on one local model: on one sequence they share the
 * prompt (evaluated once), on several they generate side by side.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { openExperts, parseExpert, LocalBackend, type ChatBackend } from '../../src/llm';
import { getLlamaFor } from '../../src/llm/local/llamaInstance';
import { loadNodeLlamaCpp } from '../../src/llm/local/nodeLlamaCpp';
import { modelUsers } from '../../src/llm/local/sharedModel';
import type { ChatMessage } from '../../src/protocol';
import { makeTinyGguf } from '../fixtures/llm/make-tiny-gguf';
import { makeTinyLora } from '../fixtures/llm/make-tiny-lora';
import { memoryLogger } from './support';

const logger = memoryLogger();
const messages: ChatMessage[] = [
  { role: 'system', content: 'You write SystemVerilog testbenches.' },
  {
    role: 'user',
    content: `Close coverage on this design:\n${'module m(input a, output b); assign b = a; endmodule\n'.repeat(8)}`,
  },
];
const greedy = { maxTokens: 24, temperature: 0, seed: 1 };
const toDispose: ChatBackend[] = [];

after(async () => {
  await Promise.all(toDispose.map((b) => b.dispose()));
});

test('expert URIs: replay, lora (with a scale), endpoint model, URL#model, local model; bad ones say what to write', () => {
  assert.deepEqual(parseExpert('replay:a.json'), { kind: 'replay', uri: 'replay:a.json' });
  assert.deepEqual(parseExpert('lora:ad/x.gguf'), {
    kind: 'lora',
    uri: 'lora:ad/x.gguf',
    adapter: 'ad/x.gguf',
    scale: 1,
  });
  assert.deepEqual(parseExpert('lora:ad/x.gguf@0.5'), {
    kind: 'lora',
    uri: 'lora:ad/x.gguf@0.5',
    adapter: 'ad/x.gguf',
    scale: 0.5,
  });
  assert.deepEqual(parseExpert('endpoint:qwen3'), { kind: 'endpoint', uri: 'endpoint:qwen3', model: 'qwen3' });
  assert.deepEqual(parseExpert('http://h:8000/v1#m'), {
    kind: 'endpoint',
    uri: 'http://h:8000/v1#m',
    baseUrl: 'http://h:8000/v1',
    model: 'm',
  });
  assert.deepEqual(parseExpert('models/a.gguf'), { kind: 'model', uri: 'models/a.gguf', model: 'models/a.gguf' });
  assert.throws(() => parseExpert('http://h:8000/v1'), /name the served model after #/);
  assert.throws(() => parseExpert('endpoint:'), /needs a model name/);
});

test('two LoRA adapters over one base: the base is loaded once, and each adapter steers the reply its own way', async () => {
  const base = await makeTinyGguf();
  const [a, b] = [await makeTinyLora({ seed: 1 }), await makeTinyLora({ seed: 2 })];
  const mismatched = await makeTinyLora({ seed: 3, architecture: 'qwen2' });
  const opened = await openExperts([`lora:${a}`, `lora:${b}`, `lora:${mismatched}`], {
    logger,
    baseModel: base,
    gpu: false,
    threads: 1,
  });
  toDispose.push(...opened.experts);
  assert.deepEqual(
    opened.experts.map((e) => e.label),
    ['lora:tiny-lora-llama-1.gguf', 'lora:tiny-lora-llama-2.gguf'],
  );
  // The adapter for another architecture is reported by name with llama.cpp's reason; the others opened.
  assert.equal(opened.failures.length, 1);
  assert.equal(opened.failures[0].expert, `lora:${mismatched}`);
  assert.match(opened.failures[0].message, /Cannot load the model/);

  const llama = await getLlamaFor(await loadNodeLlamaCpp(), false, logger);
  assert.equal(modelUsers(llama, base), 2, 'both adapters use one loaded base model');

  const plain = new LocalBackend({ modelPath: base, logger, gpu: false, threads: 1 });
  toDispose.push(plain);
  const [replyA, replyB, replyBase] = [
    (await opened.experts[0].chat(messages, greedy)).text,
    (await opened.experts[1].chat(messages, greedy)).text,
    (await plain.chat(messages, greedy)).text,
  ];
  assert.equal(modelUsers(llama, base), 3, 'a plain backend on the same file shares the base too');
  assert.notEqual(replyA, replyB, 'the two adapters answer differently');
  assert.notEqual(replyA, replyBase, 'adapter 1 changes the base model’s reply');
  assert.notEqual(replyB, replyBase, 'adapter 2 changes the base model’s reply');
  assert.equal(
    (await opened.experts[0].chat(messages, greedy)).text,
    replyA,
    'an adapter answers the same way each time',
  );

  // The base is released with the last backend that uses it.
  await opened.experts[0].dispose();
  await opened.experts[1].dispose();
  assert.equal(modelUsers(llama, base), 1);
  await plain.dispose();
  assert.equal(modelUsers(llama, base), 0);
});

test('candidates on one local model: one CPU sequence evaluates their shared prompt once; two sequences answer side by side', async () => {
  const base = await makeTinyGguf();
  const one = new LocalBackend({ modelPath: base, logger, gpu: false, threads: 1 });
  const two = new LocalBackend({ modelPath: base, logger, gpu: false, threads: 1, cpuSequences: 2 });
  toDispose.push(one, two);
  assert.equal((await one.info()).sequences, 1);
  assert.equal((await two.info()).sequences, 2);

  // Three candidates of a round on one sequence: the first evaluates the prompt, the others reuse it.
  const turns = await Promise.all(
    [1, 2, 3].map((seed) => one.chat(messages, { maxTokens: 8, temperature: 0.9, seed })),
  );
  const prompt = turns[0].usage.promptTokens;
  assert.ok(
    turns[0].usage.evaluatedPromptTokens >= prompt - 1,
    `first: ${turns[0].usage.evaluatedPromptTokens} of ${prompt}`,
  );
  for (const t of turns.slice(1))
    assert.ok(
      t.usage.evaluatedPromptTokens <= 2,
      `later candidates evaluate ${t.usage.evaluatedPromptTokens} prompt tokens`,
    );
  assert.ok(new Set(turns.map((t) => t.text)).size >= 2, 'different seeds give different candidates');

  // Two sequences: the two calls generate side by side (their tokens interleave), each evaluating the prompt.
  const order: number[] = [];
  const side = await Promise.all(
    [0, 1].map((call) =>
      two.chat(messages, { maxTokens: 8, temperature: 0.9, seed: call + 1, onToken: () => order.push(call) }),
    ),
  );
  assert.ok(
    order.indexOf(1) < order.lastIndexOf(0),
    `tokens in order ${order.join('')}: the second call began before the first ended`,
  );
  for (const s of side) assert.ok(s.usage.evaluatedPromptTokens >= prompt - 1);
});
