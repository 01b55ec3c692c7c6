/**
 * The model loop under what real models and servers do: a backend that fails half-way, a context too small for
 * the follow-up prompt, replies cut at the token limit, a budget that ends mid-generation, a cancel. Once a testbench
 * has been measured it is never lost. Replay files, a loopback endpoint and real Verilator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateToEnd, type GenerateRequest } from '../../src/engine';
import { EndpointBackend, openBackend, type ChatBackend, type ChatOptions, type ChatResult } from '../../src/llm';
import { ChorusError, silentLogger, type ChatMessage, type CoverageReport, type LoopEvent } from '../../src/protocol';
import { estimateTokens, fitPrompt } from '../../src/engine/llm/contextFit';
import { keepsNewer, seedAttempt, type Attempt } from '../../src/engine/llm/attempt';
import { buildRoundPrompt } from '../../src/engine/llm/buildPrompt';
import { DETAIL_LEVELS } from '../../src/engine/llm/promptDetail';
import { runSignal } from '../../src/engine/llm/runSignal';
import { repoRoot } from '../helpers/cli';
import { ManualClock } from '../helpers/clock';
import { fileReply } from '../helpers/replay';
import { loopback, memoryLogger, readBody } from '../llm/support';

const fifo = join(repoRoot, 'examples', 'fifo', 'fifo.sv');
const recorded = (
  JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8')) as { responses: string[] }
).responses;
const roundOneCode = /```systemverilog\n([\s\S]*?)```/.exec(recorded[0])![1];

type Entry =
  string | { text?: string; finishReason?: 'stop' | 'length' | 'interrupted'; error?: string; delayMs?: number };

async function run(
  backend: ChatBackend,
  extra: Partial<GenerateRequest> = {},
  signal = new AbortController().signal,
  onEvent?: (e: LoopEvent) => void,
  clock?: ManualClock,
) {
  const events: LoopEvent[] = [];
  const result = await generateToEnd(
    // The formal stage (Yosys on the holes a run ends with) is off: the loop is what these tests check, and the
    // formal tests check the stage; a run's seconds in Yosys would only lengthen each of them.
    { rtlFiles: [fifo], engine: 'llm', targets: { line: 100, branch: 100 }, rounds: 3, formal: false, ...extra },
    { logger: silentLogger, signal, backend, ...(clock ? { clock } : {}) },
    (e) => {
      events.push(e);
      onEvent?.(e);
    },
  );
  return { result, events };
}

/** A replay backend answering these entries (strings, or recorded endings) in order. */
function replay(entries: Entry[]) {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-replay-'));
  const file = join(dir, 'replay.json');
  writeFileSync(file, JSON.stringify({ responses: entries }));
  return openBackend(`replay:${file}`, { logger: silentLogger });
}

/**
 * A backend that, like a local model, knows its context and refuses a prompt that does not fit it; it records what
 * it was asked and with which options, and answers from a list.
 */
class ContextBackend implements ChatBackend {
  readonly label = 'context-double';
  readonly kind = 'replay' as const;
  readonly calls: { messages: ChatMessage[]; options?: ChatOptions | undefined }[] = [];
  constructor(
    private readonly replies: string[],
    private readonly contextTokens?: number,
  ) {}
  async contextSize(): Promise<number | undefined> {
    return this.contextTokens;
  }
  async countTokens(messages: ChatMessage[]): Promise<number> {
    return estimateTokens(messages);
  }
  async chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult> {
    this.calls.push({ messages, options });
    const tokens = estimateTokens(messages);
    if (this.contextTokens !== undefined && tokens + (options?.maxTokens ?? 0) > this.contextTokens) {
      throw new ChorusError(
        'bad_input',
        `The prompt has ${tokens} tokens but the model's context holds ${this.contextTokens}.`,
      );
    }
    const text = this.replies[this.calls.length - 1] ?? 'NO_CHANGES';
    options?.onToken?.(text);
    return {
      text,
      finishReason: 'stop',
      usage: {
        promptTokens: tokens,
        evaluatedPromptTokens: tokens,
        completionTokens: Math.ceil(text.length / 4),
        ms: 1,
      },
    };
  }
  async dispose(): Promise<void> {}
}

