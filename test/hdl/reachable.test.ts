// Which FSM `default` items analysis proves unreachable: every write of the state register must be read, and
// any write it cannot read (a slice, `++`, `+=`, a call, an instance output, a loop header) keeps the claim back.
// test/engine/unreachable.test.ts checks the same fixture against simulation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeSources, unreachableDefaults } from '../../src/hdl';

const fixture = join(__dirname, '..', 'fixtures', 'hdl', 'fsm_defaults.sv');

function markedLines(text: string, mark: RegExp): number[] {
  return text.split('\n').flatMap((l, i) => (mark.test(l) ? [i + 1] : []));
}

test('fsm_defaults.sv: exactly the defaults marked UNREACHABLE are proven, with the states named', () => {
  const text = readFileSync(fixture, 'utf8');
  const a = analyzeSources([{ name: 'fsm_defaults.sv', content: text }]);
  assert.deepEqual(a.errors, []);
  const u = unreachableDefaults(a);
  assert.deepEqual(
    u.map((x) => x.line),
    markedLines(text, /\/\/ UNREACHABLE/),
  );
  assert.match(u[0].reason, /state_a only ever holds A0, A1, A2/);
  assert.equal(u[0].exhaustive, false, 'two of the four codes are never held, not absent from the items');
  const cases = a.modules[0].cases ?? [];
  assert.deepEqual(
    cases.find((c) => c.subject === 'state_b')?.subjectValues,
    ['1', '2', '3'],
    'the initializer, not 0, is the first value',
  );
});

/** A two-bit FSM whose `default` is unreachable, with `extra` added to the module body. */
function fsm(
  extra: string,
  header = 'input logic clk, input logic rst_n, input logic go, input logic [1:0] d, output logic [1:0] q',
): string {
  return `module m (${header});
  localparam logic [1:0] S0 = 2'd0, S1 = 2'd1, S2 = 2'd2;
  logic [1:0] state, next;
  always_ff @(posedge clk or negedge rst_n)
    if (!rst_n) state <= S0;
    else state <= next;
  always_comb
    case (state)
      S0: next = go ? S1 : S0;
      S1: next = S2;
      S2: next = S0;
      default: next = S0;
    endcase
  assign q = state;
${extra}
endmodule
`;
}

function claims(text: string): number[] {
  const a = analyzeSources([{ name: 'm.sv', content: text }]);
  assert.deepEqual(a.errors, [], text);
  return unreachableDefaults(a).map((u) => u.line);
}

test('the plain next-state FSM is proven', () => {
  assert.deepEqual(claims(fsm('')), [12]);
});

const spoilers: [string, string][] = [
  ['a compound assignment', "always_ff @(posedge clk) if (d == 2'd3) state += 2'd1;"],
  ['an increment', "always_ff @(posedge clk) if (d == 2'd3) state++;"],
  ['a bit written on its own', "always_ff @(posedge clk) if (d == 2'd3) state[1] <= 1'b1;"],
  // read as `state <= 2'b10` the value would look like a state; it is 2'b11
  ['a concatenation target', "logic q2;\n always_ff @(posedge clk) if (d == 2'd3) {state, q2} <= 3'b110;"],
  ['a system task with an output argument', "always_ff @(posedge clk) if (d == 2'd3) void'($cast(state, d));"],
  [
    'a task call',
    "task automatic load(output logic [1:0] s); s = 2'd3; endtask\n always_ff @(posedge clk) if (go) load(state);",
  ],
  ['a loop header', "initial for (state = 2'd0; state < 2'd3; state++) begin end"],
  ['an instance output', 'sub u_sub (.clk(clk), .q(state));'],
  ['an implicit `.*` connection', 'sub u_sub (.*);'],
  ['a non-constant next state', "always_comb if (go && d == 2'd3) next = d;"],
  [
    'a continuous assignment to the next state',
    'logic [1:0] alt; assign alt = d;\n always_ff @(posedge clk) if (go) state <= alt;',
  ],
  ['an initializer outside the states', ''],
];

for (const [what, extra] of spoilers) {
  test(`no claim when the state register has ${what}`, () => {
    const text =
      what === 'an initializer outside the states'
        ? fsm('').replace('logic [1:0] state, next;', "logic [1:0] state = 2'd3, next;")
        : fsm(extra);
    assert.deepEqual(claims(text), [], `${what}:\n${text}`);
  });
}

test('no claim when the case switches on an input port', () => {
  const text = `module m (input logic [1:0] state, output logic y);
  always_comb case (state) 2'd0: y = 1'b0; 2'd1: y = 1'b1; 2'd2: y = 1'b0; default: y = 1'b1; endcase
endmodule
`;
  assert.deepEqual(claims(text), []);
});

test('a write a define enables is read with the design defines: the default it reaches is not claimed unreachable', () => {
  const text = `module m (input logic clk, input logic rst, input logic go, output logic hit);
  logic [1:0] st;
  always_ff @(posedge clk)
    if (rst) st <= 2'd0;
    else case (st)
      2'd0: if (go) st <= 2'd1;
      2'd1: st <= 2'd2;
\`ifdef WITH_SPARE
      2'd2: st <= 2'd3;
\`else
      2'd2: st <= 2'd0;
\`endif
      default: st <= 2'd0;
    endcase
  assign hit = st == 2'd3;
endmodule
`;
  const plain = unreachableDefaults(analyzeSources([{ name: 'spare.sv', content: text }]));
  assert.equal(plain.length, 1, 'without WITH_SPARE the state register never holds 3');
  const spare = unreachableDefaults(
    analyzeSources([{ name: 'spare.sv', content: text }], { defines: { WITH_SPARE: undefined } }),
  );
  assert.deepEqual(spare, [], 'with WITH_SPARE the default is reachable, and no claim is made');
});
