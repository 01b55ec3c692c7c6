// CHORUS's FSM analysis for coverage (src/hdl/fsm.ts): states on their case items, arcs on their assignments,
// the default hold Verilator's native FSM coverage misses, and the shapes it refuses rather than guess.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fsmModels } from '../../src/hdl/fsm';
import { repoRoot } from '../helpers/cli';

const fixture = join(repoRoot, 'test', 'fixtures', 'sim', 'fsm', 'fsm_ctrl.sv');
const text = readFileSync(fixture, 'utf8');
const lineOf = (needle: string) => text.split('\n').findIndex((l) => l.trim().startsWith(needle)) + 1;
const arcs = (m: { arcs: { from: string; to: string; line: number; reset?: boolean }[] }) =>
  m.arcs.map((a) => `${a.from}->${a.to}${a.reset ? '[reset]' : ''}@${a.line}`).sort();

test('a two-block FSM: states on their items, `if (go)` under a default hold gives the arc and the hold', () => {
  const [ctrl] = fsmModels([{ name: fixture, content: text }]);
  assert.equal(ctrl.variable, 'state_q');
  assert.equal(ctrl.module, 'fsm_ctrl');
  assert.deepEqual(ctrl.events, [{ edge: 'posedge', signal: 'clk' }]);
  assert.equal(ctrl.reset, 'rst');
  assert.deepEqual(
    ctrl.states.map((s) => [s.label, s.line]),
    [
      ['IDLE', lineOf('IDLE: if (go)')],
      ['RUN', lineOf('RUN: state_d')],
      ['FIN', lineOf('FIN: state_d')],
      ['ERR', lineOf('ERR: if (abort)')],
    ],
  );
  const idle = lineOf('IDLE: if (go)');
  const run = lineOf('RUN: state_d');
  const err = lineOf('ERR: if (abort)');
  assert.deepEqual(
    arcs(ctrl),
    [
      `ANY->IDLE[reset]@${lineOf('if (rst) state_q <= IDLE')}`,
      `ERR->ERR@${err}`,
      `ERR->IDLE@${err}`,
      `FIN->IDLE@${lineOf('FIN: state_d')}`,
      `IDLE->IDLE@${idle}`,
      `IDLE->RUN@${idle}`,
      `RUN->FIN@${run}`,
      `RUN->RUN@${run}`,
    ].sort(),
    'no FIN->FIN: FIN writes the next state unconditionally; no arcs from the default item',
  );
});

test('a one-block FSM without an enum holds where an item does not write the register', () => {
  const blink = fsmModels([{ name: fixture, content: text }]).find((m) => m.variable === 'blink');
  assert.ok(blink);
  const off = lineOf('OFF: if (busy)');
  assert.deepEqual(
    arcs(blink),
    [
      `ANY->OFF[reset]@${lineOf('if (rst) blink <= OFF')}`,
      `OFF->OFF@${off}`,
      `OFF->ON@${off}`,
      `ON->OFF@${lineOf('ON: blink <= OFF')}`,
    ].sort(),
  );
});

const fsm = (body: string) => `module m (input logic clk, input logic a, input logic [1:0] d);
  localparam S0 = 2'd0, S1 = 2'd1, S2 = 2'd2;
  logic [1:0] s, n;
  always_ff @(posedge clk) s <= n;
  always_comb begin
    n = s;
    case (s)
${body}
    endcase
  end
endmodule
`;

test('casts of states are the states; nested conditionals give every arm', () => {
  const [m] = fsmModels([
    {
      name: 'c.sv',
      content: fsm("      S0: n = state_t'(a ? S1 : (d[0] ? S2 : S0));\n      S1: n = S2;\n      S2: n = S0;"),
    },
  ]);
  assert.deepEqual(
    arcs(m).map((a) => a.split('@')[0]),
    ['S0->S0', 'S0->S1', 'S0->S2', 'S1->S2', 'S2->S0'],
  );
});

test('what the analysis cannot read drops the FSM instead of inventing arcs', () => {
  const computed = fsm("      S0: n = s + 2'd1;\n      S1: n = S2;\n      S2: n = S0;");
  assert.deepEqual(fsmModels([{ name: 'a.sv', content: computed }]), [], 'a computed next state');
  const input = fsm('      S0: n = d;\n      S1: n = S2;\n      S2: n = S0;');
  assert.deepEqual(fsmModels([{ name: 'b.sv', content: input }]), [], 'a next state from an input');
  const oneLine = fsm('      S0: n = S1; S1: n = S2;\n      S2: n = S0;');
  assert.deepEqual(fsmModels([{ name: 'c.sv', content: oneLine }]), [], 'two items on one line');
  const twice = fsm('      S0: n = S1;\n      S1: n = S2;\n      S2: n = S0;');
  assert.deepEqual(
    fsmModels([
      { name: 'x.sv', content: twice },
      { name: 'y.sv', content: twice },
    ]),
    [],
    'one module name in two files',
  );
});

test('a two-process FSM with declaration initializers and the reset as the last `if` (verilog-i2c style)', () => {
  const file = join(repoRoot, 'test', 'fixtures', 'hdl', 'fsm_two_process_init.v');
  const src = readFileSync(file, 'utf8');
  const at = (needle: string) => src.split('\n').findIndex((l) => l.includes(needle)) + 1;
  const [m] = fsmModels([{ name: file, content: src }]);
  assert.ok(m, 'the FSM is found');
  assert.equal(m.variable, 'state_reg');
  assert.equal(m.reset, 'rst');
  assert.deepEqual(
    m.states.map((s) => s.label),
    ['STATE_IDLE', 'STATE_START', 'STATE_WAIT', 'STATE_STOP'],
  );
  assert.deepEqual(
    arcs(m),
    [
      `ANY->STATE_IDLE[reset]@${at('state_reg <= STATE_IDLE;')}`,
      `STATE_IDLE->STATE_IDLE@${at('STATE_IDLE: begin')}`,
      `STATE_IDLE->STATE_START@${at('state_next = STATE_START;')}`,
      `STATE_START->STATE_WAIT@${at("busy_next = 1'b1;") + 1}`,
      `STATE_WAIT->STATE_STOP@${at('if (ack) state_next = STATE_STOP;')}`,
      `STATE_WAIT->STATE_WAIT@${at('else state_next = STATE_WAIT;')}`,
      `STATE_STOP->STATE_IDLE@${at('state_next = STATE_IDLE;')}`,
    ].sort(),
  );
});