test('the endpoint answers 503 after a measured round: the run ends with error and its reason, the best testbench is the result', async () => {
  const sse = (text: string) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\ndata: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;
  let requests = 0;
  const server = await loopback(async (req, res) => {
    await readBody(req);
    requests++;
    if (requests === 1) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse(recorded[0]));
    } else {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'model is overloaded' } }));
    }
  });
  try {
    const backend = new EndpointBackend({
      baseUrl: server.url,
      model: 'm',
      logger: memoryLogger(),
      retry: { maxRetries: 1, baseMs: 1, maxWaitMs: 5 },
    });
    const { result, events } = await run(backend);
    assert.equal(result.stopReason, 'error');
    assert.match(result.stopDetail ?? '', /round 2.*HTTP 503: model is overloaded/);
    assert.equal(result.rounds.length, 1);
    assert.equal(result.rounds[0].status, 'ok');
    assert.equal(result.testbench, roundOneCode, 'the measured round-1 testbench is the result');
    assert.ok(result.coverage.line.covered > 0);
    assert.ok(
      events.some((e) => e.type === 'log' && e.level === 'error' && /best testbench so far is kept/.test(e.message)),
    );
    assert.equal(events.at(-1)?.type, 'final');
  } finally {
    await server.close();
  }
});

test('a backend failure before any testbench was measured is the run error, with the backend message', async () => {
  await assert.rejects(run(await replay([{ error: 'HTTP 503: model is loading' }])), /HTTP 503: model is loading/);
});

test('round 2 does not fit the context at full detail: its feedback is shortened, the run goes on', async () => {
  // Measure the round-2 prompt at full detail with room to spare, then give a context one token short of it.
  const roomy = new ContextBackend(recorded, 1 << 20);
  await run(roomy, { sampling: { maxTokens: 1000 } });
  const full = estimateTokens(roomy.calls[1].messages);
  const tight = new ContextBackend(recorded, full - 1 + 1000);
  const { result, events } = await run(tight, { sampling: { maxTokens: 1000 } });
  assert.equal(tight.calls.length, 2);
  assert.ok(estimateTokens(tight.calls[1].messages) <= full - 1, 'the prompt was fitted');
  assert.equal(tight.calls[1].options?.maxTokens, 1000, 'the reply budget is kept whole');
  assert.ok(events.some((e) => e.type === 'log' && /prompt was shortened to fit the context/.test(e.message)));
  assert.match(
    tight.calls[1].messages.map((m) => m.content).join('\n'),
    /\.\.\. and \d+ more/,
    'the uncovered list says how much was left out',
  );
  assert.equal(result.stopReason, 'targets met');
});

test('round 2 cannot fit even shortened: the run stops with reason context and keeps round 1', async () => {
  const probe = new ContextBackend(recorded, 1 << 20);
  await run(probe, { rounds: 1, sampling: { maxTokens: 1000 } });
  const opening = estimateTokens(probe.calls[0].messages);
  // The opening fits; a replayed testbench and its feedback never will.
  const backend = new ContextBackend(recorded, opening + 20 + 1000);
  const { result, events } = await run(backend, { sampling: { maxTokens: 1000 } });
  assert.equal(backend.calls.length, 1);
  assert.equal(result.stopReason, 'context');
  assert.match(result.stopDetail ?? '', /raise --context-size/);
  assert.equal(result.testbench, roundOneCode);
  assert.ok(
    events.some(
      (e) =>
        e.type === 'log' &&
        e.level === 'warn' &&
        /A follow-up prompt may take up to about \d+ tokens.*will be shortened/.test(e.message),
    ),
    'said up front',
  );
});

test('the design alone does not fit: a clear error before any model call, naming --context-size', async () => {
  const backend = new ContextBackend(recorded, 1200);
  await assert.rejects(
    run(backend),
    (err: unknown) =>
      err instanceof ChorusError && err.kind === 'bad_input' && /raise --context-size/.test(err.message),
  );
  assert.equal(backend.calls.length, 0);
});

