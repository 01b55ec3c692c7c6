import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseReply, stripThinking } from '../../src/engine/llm/reply';
import { applyPatch, parsePatch } from '../../src/engine/llm/patch';
import { buildFollowupMessage, buildOpeningMessages, SYSTEM_PROMPT } from '../../src/engine/llm/prompt';
import { DEFAULT_TEMPLATES } from '../../src/engine/llm/templates';

const TB =
  'module tb_fifo;\n  logic clk;\n  fifo uut (.clk(clk));\n  initial begin\n    clk = 0;\n    $finish;\n  end\nendmodule';

test('a whole-testbench reply: filename line and one systemverilog block', () => {
  const r = parseReply(`filename: tb_fifo.sv\n\`\`\`systemverilog\n${TB}\n\`\`\`\n`);
  assert.equal(r.type, 'file');
  if (r.type !== 'file') return;
  assert.equal(r.filename, 'tb_fifo.sv');
  assert.equal(r.code, `${TB}\n`);
  assert.deepEqual(r.notes, []);
});

test('tolerates verilog/sv fences, prose around, no filename, and <think> first', () => {
  for (const lang of ['verilog', 'sv', '']) {
    const r = parseReply(
      `<think>I should drive push while full.</think>\nHere you go:\n\`\`\`${lang}\n${TB}\n\`\`\`\nThis reaches all states.`,
    );
    assert.equal(r.type, 'file', `fence '${lang}'`);
    if (r.type === 'file') {
      assert.equal(r.filename, null);
      assert.match(r.code, /^module tb_fifo;/);
      assert.ok(r.notes.includes('no filename line'));
    }
  }
});

test('a reply still thinking at the end has no testbench', () => {
  const r = parseReply('<think>Let me consider the FIFO. First the module');
  assert.equal(r.type, 'none');
  if (r.type === 'none') assert.match(r.reason, /still thinking/);
  assert.deepEqual(stripThinking('a</think>b'), { text: 'b', unterminated: false });
});

test('a reply with no code is reported as such', () => {
  const r = parseReply('I cannot help with that.');
  assert.equal(r.type, 'none');
  if (r.type === 'none') assert.match(r.reason, /no SystemVerilog code block/);
});

test('NO_CHANGES and patch replies are recognised', () => {
  assert.equal(parseReply('NO_CHANGES\n').type, 'no_changes');
  const r = parseReply('@@\n   initial begin\n-    clk = 0;\n+    clk = 1;\n     $finish;\n');
  assert.equal(r.type, 'patch');
  if (r.type === 'patch') assert.equal(r.hunks.length, 1);
});

test('a patch applies with exact context', () => {
  const p = parsePatch(
    '@@\n   initial begin\n-    clk = 0;\n+    clk = 0;\n+    repeat (4) #5 clk = ~clk;\n     $finish;\n',
  );
  assert.ok(p.ok);
  if (!p.ok) return;
  const out = applyPatch(TB, p.hunks);
  assert.deepEqual(out.failures, []);
  assert.equal(out.applied, 1);
  assert.match(out.content, /clk = 0;\n {4}repeat \(4\) #5 clk = ~clk;\n {4}\$finish;/);
});

test('a hunk whose context does not match says why and changes nothing', () => {
  const p = parsePatch('@@\n   initial begin\n-    rst = 1;\n+    rst = 0;\n     $finish;\n');
  assert.ok(p.ok);
  if (!p.ok) return;
  const out = applyPatch(TB, p.hunks);
  assert.equal(out.applied, 0);
  assert.equal(out.failures.length, 1);
  assert.match(out.failures[0].reason, /context line not in the testbench: "rst = 1;"/);
  assert.equal(out.content, TB);
});

test('an ambiguous hunk is refused', () => {
  const text = 'a\nx\nb\na\nx\nb';
  const p = parsePatch('@@\n a\n-x\n+y\n b\n');
  assert.ok(p.ok);
  if (!p.ok) return;
  const out = applyPatch(text, p.hunks);
  assert.equal(out.applied, 0);
  assert.match(out.failures[0].reason, /matches 2 places/);
});

test('a malformed patch names the offending line', () => {
  const p = parsePatch('@@\n context\n*bad line\n');
  assert.equal(p.ok, false);
  if (!p.ok) assert.match(p.error, /line 3: expected/);
  const q = parsePatch('@@\n only context\n');
  assert.equal(q.ok, false);
});

test('the opening messages keep the trained structure', () => {
  const msgs = buildOpeningMessages({
    rtl: [{ name: 'fifo.sv', content: 'module fifo; endmodule\n' }],
    specs: [],
    top: 'fifo',
    instance: 'uut',
  });
  assert.equal(msgs.length, 2);
  assert.equal(msgs[0].role, 'system');
  assert.equal(msgs[0].content, SYSTEM_PROMPT);
  assert.match(msgs[0].content, /filename: tb_<name>\.sv/);
  assert.match(msgs[0].content, /```systemverilog/);
  const u = msgs[1].content;
  assert.match(
    u,
    /^<context>\n\/\/ File: fifo\.sv\nmodule fifo; endmodule\n\n\/\/ No specification files were provided\.\n<\/context>\n<instructions>\n/,
  );
  assert.match(u, /top module is 'fifo' and it must be instantiated as 'uut'/);
  assert.match(u, /<\/instructions>\nWrite the SystemVerilog testbench/);
});

test('a follow-up is ONE user message: the sections in order, the current testbench only for patches, the format restated last', () => {
  const msg = buildFollowupMessage({
    parse: { status: 'success', type: 'patch' },
    apply: { status: 'success', applied: '1/1 hunks' },
    testbench: TB,
    eda: { status: 'success', stage: 'coverage', coverage: 'line 90% (9/10)' },
    instruction: 'Improve coverage toward 100%.',
  });
  assert.equal(msg.role, 'user');
  const sections = msg.content.split('\n\n');
  assert.equal(sections[0], 'Response parse result:\n- status: success\n- type: patch');
  assert.equal(sections[1], 'Patch apply result:\n- status: success\n- applied: 1/1 hunks');
  assert.equal(sections[2], `Current testbench contents:\n${TB.replace(/\s+$/, '')}`);
  assert.equal(sections[3], 'EDA result:\n- status: success\n- stage: coverage\n- coverage: line 90% (9/10)');
  assert.ok(
    msg.content.includes('\n\nInstruction for next round:\nImprove coverage toward 100%.\nOutput requirements:\n'),
  );
  assert.ok(msg.content.endsWith(DEFAULT_TEMPLATES.outputFormat), 'ends with the output format restated');
  const fileMsg = buildFollowupMessage({ parse: { status: 'success', type: 'file' }, testbench: TB, instruction: 'x' });
  assert.doesNotMatch(fileMsg.content, /Current testbench contents:/, 'a whole-file reply is not echoed back');
  assert.match(
    fileMsg.content,
    /^Response parse result:\n- status: success\n- type: file\n\nInstruction for next round:\nx\nOutput requirements:/,
  );
});
