/**
 * The vector harness and the emitted testbench for processor-core and protocol-IP port shapes: unpacked array
 * ports (one column per element) and several clock domains (each clock its own process, never data).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { analyzeFiles, analyzeSources, echoInputs } from '../../src/hdl';
import { emitTestbench } from '../../src/engine/search/emit';
import { extraClockLines, harnessSource, planHarness } from '../../src/engine/search/harness';
import { ChorusError, type ModuleInfo } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';

const fixture = (n: string) => join(repoRoot, 'test', 'fixtures', 'engine', 'intake', n);

async function topOf(file: string): Promise<ModuleInfo> {
  const a = await analyzeFiles([file]);
  const m = a.modules.find((x) => x.name === a.top);
  assert.ok(m, `a top in ${file}`);
  return m;
}

test('array ports: analysis carries the dimensions, the plan has one column per element', async () => {
  const alu = await topOf(fixture('alu_array.sv'));
  const operand = alu.ports.find((p) => p.name === 'operand_q');
  const res = alu.ports.find((p) => p.name === 'res');
  assert.equal(operand?.width, 32);
  assert.deepEqual(operand?.dimensions, [{ left: 0, right: 1 }], '`[2]` is 0..1');
  assert.deepEqual(res?.dimensions, [{ left: 0, right: 3 }]);
  const plan = planHarness(alu, 'uut');
  assert.deepEqual(
    plan.inputs.map((i) => [i.name, i.width]),
    [
      ['rst_n', 1],
      ['op', 2],
      ['operand_q[0]', 32],
      ['operand_q[1]', 32],
    ],
  );
  const h = harnessSource(plan);
  assert.match(h, /^ {2}wire \[31:0\] operand_q \[0:1\];$/m);
  assert.match(h, /^ {2}assign operand_q\[1\] = operand_q_1;$/m);
  assert.match(h, /^ {2}wire \[7:0\] res \[0:3\];$/m);
  assert.match(h, /\.operand_q\(operand_q\)/);
  assert.equal((h.match(/\.operand_q\(/g) ?? []).length, 1, 'the array is connected once');
  // Five values a row: the cycle count and four columns.
  assert.match(h, /\$fscanf\(chorus_fd, "%h %h %h %h %h\\n"/);
  const tb = emitTestbench(
    plan,
    [{ candidate: { rows: [{ count: 3, values: [1n, 2n, 5n, 7n] }], origin: 'test' }, newPoints: 1 }],
    {
      seed: 1,
      tbName: 'tb_alu_array',
    },
  );
  assert.match(tb, /\{chorus_cycles, rst_n, op, operand_q_0, operand_q_1\} = CHORUS_STIMULUS\[chorus_row\];/);
  assert.match(tb, /\{32'd3, 1'b1, 2'h2, 32'h5, 32'h7\}/);
  assert.match(tb, /^ {2}wire \[31:0\] operand_q \[0:1\];$/m);
});

test('array dimensions from parameters, descending and two-dimensional ones', () => {
  const a = analyzeSources([
    {
      name: 'm.sv',
      content: `module m #(parameter N = 3) (input logic clk, input logic [3:0] a [N], input logic b [3:2][0:1], output logic y);
  always_ff @(posedge clk) y <= a[0][0] ^ b[3][0];
endmodule`,
    },
  ]);
  const m = a.modules[0];
  assert.deepEqual(m.ports.find((p) => p.name === 'a')?.dimensions, [{ left: 0, right: 2 }]);
  assert.deepEqual(m.ports.find((p) => p.name === 'b')?.dimensions, [
    { left: 3, right: 2 },
    { left: 0, right: 1 },
  ]);
  const plan = planHarness(m, 'uut');
  assert.deepEqual(
    plan.inputs.map((i) => i.name),
    ['a[0]', 'a[1]', 'a[2]', 'b[3][0]', 'b[3][1]', 'b[2][0]', 'b[2][1]'],
  );
  assert.match(harnessSource(plan), /wire b \[3:2\]\[0:1\];/);
});

test('an array port whose bounds analysis cannot evaluate is refused with its file and line, not built wrong', () => {
  const a = analyzeSources([
    {
      name: 'u.sv',
      content:
        'module u (input logic clk,\n  input logic [7:0] a [p::N],\n  output logic y);\n  always_ff @(posedge clk) y <= a[0][0];\nendmodule',
    },
  ]);
  assert.throws(
    () => planHarness(a.modules[0], 'uut'),
    (e: unknown) =>
      e instanceof ChorusError &&
      e.kind === 'bad_input' &&
      /'a'.*\[p::N\]/.test(e.message) &&
      e.location?.file === 'u.sv' &&
      e.location?.line === 2,
  );
});

test('two clock domains: both clocks found, the second driven as a clock of its own, its reset follows the primary', async () => {
  const m = await topOf(fixture('two_clocks.v'));
  assert.equal(m.clock, 'rx_clk', 'the primary clock stays `clock`');
  assert.deepEqual(m.clocks, ['rx_clk', 'tx_clk']);
  assert.deepEqual(
    m.resets?.map((r) => r.name),
    ['rx_rst', 'tx_rst'],
  );
  const plan = planHarness(m, 'uut');
  assert.equal(plan.clock, 'rx_clk');
  assert.deepEqual(plan.extraClocks, [{ name: 'tx_clk', halfPeriod: 1.5, offset: 0.25 }]);
  assert.deepEqual(
    plan.inputs.map((i) => i.name),
    ['rx_rst', 'rx_d', 'tx_go'],
    'no clock and no domain reset is a data column',
  );
  assert.deepEqual(plan.domainResets, [{ name: 'tx_rst', active: 1n }]);
  const h = harnessSource(plan);
  const tb = emitTestbench(
    plan,
    [{ candidate: { rows: [{ count: 2, values: [1n, 0n, 0n] }], origin: 'test' }, newPoints: 1 }],
    {
      seed: 1,
      tbName: 'tb_two_clocks',
    },
  );
  // The same clock process and the same reset coupling in both: the harness and the testbench time alike.
  for (const line of [...extraClockLines(plan), "      tx_rst = rx_rst == 1'b1 ? 1'b1 : 1'b0;"]) {
    assert.ok(h.includes(line), `harness has ${line}`);
    assert.ok(tb.includes(line), `testbench has ${line}`);
  }
  assert.match(h, /forever begin tx_clk = 1'b1; #1\.5 tx_clk = 1'b0; #1\.5; end/);
  assert.match(tb, /\.tx_clk\(tx_clk\)/);
});

test("a clock-edge data input not named like a clock stays data; a wrapper takes its children's clocks", () => {
  const a = analyzeSources([
    {
      name: 'w.sv',
      content: `module core (input logic clk_a, input logic clk_b, input logic strobe, input logic [3:0] d, output logic [3:0] qa, output logic [3:0] qb, output logic seen);
  always_ff @(posedge clk_a) qa <= d;
  always_ff @(posedge clk_b) qb <= d;
  always_ff @(posedge strobe) seen <= 1'b1;
endmodule
module wrap (input logic ca, input logic cb, input logic s, input logic [3:0] d, output logic [3:0] qa, output logic [3:0] qb, output logic seen);
  core u (.clk_a(ca), .clk_b(cb), .strobe(s), .d(d), .qa(qa), .qb(qb), .seen(seen));
endmodule`,
    },
  ]);
  const core = a.modules.find((m) => m.name === 'core')!;
  assert.deepEqual(core.clocks, ['clk_a', 'clk_b']);
  const wrap = a.modules.find((m) => m.name === 'wrap')!;
  assert.equal(wrap.clock, 'ca');
  assert.deepEqual(wrap.clocks, ['ca', 'cb']);
  assert.deepEqual(a.clocks, ['ca', 'cb']);
});

test('an open-drain line is read back as the wired AND of the bus and the design drive, in harness and testbench', async () => {
  const file = join(repoRoot, 'test', 'fixtures', 'engine', 'processors', 'od_master.sv');
  const a = await analyzeFiles([file]);
  const m = a.modules.find((x) => x.name === 'od_master')!;
  const plan = planHarness(m, 'uut', {}, echoInputs(a, 'od_master'));
  const sda = plan.inputs.find((i) => i.name === 'sda_i');
  assert.equal(sda?.echo?.output, 'sda_o');
  const h = harnessSource(plan);
  assert.match(h, /wire sda_i;/);
  assert.match(h, /assign sda_i = chorus_bus_sda_i & \(sda_o\);/);
  assert.match(h, /chorus_bus_sda_i = chorus_v_chorus_bus_sda_i;/);
  const tb = emitTestbench(
    plan,
    [{ candidate: { rows: [{ count: 3, values: plan.inputs.map(() => 1n) }], origin: 'x' }, newPoints: 0 }],
    {
      seed: 1,
      tbName: 'tb',
    },
  );
  assert.match(tb, /assign sda_i = chorus_bus_sda_i & \(sda_o\);/);
  // A tristate enable: released (the bus alone) while the enable is high.
  const t = await analyzeSources([
    {
      name: 'i2c_pins.v',
      content:
        'module i2c_pins(input clk, input scl_i, output scl_o, output scl_t, output reg seen);\n' +
        "  assign scl_o = 1'b0; assign scl_t = 1'b1;\n  always @(posedge clk) seen <= scl_i;\nendmodule\n",
    },
  ]);
  const pins = planHarness(t.modules[0], 'uut', {}, echoInputs(t, 'i2c_pins'));
  assert.match(harnessSource(pins), /assign scl_i = chorus_bus_scl_i & \(scl_t \? \{1\{1'b1\}\} : scl_o\);/);
});