test('hybrid with a context too small for the model: the search testbench is kept and reported', async () => {
  const backend = new ContextBackend(['NO_CHANGES'], 1500);
  const events: LoopEvent[] = [];
  // Arms the search cannot reach and, with the formal stage off, nothing proves: the model phase starts.
  const deepmatch = join(repoRoot, 'test', 'fixtures', 'formal', 'deepmatch.sv');
  const result = await generateToEnd(
    {
      rtlFiles: [deepmatch],
      engine: 'hybrid',
      targets: { line: 100, branch: 100 },
      rounds: 2,
      seed: 3,
      budgetSeconds: 15,
      formal: false,
    },
    { logger: silentLogger, signal: new AbortController().signal, backend },
    (e) => events.push(e),
  );
  assert.equal(result.engine, 'hybrid');
  assert.equal(backend.calls.length, 0, 'no prompt larger than the context was sent');
  assert.equal(result.stopReason, 'context');
  assert.match(result.testbench, /Generated by CHORUS \(model-free engine/);
  assert.ok(result.coverage.line.covered > 0);
});

test('a long seeded testbench (hybrid) is replayed shortened, with a shortened uncovered list, when the whole one does not fit', async () => {
  // The search's testbench stands as the best reply (seedAttempt); the prompt walks down the detail levels.
  const testbench = [
    'module tb_big;',
    ...Array.from({ length: 600 }, (_, i) => `  initial #${i} din = 8'd${i % 256};`),
    'endmodule',
  ].join('\n');
  const holes = Array.from({ length: 80 }, (_, i) => ({
    kind: 'line' as const,
    file: '/d/big.sv',
    line: i + 1,
    detail: `line ${i + 1} never ran`,
  }));
  const coverage = {
    line: { covered: 10, total: 90, pct: 11 },
    branch: { covered: 0, total: 0, pct: 100 },
    toggle: { covered: 0, total: 0, pct: 100 },
  };
  const report: CoverageReport = {
    status: 'ok',
    coverage,
    instances: {},
    holes,
    diagnostics: [],
    ms: { build: 1, sim: 1 },
  };
  const best = seedAttempt(testbench, 'tb_big.sv', report, { line: 100 });
  const opening: ChatMessage[] = [
    { role: 'system', content: 'system' },
    { role: 'user', content: '<context>\nmodule big; endmodule\n</context>' },
  ];
  const build = (level: number) => buildRoundPrompt(opening, best, [], DETAIL_LEVELS[level]);
  const sizes = DETAIL_LEVELS.map((_, i) => estimateTokens(build(i)));
  const last = DETAIL_LEVELS.length - 1;
  assert.ok(sizes[last] < sizes[last - 1] && sizes[last - 1] < sizes[0], 'each level is smaller');
  const budget = {
    contextTokens: sizes[last] + 1000,
    replyTokens: 1000,
    promptTokens: sizes[last],
    count: async (m: ChatMessage[]) => estimateTokens(m),
  };
  const fitted = await fitPrompt((d) => buildRoundPrompt(opening, best, [], d), budget);
  assert.ok('messages' in fitted);
  assert.equal(fitted.level, last);
  const text = fitted.messages.map((m) => m.content).join('\n');
  assert.match(fitted.messages[2].content, /\/\/ … 522 lines left out to fit the context …/);
  assert.match(text, /Uncovered points \(80\):\n(.*\n){1}.*\.\.\. and 79 more/);
  assert.match(fitted.messages.at(-1)!.content, /answer with the whole file, not a patch/);
  const none = await fitPrompt((d) => buildRoundPrompt(opening, best, [], d), {
    ...budget,
    promptTokens: sizes[last] - 1,
  });
  assert.deepEqual(none, { tokens: sizes[last] }, 'nothing fits: the smallest size is reported');
});

test('each outcome has its own status and feedback: cut at the limit, empty, no code, rejected, simulation error, ran', async () => {
  const cut = recorded[0].slice(0, recorded[0].indexOf('endmodule'));
  const rejected = fileReply(roundOneCode.replace('$finish;', '$system("rm -rf /tmp/x");\n    $finish;'));
  const simError = fileReply(roundOneCode.replace('$finish;', '$fatal(1, "stop");'));
  const { result, events } = await run(
    await replay([
      { text: cut, finishReason: 'length' },
      '',
      'Sorry, I cannot write that.',
      rejected,
      simError,
      recorded[0],
    ]),
    {
      rounds: 6,
      stallRounds: 10,
      // Each reply is its own round here; re-asking is tested below.
      parseRetries: 0,
    },
  );
  assert.deepEqual(
    result.rounds.map((r) => r.status),
    ['truncated', 'empty_reply', 'no_code', 'rejected', 'sim_error', 'ok'],
  );
  const feedback = (round: number) => {
    const e = events.find((x) => x.type === 'feedback' && x.round === round);
    assert.ok(e && e.type === 'feedback');
    return e.text;
  };
  assert.match(
    feedback(1),
    /- reason: truncated: the reply reached the token limit \(\d+ tokens\) before the code was complete; nothing was compiled/,
  );
  assert.match(feedback(1), /Instruction for next round:\nYour reply was cut off/);
  assert.match(feedback(2), /- reason: the reply was empty/);
  assert.match(feedback(3), /- reason: no SystemVerilog code block/);
  assert.match(feedback(4), /- status: rejected\n- stage: sandbox check/);
  assert.match(feedback(5), /- status: sim_failed\n- stage: simulate/);
  assert.ok(
    !events.some((e) => e.type === 'build' && e.round <= 3),
    'nothing was built for replies with nothing to build',
  );
  assert.equal(result.testbench, roundOneCode);
});

test('the Markov context replays the clean answer: filename line and code, no thinking text', async () => {
  const backend = new ContextBackend(recorded);
  await run(backend);
  const replayed = backend.calls[1].messages[2];
  assert.equal(replayed.role, 'assistant');
  assert.doesNotMatch(replayed.content, /<think>|simple fill and drain/);
  assert.match(replayed.content, /^filename: tb_fifo\.sv\n```systemverilog\nmodule tb_fifo;/);
});

test('--seed seeds sampling: one derived seed per round, the same for the same run seed, none without one', async () => {
  const seeds = async (seed?: number) => {
    const backend = new ContextBackend([recorded[0], 'Sorry.', 'Sorry.']);
    await run(backend, { seed, rounds: 2, stallRounds: 10, parseRetries: 0 });
    return backend.calls.map((c) => c.options?.seed);
  };
  const a = await seeds(7);
  assert.equal(a.length, 3);
  assert.ok(a.every((s) => Number.isInteger(s) && s! >= 0));
  assert.notEqual(a[1], a[2], 'rounds 2 and 3 (the same prompt) sample differently');
  assert.deepEqual(await seeds(7), a, 'the same run seed gives the same round seeds');
  assert.notDeepEqual(await seeds(8), a);
  assert.deepEqual(await seeds(undefined), [undefined, undefined, undefined]);
});

test('a reply with no code is asked again with the same prompt (bounded) and not fed back', async () => {
  const backend = new ContextBackend(['Sorry, I cannot write that.', recorded[0], recorded[1]]);
  const { result, events } = await run(backend, { seed: 4 });
  assert.equal(backend.calls.length, 3);
  assert.deepEqual(
    backend.calls[1].messages,
    backend.calls[0].messages,
    'the failed reply is not in the re-ask prompt',
  );
  assert.notEqual(backend.calls[1].options?.seed, backend.calls[0].options?.seed, 'the re-ask samples anew');
  assert.deepEqual(
    result.rounds.map((r) => r.status),
    ['ok', 'ok'],
  );
  assert.equal(result.stopReason, 'targets met');
  assert.ok(
    events.some(
      (e) =>
        e.type === 'log' &&
        /Round 1: no testbench: no SystemVerilog code block.*asked again with the same prompt \(1 of 1\)/.test(
          e.message,
        ),
    ),
  );
  // Bounded: two replies without code in a row are fed back as the round's outcome.
  const stubborn = new ContextBackend(['Sorry.', 'Still no code.', recorded[0]]);
  const second = await run(stubborn, { rounds: 1, stallRounds: 10 });
  assert.equal(second.result.rounds[0].status, 'no_code');
  assert.match(
    stubborn.calls[2].messages.map((m) => m.content).join('\n'),
    /Still no code\.[\s\S]*- reason: no SystemVerilog code block/,
  );
});

test('sampling controls reach the backend: temperature, max tokens, thinking off', async () => {
  const backend = new ContextBackend([recorded[0]]);
  await run(backend, { rounds: 1, sampling: { temperature: 0.2, maxTokens: 900, thinking: false } });
  const o = backend.calls[0].options;
  assert.deepEqual([o?.temperature, o?.maxTokens, o?.thinking], [0.2, 900, false]);
});

test('the wall-clock budget stops a generation in progress', async () => {
  const started = Date.now();
  const { result } = await run(await replay([{ text: recorded[0], delayMs: 60_000 }]), { budgetSeconds: 1 });
  assert.equal(result.stopReason, 'budget');
  assert.equal(result.rounds.length, 0);
  assert.ok(Date.now() - started < 45_000, 'did not wait for the 60 s reply');
});

test('the budget runs out while round 2 is being written: the run ends with budget and round 1 testbench', async () => {
  // On an injected clock: round 1 takes no time on it, and the 40 s budget runs out as round 2 starts, while its
  // reply (two minutes of real time) is being written; the test never waits for the budget.
  const clock = new ManualClock();
  const { result } = await run(
    await replay([recorded[0], { text: recorded[1], delayMs: 120_000 }]),
    { budgetSeconds: 40 },
    undefined,
    (e) => {
      if (e.type === 'roundStart' && e.round === 2) setImmediate(() => clock.advance(40_001));
    },
    clock,
  );
  assert.equal(result.stopReason, 'budget');
  assert.equal(result.rounds.length, 1);
  assert.equal(result.testbench, roundOneCode);
  assert.ok(result.coverage.line.covered > 0);
});

test('cancel during round 2: the run ends cancelled with round 1 testbench', async () => {
  const controller = new AbortController();
  const { result } = await run(
    await replay([recorded[0], { text: recorded[1], delayMs: 60_000 }]),
    {},
    controller.signal,
    (e) => {
      if (e.type === 'roundStart' && e.round === 2) controller.abort();
    },
  );
  assert.equal(result.stopReason, 'cancelled');
  assert.equal(result.testbench, roundOneCode);
});

test('the run signal aborts when the budget runs out and says so; a parent cancel is not the budget', async () => {
  const budget = runSignal(new AbortController().signal, 30);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(budget.signal.aborted, true);
  assert.equal(budget.budgetSpent(), true);
  budget.dispose();
  const parent = new AbortController();
  const cancel = runSignal(parent.signal, 60_000);
  parent.abort();
  assert.equal(cancel.signal.aborted, true);
  assert.equal(cancel.budgetSpent(), false);
  cancel.dispose();
});

test('the spec beside the design and the clock and reset are in the opening prompt', async () => {
  const backend = new ContextBackend([recorded[0]]);
  await run(backend, { rounds: 1 });
  const user = backend.calls[0].messages[1].content;
  assert.match(user, /\/\/ File: fifo\.md\n/, 'examples/fifo/fifo.md is found without --spec');
  assert.doesNotMatch(user, /No specification files were provided/);
  assert.match(user, /The clock input is 'clk'/);
  assert.match(user, /The reset input is 'rst_n', active-low \(0 resets\), (asynchronous|synchronous)/);
  assert.match(user, /\$finish/);
  assert.match(user, /Verilator/);
});

test('protocol: the newer state is kept on a tie, never a worse one, and a testbench beats none', () => {
  const coverage = (pct: number) => ({
    line: { covered: pct, total: 100, pct },
    branch: { covered: 0, total: 0, pct: 100 },
    toggle: { covered: 0, total: 0, pct: 100 },
  });
  const attempt = (pct: number | null, testbench: string | null = 'module tb; endmodule\n'): Attempt => ({
    reply: '',
    feedback: () => ({ role: 'user', content: '' }),
    testbench,
    filename: 'tb.sv',
    report:
      pct === null
        ? null
        : {
            status: 'ok',
            coverage: coverage(pct),
            instances: {},
            holes: [],
            diagnostics: [],
            ms: { build: 0, sim: 0 },
          },
  });
  const targets = { line: 100 };
  assert.equal(keepsNewer(attempt(50), attempt(50), targets), true, 'tie: the newer one');
  assert.equal(keepsNewer(attempt(40), attempt(50), targets), false);
  assert.equal(keepsNewer(attempt(60), attempt(50), targets), true);
  assert.equal(keepsNewer(attempt(null, null), attempt(null), targets), true, 'neither measured: the newer one');
  const failed: Attempt = {
    ...attempt(null),
    report: {
      status: 'compile_error',
      coverage: coverage(0),
      instances: {},
      holes: [],
      diagnostics: [],
      ms: { build: 0, sim: 0 },
    },
  };
  assert.equal(
    keepsNewer(attempt(null, null), failed, targets),
    false,
    'a reply with no code does not replace a testbench',
  );
});
