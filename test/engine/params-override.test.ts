// Top parameter overrides (-G): the analysis reads the top with them, the harness and the emitted testbench
// instantiate the DUT with them, the model is told them, and a model's testbench is patched to carry them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { analyzeDesign } from '../../src/engine/designAnalysis';
import { selectDut } from '../../src/engine/plan';
import { instanceLines, planHarness } from '../../src/engine/search/harness';
import { withDutParameters } from '../../src/engine/llm/dutParameters';
import { parseAndPatch } from '../../src/engine/llm/parseAndPatch';
import { buildOpeningMessages } from '../../src/engine/llm/prompt';
import { moduleByName } from '../../src/hdl';
import { ChorusError } from '../../src/protocol';

const DUT = join(__dirname, '..', 'fixtures', 'params', 'param_dut.sv');

test('the analysis reads the top with the overrides: widths follow W', async () => {
  const plain = await analyzeDesign([DUT]);
  const over = await analyzeDesign([DUT], { design: { parameters: { W: '8', EXTRA: '1' } } });
  const width = (a: typeof plain, port: string) =>
    moduleByName(a, 'param_dut')!.ports.find((p) => p.name === port)!.width;
  assert.equal(width(plain, 'a'), 4);
  assert.equal(width(over, 'a'), 8);
  assert.equal(width(over, 'q'), 8);
  assert.equal(moduleByName(over, 'param_dut')!.params.find((p) => p.name === 'W')!.value, 8);
  // The defaults' analysis is not changed by the overridden one (results are cached and shared).
  assert.equal(width(await analyzeDesign([DUT]), 'a'), 4);
});

test('an override of a parameter the top does not have is an error naming its parameters', async () => {
  await assert.rejects(
    selectDut({ files: [DUT], design: { parameters: { DEPTH: '3' } } }),
    (err: unknown) =>
      err instanceof ChorusError &&
      /-G DEPTH: param_dut has no parameter 'DEPTH' \(its parameters: W, EXTRA\)/.test(err.message),
  );
});

test('the harness instantiates the DUT with the overrides', async () => {
  const { top } = await selectDut({ files: [DUT], design: { parameters: { W: '8', EXTRA: '1' } } });
  const plan = planHarness(top, 'uut', { W: '8', EXTRA: '1' });
  assert.equal(plan.inputs.find((i) => i.name === 'a')!.width, 8);
  assert.equal(instanceLines(plan)[0], '  param_dut #(.W(8), .EXTRA(1)) uut (');
  assert.equal(instanceLines(planHarness(top, 'uut'))[0], '  param_dut uut (');
});

test('the opening prompt gives the effective parameters', () => {
  const [, user] = buildOpeningMessages({
    rtl: [],
    specs: [],
    top: 'param_dut',
    instance: 'uut',
    parameters: { W: '8', EXTRA: '1' },
  });
  assert.match(user.content, /instantiate 'param_dut' with #\(\.W\(8\), \.EXTRA\(1\)\)/);
  const [, plain] = buildOpeningMessages({ rtl: [], specs: [], top: 'param_dut', instance: 'uut' });
  assert.doesNotMatch(plain.content, /#\(/);
});

test("a model's DUT instantiation gets the overrides; its other named parameters stay", () => {
  const tb = [
    'module tb;',
    '  // param_dut u0 (.a(a)); a comment is not an instance',
    '  initial $display("param_dut x (");',
    '  param_dut uut (.clk(clk), .a(a));',
    '  param_dut #(.W(4), .OTHER(2)) u2 (.clk(clk));',
    '  param_dut #(3, 1) u3 (.clk(clk));',
    '  other_mod #(.W(4)) u4 (.x(x));',
    'endmodule',
  ].join('\n');
  const out = withDutParameters(tb, 'param_dut', { W: '8', EXTRA: '1' });
  assert.equal(out.instances, 3);
  const lines = out.testbench.split('\n');
  assert.equal(lines[1], '  // param_dut u0 (.a(a)); a comment is not an instance');
  assert.equal(lines[2], '  initial $display("param_dut x (");');
  assert.equal(lines[3], '  param_dut #(.W(8), .EXTRA(1)) uut (.clk(clk), .a(a));');
  assert.equal(lines[4], '  param_dut #(.OTHER(2), .W(8), .EXTRA(1)) u2 (.clk(clk));');
  assert.equal(lines[5], '  param_dut #(.W(8), .EXTRA(1)) u3 (.clk(clk));');
  assert.equal(lines[6], '  other_mod #(.W(4)) u4 (.x(x));');
  assert.equal(withDutParameters(tb, 'param_dut', {}).testbench, tb);
});

test('a whole-file reply is patched to carry the overrides before it is measured', () => {
  const reply =
    'filename: tb_param_dut.sv\n```systemverilog\nmodule tb_param_dut;\n  param_dut #(.W(2)) uut (.clk(clk));\nendmodule\n```';
  const c = parseAndPatch(reply, null, 'param_dut', undefined, { W: '8' });
  assert.match(c.testbench ?? '', /param_dut #\(\.W\(8\)\) uut \(/);
  assert.match(parseAndPatch(reply, null, 'param_dut').testbench ?? '', /param_dut #\(\.W\(2\)\) uut \(/);
});
