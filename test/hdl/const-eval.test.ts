// Literals and constant expressions as they appear in declarations: the width arithmetic ports depend on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyzeSources, evaluate, parseNumber, type ConstScope, type ConstValue } from '../../src/hdl';

const scope = (
  values: Record<string, ConstValue>,
  types: Record<string, number> = {},
  macros: Record<string, string> = {},
): ConstScope => ({
  value: (n) => values[n],
  typeWidth: (n) => types[n],
  macro: (n) => macros[n],
});
const empty = scope({});
const ev = (text: string, s: ConstScope = empty) => evaluate(text, s)?.value;

test("number literals: sizes, bases, signs, underscores and don't-care bits", () => {
  assert.deepEqual(parseNumber("8'hFF"), { value: 255n, unknownMask: 0n, width: 8, signed: false });
  assert.deepEqual(parseNumber("4'sb1010"), { value: 10n, unknownMask: 0n, width: 4, signed: true });
  assert.deepEqual(parseNumber('1_000'), { value: 1000n, unknownMask: 0n, width: 32, signed: true });
  assert.deepEqual(parseNumber("'o17"), { value: 15n, unknownMask: 0n, width: undefined, signed: false });
  assert.deepEqual(parseNumber("4'b1?0x"), { value: 0b1000n, unknownMask: 0b0101n, width: 4, signed: false });
  assert.deepEqual(parseNumber("16'd 300"), { value: 300n, unknownMask: 0n, width: 16, signed: false });
  assert.equal(parseNumber("'1")?.fill, '1');
  // a value wider than its size is truncated to it, as Verilog does
  assert.equal(parseNumber("4'hFF")?.value, 15n);
  assert.equal(parseNumber('WIDTH'), undefined);
  assert.equal(parseNumber('1.5'), undefined);
  assert.equal(parseNumber("2'b12"), undefined);
  // A size past what tools support is not evaluated (found by the analysis fuzz: it exhausted BigInt).
  assert.equal(parseNumber("99999999999999999999'h1"), undefined);
  assert.equal(parseNumber("0'h1"), undefined);
  assert.equal(parseNumber("65536'h1")?.width, 65536);
});

test('a case item with an absurd literal size analyses without throwing', () => {
  const text = [
    'module m(input logic clk, input logic [1:0] s, output logic y);',
    '  always_ff @(posedge clk)',
    '    case (s)',
    "      99999999999999999999'h1: y <= 1'b1;",
    "      2'd2: y <= 1'b0;",
    '      default: y <= y;',
    '    endcase',
    'endmodule',
    '',
  ].join('\n');
  const analysis = analyzeSources([{ name: 'm.sv', content: text }]);
  assert.equal(analysis.modules[0]?.name, 'm');
});

test('widths from parameters: arithmetic, $clog2, shifts, ternaries, casts, macros, package names', () => {
  const s = scope(
    { WIDTH: { value: 8n }, DEPTH: { value: 12n }, 'pkg::N': { value: 3n }, ON: { value: 1n, width: 1 } },
    { state_t: 3 },
    { BYTE: '8', TWICE: '(`BYTE * 2)' },
  );
  assert.equal(ev('WIDTH-1', s), 7n);
  assert.equal(ev('$clog2(DEPTH)', s), 4n);
  assert.equal(ev('$clog2(DEPTH+4)', s), 4n);
  assert.equal(ev('$clog2(1)', s), 0n);
  assert.equal(ev('(WIDTH << 1) - 1', s), 15n);
  assert.equal(ev('WIDTH / 3 + WIDTH % 3', s), 4n);
  assert.equal(ev('2 ** 3 ** 2', s), 512n, '** is right-associative');
  assert.equal(ev('DEPTH > 8 ? 1 : 0', s), 1n);
  assert.equal(ev('pkg::N * 2', s), 6n);
  assert.equal(ev('`TWICE - 1', s), 15n);
  assert.equal(ev("{WIDTH{1'b1}}", s), 255n);
  assert.equal(ev("{2'b10, 4'h3}", s), 0b100011n);
  assert.equal(ev("3'(WIDTH + 1)", s), 1n, 'a size cast truncates');
  assert.equal(ev("state_t'(9)", s), 1n, 'a type cast truncates to the type width');
  assert.equal(ev('$bits(state_t)', s), 3n);
  assert.equal(ev('WIDTH[2:1]', s), 0n);
  assert.equal(ev('DEPTH[3:2]', s), 3n);
  assert.equal(ev('-WIDTH + 10', s), 2n);
  assert.equal(ev('~ON', s), 0n);
});

