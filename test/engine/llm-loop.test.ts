/** The closure loop with a replay model and real Verilator. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateToEnd, type GenerateRequest } from '../../src/engine';
import { DEFAULT_TEMPLATES } from '../../src/engine/llm/templates';
import { openBackend, type ChatBackend } from '../../src/llm';
import { silentLogger, type ChatMessage, type LoopEvent } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { fileReply, replayModel } from '../helpers/replay';

const fifo = join(repoRoot, 'examples', 'fifo', 'fifo.sv');
const recorded = JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8')) as {
  responses: string[];
};

// The formal stage is off in these runs (`formal: false`): the loop is under test, and Yosys on the holes a run
// ends with only adds seconds; test/engine/formal-closure.test.ts and test/formal check it.
async function runWith(responses: string[], extra: Partial<GenerateRequest> = {}) {
  const backend = await openBackend(replayModel(responses), { logger: silentLogger });
  const events: LoopEvent[] = [];
  const result = await generateToEnd(
    { rtlFiles: [fifo], engine: 'llm', formal: false, targets: { line: 100, branch: 100 }, rounds: 3, ...extra },
    { logger: silentLogger, signal: new AbortController().signal, backend },
    (e) => events.push(e),
  );
  return { result, events };
}

test('a whole testbench, then a patch that closes line and branch coverage', async () => {
  const { result, events } = await runWith(recorded.responses);
  assert.equal(result.rounds.length, 2, 'stops once the targets are met');
  const [r1, r2] = result.rounds;
  assert.equal(r1.status, 'ok');
  assert.ok(r1.coverage.line.pct < 100, 'round 1 leaves holes');
  assert.match(r1.parse ?? '', /type=file/);
  assert.match(r2.parse ?? '', /type=patch/);
  assert.match(r2.parse ?? '', /apply status=success/);
  assert.equal(r2.coverage.line.pct, 100);
  assert.equal(r2.coverage.branch.pct, 100);
  assert.equal(result.pass, true);
  assert.equal(result.stopReason, 'targets met');
  assert.ok(r1.reward! > 1 && r1.reward! < 2 && r2.reward! > r1.reward!, 'R = 1 + coverage');
  assert.match(result.testbench, /overrun/, 'the final testbench is the patched one');
  // Streamed tokens, and the feedback of round 1 lists holes with the trained headers.
  assert.ok(events.filter((e) => e.type === 'tokens').length > 1);
  const fb = events.find((e) => e.type === 'feedback' && e.round === 1);
  assert.ok(fb && fb.type === 'feedback');
  assert.match(fb.text, /^Response parse result:\n- status: success\n- type: file/m);
  assert.match(fb.text, /EDA result:\n- status: success\n- stage: coverage\n- coverage: line/);
  assert.match(fb.text, /- uncovered:/);
  assert.match(fb.text, /Instruction for next round:\nImprove coverage toward 100%/);
  const types = events.map((e) => e.type);
  assert.equal(types[0], 'start');
  assert.equal(types[types.length - 1], 'final');
});

test('protocol: 1 + N generations, and each follow-up round is ONE user message ending with the format restated', async () => {
  const replay = await openBackend(replayModel([recorded.responses[0], recorded.responses[0], recorded.responses[0]]), {
    logger: silentLogger,
  });
  const calls: ChatMessage[][] = [];
  const backend: ChatBackend = {
    label: replay.label,
    kind: replay.kind,
    chat: (messages, options) => (calls.push(messages), replay.chat(messages, options)),
    dispose: () => replay.dispose(),
  };
  const { rounds, stopReason } = await generateToEnd(
    { rtlFiles: [fifo], engine: 'llm', formal: false, targets: { line: 100, branch: 100 }, rounds: 2, stallRounds: 10 },
    { logger: silentLogger, signal: new AbortController().signal, backend },
  );
  assert.equal(stopReason, 'rounds');
  assert.equal(rounds.length, 3, 'rounds: 2 is a first generation and two refinement rounds');
  assert.equal(calls.length, 3);
  assert.deepEqual(
    calls[0].map((m) => m.role),
    ['system', 'user'],
  );
  for (const prompt of calls.slice(1)) {
    // Markov context: system, user, the best reply (clean filename line + code), one combined feedback message.
    assert.deepEqual(
      prompt.map((m) => m.role),
      ['system', 'user', 'assistant', 'user'],
    );
    assert.match(prompt[2].content, /^filename: tb_fifo\.sv\n```systemverilog\n[\s\S]*\n```$/);
    const followup = prompt[3].content;
    const at = [
      'Response parse result:\n',
      '\n\nEDA result:\n',
      '\n\nInstruction for next round:\nImprove coverage toward 100%',
    ].map((h) => followup.indexOf(h));
    assert.equal(at[0], 0, 'the parse result opens the message');
    assert.ok(at[1] > at[0] && at[2] > at[1], `the sections in order: ${at.join(', ')}`);
    assert.ok(followup.endsWith(`\n${DEFAULT_TEMPLATES.outputFormat}`), 'it ends with the output format restated');
  }
});

test('a reply with no code, a patch that does not match, and the stall rule', async () => {
  const tb = readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8');
  const first = (JSON.parse(tb) as { responses: string[] }).responses[0];
  const { result, events } = await runWith(
    [first, 'Sorry, I cannot write that.', '@@\n   nothing like this\n-  rst = 1;\n+  rst = 0;\n   end\n'],
    // Each reply is its own round here (no re-ask of the reply with no code).
    { rounds: 5, stallRounds: 2, parseRetries: 0 },
  );
  assert.equal(result.rounds.length, 3);
  assert.equal(result.stopReason, 'stalled');
  assert.match(result.rounds[1].parse ?? '', /status=failed/);
  const fb2 = events.find((e) => e.type === 'feedback' && e.round === 2);
  assert.ok(fb2 && fb2.type === 'feedback');
  assert.match(fb2.text, /- reason: no SystemVerilog code block/);
  assert.match(result.rounds[2].parse ?? '', /apply status=failed/);
  const fb3 = events.find((e) => e.type === 'feedback' && e.round === 3);
  assert.ok(fb3 && fb3.type === 'feedback');
  assert.match(
    fb3.text,
    /Patch apply result:\n- status: failed\n- applied: 0\/1 hunks\n- failed: hunk 1: context line not in the testbench/,
  );
  assert.equal(result.rounds[0].status, 'ok', 'the best attempt (round 1) is kept');
  assert.ok(result.coverage.line.covered > 0);
});

test('a testbench that does not compile, then its fix; and a reply wrapped in <think>', async () => {
  const good = (
    JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8')) as {
      responses: string[];
    }
  ).responses[0];
  const broken = fileReply(
    "module tb_fifo;\n  logic clk = 0;\n  fifo uut (.clk(clk), .rst_n(1'b1), .push(1'b0), .pop(1'b0), .din(8'h0));\n  initial begin\n    undeclared_signal = 1;\n    $finish;\n  end\nendmodule",
  );
  const { result, events } = await runWith([broken, `<think>The signal was not declared.</think>\n${good}`], {
    rounds: 1,
  });
  assert.equal(result.rounds[0].status, 'compile_error');
  const build1 = events.find((e) => e.type === 'build' && e.round === 1);
  assert.ok(build1 && build1.type === 'build');
  const d = build1.diagnostics.find((x) => /undeclared_signal/.test(x.message));
  assert.ok(d, 'the compile error names the undeclared signal');
  assert.equal(d.line, 5, 'and points at the testbench line');
  const fb1 = events.find((e) => e.type === 'feedback' && e.round === 1);
  assert.ok(fb1 && fb1.type === 'feedback');
  assert.match(fb1.text, /- status: compile_failed/);
  assert.match(fb1.text, /Instruction for next round:\nFix the compile failure/);
  assert.equal(result.rounds[1].status, 'ok');
  assert.equal(result.rounds[0].reward, 0);
});

test('a testbench that does not instantiate the DUT is told so', async () => {
  const { result, events } = await runWith([fileReply('module tb_other;\n  initial $finish;\nendmodule')], {
    rounds: 0,
  });
  assert.equal(result.rounds[0].status, 'compile_error');
  const fb = events.find((e) => e.type === 'feedback');
  assert.ok(fb && fb.type === 'feedback');
  assert.match(fb.text, /does not instantiate the DUT module 'fifo'/);
});
