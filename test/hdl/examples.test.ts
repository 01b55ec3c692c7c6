// The project's example DUTs: ports, widths, parameters, clock, reset, FSMs, literals and unreachable defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeSources, literalDetails, literalsOf, moduleByName, unreachableDefaults } from '../../src/hdl';
import type { DesignAnalysis, ModuleInfo } from '../../src/protocol';

const root = join(__dirname, '..', '..');

function example(name: string): { analysis: DesignAnalysis; top: ModuleInfo } {
  const file = `examples/${name}/${name}.sv`;
  const analysis = analyzeSources([{ name: file, content: readFileSync(join(root, file), 'utf8') }]);
  assert.deepEqual(analysis.errors, []);
  assert.equal(analysis.top, name);
  const top = moduleByName(analysis, name);
  assert.ok(top);
  return { analysis, top };
}

const portList = (m: ModuleInfo) => m.ports.map((p) => `${p.direction} ${p.name}[${p.width}]`);

test('counter: parameterised widths, a synchronous active-low reset, no FSM', () => {
  const { analysis, top } = example('counter');
  assert.deepEqual(portList(top), [
    'input clk[1]',
    'input rst_n[1]',
    'input en[1]',
    'input mode[2]',
    'input load_value[8]',
    'output count[8]',
    'output overflow[1]',
    'output underflow[1]',
  ]);
  assert.equal(top.ports[4].rangeText, '[WIDTH-1:0]');
  assert.equal(top.ports[4].type, 'logic');
  assert.deepEqual(
    top.params.map((p) => [p.name, p.default, p.value, p.local]),
    [
      ['WIDTH', '8', 8, false],
      ['MAX', "{WIDTH{1'b1}}", 255, true],
    ],
  );
  assert.equal(analysis.clock, 'clk');
  assert.deepEqual(analysis.reset, { name: 'rst_n', activeLow: true, async: false });
  assert.deepEqual(top.fsms, []);
  // `case (mode)` lacks 2'b00, so its default is reachable
  assert.deepEqual(unreachableDefaults(analysis), []);
  const mode = literalDetails(top).filter((l) => l.subject === 'mode');
  assert.deepEqual(
    mode.map((l) => [l.value, l.width, l.kind]),
    [
      ['1', 2, 'case_item'],
      ['2', 2, 'case_item'],
      ['3', 2, 'case_item'],
    ],
  );
  // `count == MAX` compares against a parameter: its value lands in the dictionary
  assert.ok(literalDetails(top).some((l) => l.subject === 'count' && l.value === '255' && l.kind === 'comparison'));
});

test('fifo: $clog2 in a header localparam, asynchronous reset, case on a concatenation', () => {
  const { analysis, top } = example('fifo');
  assert.deepEqual(
    top.ports.filter((p) => p.width > 1).map((p) => `${p.name}[${p.width}]`),
    ['din[8]', 'dout[8]', 'level[3]'],
  );
  assert.deepEqual(
    top.params.map((p) => [p.name, p.value, p.local]),
    [
      ['WIDTH', 8, false],
      ['DEPTH', 4, false],
      ['AW', 2, true],
    ],
  );
  assert.deepEqual(analysis.reset, { name: 'rst_n', activeLow: true, async: true });
  const items = literalDetails(top).filter((l) => l.kind === 'case_item');
  assert.deepEqual(
    items.map((l) => l.value),
    ['2', '1', '3'],
  );
  assert.deepEqual(items[0].subjectParts, [
    { name: 'push', width: 1 },
    { name: 'pop', width: 1 },
  ]);
  // {push, pop} == 2'b00 has no item: the default is reachable
  assert.deepEqual(unreachableDefaults(analysis), []);
  const c = top.cases?.[0];
  assert.equal(c?.subjectWidth, 2);
  assert.equal(c?.defaultLine, 59);
});

test('alu: no clock; eight localparam opcodes cover every 3-bit value, so the default is unreachable', () => {
  const { analysis, top } = example('alu');
  assert.equal(analysis.clock, null);
  assert.equal(analysis.reset, null);
  assert.deepEqual(literalsOf(analysis, 'alu'), [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]);
  const u = unreachableDefaults(analysis);
  assert.equal(u.length, 1);
  assert.equal(u[0].line, 43);
  assert.equal(u[0].exhaustive, true);
  assert.match(u[0].reason, /all 8 values of the 3-bit subject/);
  assert.equal(top.params.find((p) => p.name === 'OP_SLT')?.value, 7);
});

test('vending: enum FSM with a next-state variable, asynchronous active-high reset', () => {
  const { analysis, top } = example('vending');
  assert.deepEqual(analysis.reset, { name: 'rst', activeLow: false, async: true });
  assert.deepEqual(
    top.fsms.map((f) => [f.variable, f.states]),
    [['state', ['IDLE', 'C5', 'C10', 'C15', 'C20', 'C25', 'VEND', 'REFUND']]],
  );
  const u = unreachableDefaults(top);
  assert.deepEqual(
    u.map((x) => [x.line, x.exhaustive]),
    [[62, true]],
  );
  assert.ok(literalsOf(top).includes(30n), "the price comparison `next_credit >= 6'd30` is harvested");
});

test('uart_tx: enum FSM whose case lists every member; default reachable only through a bad cast', () => {
  const { analysis, top } = example('uart_tx');
  assert.equal(analysis.clock, 'clk');
  assert.deepEqual(analysis.reset, { name: 'rst_n', activeLow: true, async: true });
  assert.deepEqual(
    top.fsms.map((f) => [f.variable, f.states]),
    [['state', ['S_IDLE', 'S_START', 'S_DATA', 'S_PARITY', 'S_STOP']]],
  );
  assert.equal(top.params.find((p) => p.name === 'CW')?.value, 2);
  const u = unreachableDefaults(analysis);
  assert.deepEqual(
    u.map((x) => [x.line, x.exhaustive, x.subject]),
    [[88, false, 'state']],
  );
  // `clk_count == CW'(CLKS_PER_BIT - 1)`: a cast of parameter arithmetic, compared against a 2-bit counter
  assert.ok(literalDetails(top).some((l) => l.subject === 'clk_count' && l.value === '3' && l.width === 2));
  assert.ok(literalDetails(top).some((l) => l.subject === 'bit_index' && l.value === '7' && l.width === 3));
});
