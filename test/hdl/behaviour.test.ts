// Clock, reset and FSM detection on small inline designs: the shapes real RTL uses, and the look-alikes
// that must not be mistaken for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeSources } from '../../src/hdl';
import { resetTest } from '../../src/hdl/behaviour';
import type { ModuleInfo } from '../../src/protocol';

const one = (text: string): ModuleInfo => {
  const a = analyzeSources([{ name: 'inline.sv', content: text }]);
  assert.deepEqual(a.errors, []);
  assert.equal(a.modules.length, 1);
  return a.modules[0];
};

test('reset conditions: negation, bare name, comparisons either way round', () => {
  assert.deepEqual(resetTest('!rst_n'), { name: 'rst_n', activeLow: true });
  assert.deepEqual(resetTest('~ rst_n'), { name: 'rst_n', activeLow: true });
  assert.deepEqual(resetTest('(reset)'), { name: 'reset', activeLow: false });
  assert.deepEqual(resetTest("rst == 1'b0"), { name: 'rst', activeLow: true });
  assert.deepEqual(resetTest('rst === 1'), { name: 'rst', activeLow: false });
  assert.deepEqual(resetTest("1'b0 == arst"), { name: 'arst', activeLow: true });
  assert.deepEqual(resetTest("rst_n != 1'b1"), { name: 'rst_n', activeLow: true });
  assert.equal(resetTest('a && b'), undefined);
  assert.equal(resetTest('count == 4'), undefined);
});

test('a synchronous reset written last in the block (it overrides everything) is found', () => {
  const m = one(`module m(input clk, input reset, input in, output reg [1:0] state);
    localparam [1:0] A = 0, B = 1, C = 2;
    always @(posedge clk) begin
      case (state)
        A: state <= in ? B : A;
        B: state <= in ? C : A;
        default: state <= A;
      endcase
      if (reset) state <= A;
    end
  endmodule`);
  assert.equal(m.clock, 'clk');
  assert.deepEqual(m.reset, { name: 'reset', activeLow: false, async: false });
  assert.deepEqual(
    m.fsms.map((f) => [f.variable, f.states]),
    [['state', ['A', 'B', 'C']]],
  );
});

test('`if (load) q <= 4` is a load, not a reset; `if (clear) q <= 0` clears like one', () => {
  const load = one(`module m(input clk, input load, input [2:0] d, output reg [2:0] q);
    always @(posedge clk) if (load) q <= 4; else q <= d;
  endmodule`);
  assert.equal(load.reset, null);
  const clear = one(`module m(input clk, input zap, input [2:0] d, output reg [2:0] q);
    always @(posedge clk) if (zap) q <= 3'b000; else q <= d;
  endmodule`);
  assert.deepEqual(clear.reset, { name: 'zap', activeLow: false, async: false });
});

test('the clock is the most used edge signal, a 1-bit input; a clock-like name only breaks ties', () => {
  const m = one(`module m(input strobe, input clk_b, input [1:0] bus, output reg a, output reg b, output reg c);
    always @(negedge strobe) a <= ~a;
    always @(negedge strobe) b <= ~b;
    always @(posedge clk_b) c <= ~c;
    always @(posedge bus[0]) c <= 1'b0;
  endmodule`);
  assert.equal(m.clock, 'strobe');
  const tie = one(`module m(input tick, input sys_clk, output reg a, output reg b);
    always @(posedge tick) a <= ~a;
    always @(posedge sys_clk) b <= ~b;
  endmodule`);
  assert.equal(tie.clock, 'sys_clk');
});

test('a counter switched on by case is not a state machine; a literal-coded one is', () => {
  const counter = one(`module m(input clk, input rst, output reg [1:0] n, output reg y);
    always @(posedge clk) if (rst) n <= 0; else n <= n + 1;
    always @(*) case (n) 2'd0: y = 1; 2'd3: y = 0; default: y = 0; endcase
  endmodule`);
  assert.deepEqual(counter.fsms, []);
  const coded = one(`module m(input clk, input rst, input go, output reg [1:0] s);
    always @(posedge clk)
      if (rst) s <= 2'b00;
      else case (s)
        2'b00: if (go) s <= 2'b01;
        2'b01: s <= 2'b11;
        default: s <= 2'b00;
      endcase
  endmodule`);
  assert.deepEqual(
    coded.fsms.map((f) => [f.variable, f.states]),
    [['s', ["2'b00", "2'b01", "2'b11"]]],
  );
  // an input switched on is never a state register
  const decoder = one(
    `module m(input [1:0] sel, output reg y); always @(*) case (sel) 0: y = 1; default: y = 0; endcase endmodule`,
  );
  assert.deepEqual(decoder.fsms, []);
});