test('unknown names, x bits and malformed text give undefined instead of a guess', () => {
  assert.equal(evaluate('W - 1', empty), undefined);
  assert.equal(evaluate("4'bx000 + 1", empty), undefined);
  assert.equal(evaluate('1 / 0', empty), undefined);
  assert.equal(evaluate('(3 + ', empty), undefined);
  assert.equal(evaluate('`UNDEFINED_MACRO', empty), undefined);
  assert.equal(evaluate('', empty), undefined);
});

test('property: binary arithmetic on decimal literals matches bigint arithmetic', () => {
  const ops: [string, (a: bigint, b: bigint) => bigint][] = [
    ['+', (a, b) => a + b],
    ['-', (a, b) => a - b],
    ['*', (a, b) => a * b],
    ['&', (a, b) => a & b],
    ['|', (a, b) => a | b],
    ['^', (a, b) => a ^ b],
    ['<<', (a, b) => a << (b % 16n)],
  ];
  fc.assert(
    fc.property(
      fc.bigInt(0n, 1n << 40n),
      fc.bigInt(0n, 1n << 40n),
      fc.integer({ min: 0, max: ops.length - 1 }),
      (a, b, k) => {
        const [op, f] = ops[k];
        const rhs = op === '<<' ? b % 16n : b;
        assert.equal(ev(`${a} ${op} (${rhs})`), f(a, rhs));
      },
    ),
  );
});

const widths = (content: string) =>
  Object.fromEntries(
    analyzeSources([{ name: 'f.sv', content }])
      .modules.at(-1)!
      .ports.map((p) => [p.name, p.width]),
  );

test('constant functions in widths: a package function with a loop, a Verilog-2001 clog2, nested calls', () => {
  assert.deepEqual(
    widths(`package p;
  function automatic int w(int n);
    int r = 0;
    for (int i = 0; i < n; i++) r = r + 2;
    return r;
  endfunction
endpackage
module m (input logic [p::w(4)-1:0] x, output logic [p::w(p::w(1))-1:0] y);
endmodule`),
    { x: 8, y: 4 },
  );
  assert.deepEqual(
    widths(`module fifo #(parameter DEPTH = 12) (input [clog2(DEPTH)-1:0] addr, input [clog2(DEPTH+5)-1:0] more);
  function integer clog2;
    input integer value;
    begin
      value = value - 1;
      for (clog2 = 0; value > 0; clog2 = clog2 + 1)
        value = value >> 1;
    end
  endfunction
endmodule`),
    { addr: 4, more: 5 },
  );
  // common_cells' cf_math_pkg::idx_width: a signedness cast, if/else blocks with returns.
  assert.deepEqual(
    widths(`package cf;
  function automatic int unsigned idx_width (input int unsigned num_idx);
    if (num_idx > 32'd1) begin
      return unsigned'($clog2(num_idx));
    end else begin
      return 32'd1;
    end
  endfunction
endpackage
module m #(parameter int unsigned N = 6) (input logic [cf::idx_width(N)-1:0] i, input logic [cf::idx_width(1)-1:0] j);
endmodule`),
    { i: 3, j: 1 },
  );
  // Values wrap at the declared width of the variable, as in simulation.
  assert.deepEqual(
    widths(`module m (input logic [f(0)-1:0] a);
  function automatic logic [3:0] f(input int k);
    logic [3:0] acc;
    acc = 4'd14;
    repeat (3) acc += 1;
    if (acc == 4'd1) return 4'd6; else return 4'd9;
  endfunction
endmodule`),
    { a: 6 },
  );
});

test('a constant function analysis cannot run gives no width rather than a guess', () => {
  const unknown = (body: string) =>
    widths(`module m (input logic [f(3)-1:0] a);
  function automatic int f(int n);
${body}
  endfunction
endmodule`).a;
  assert.equal(unknown('    int r;\n    r = 0;\n    r[2] = 1;\n    return r;'), 0, 'a bit-select write');
  assert.equal(unknown('    case (n) 3: return 4; default: return 1; endcase'), 0, 'a case statement');
  assert.equal(unknown('    int r = 1;\n    while (r > 0) r = r + 0;\n    return r;'), 0, 'a loop that never ends');
  assert.equal(unknown('    return g(n);'), 0, 'a call of an unknown function');
  assert.equal(unknown('    return f(n);'), 0, 'a call of itself that never ends');
});
