/**
 * Constant registers: register bits that never leave their start value, found by a three-valued evaluation of the
 * prepared netlist iterated to an inductive set, and the flags they hold at 0 (code a parameter disables behind
 * register stages). First on small netlists written here, then on a fixture through Yosys, every proof checked
 * against a long random run and the same arms reached with the parameter set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerValues } from '../../src/formal/registerValues';
import { hits, lineOf, proveFromNothing } from './support';

/** One RTLIL module of the cells and connections given (wires declared first). */
function module(wires: string[], body: string[]): string {
  return ['module \\t', ...wires.map((w) => `  ${w}`), ...body.map((l) => `  ${l}`), 'end', ''].join('\n');
}

const dff = (name: string, d: string, q: string, width = 1) => [
  `cell $dff ${name}`,
  `  parameter \\WIDTH ${width}`,
  '  parameter \\CLK_POLARITY 1',
  '  connect \\CLK \\clk',
  `  connect \\D ${d}`,
  `  connect \\Q ${q}`,
  'end',
];

test('register values: constants in chains and loops, a set of codes, not a counter, a reset to 1 or an input', async () => {
  const il = module(
    [
      'wire input 1 \\clk',
      'wire input 2 \\go',
      'wire width 2 input 3 \\op',
      'wire input 4 \\rst',
      'wire width 2 \\dec',
      'wire width 2 \\mode_q',
      'wire width 2 \\mode_q2',
      'wire \\x',
      'wire \\y',
      'wire width 4 \\count',
      'wire width 4 \\count_next',
      "attribute \\init 1'1",
      'wire \\one_q',
      'wire \\set_q',
      'wire \\flag_mode',
      'wire \\flag_loop',
      'wire \\flag_count',
      'wire \\flag_one',
      'wire \\flag_set',
      'wire \\flag_input',
      'wire width 3 \\op_d',
      'wire width 3 \\op_q',
      'wire \\flag_op_unused',
      'wire \\flag_op_used',
    ],
    [
      // A decoder whose vector mode a parameter turned off: `VEC && go ? op : 0` with VEC folded to 0.
      'cell $mux $dec',
      '  parameter \\WIDTH 2',
      "  connect \\A 2'00",
      '  connect \\B \\op',
      "  connect \\S 1'0",
      '  connect \\Y \\dec',
      'end',
      'cell $dffe $mode',
      '  parameter \\WIDTH 2',
      '  parameter \\CLK_POLARITY 1',
      '  parameter \\EN_POLARITY 1',
      '  connect \\CLK \\clk',
      '  connect \\EN \\go',
      '  connect \\D \\dec',
      '  connect \\Q \\mode_q',
      'end',
      ...dff('$mode2', '\\mode_q', '\\mode_q2', 2),
      'cell $eq $is01',
      '  parameter \\A_SIGNED 0',
      '  parameter \\B_SIGNED 0',
      '  parameter \\A_WIDTH 2',
      '  parameter \\B_WIDTH 2',
      '  parameter \\Y_WIDTH 1',
      '  connect \\A \\mode_q2',
      "  connect \\B 2'01",
      '  connect \\Y \\flag_mode',
      'end',
      // Two registers that load each other: each is 0 only while the other is.
      ...dff('$x', '\\y', '\\x'),
      ...dff('$y', '\\x', '\\y'),
      'cell $and $loop',
      '  parameter \\A_SIGNED 0',
      '  parameter \\B_SIGNED 0',
      '  parameter \\A_WIDTH 1',
      '  parameter \\B_WIDTH 1',
      '  parameter \\Y_WIDTH 1',
      '  connect \\A \\x',
      '  connect \\B \\go',
      '  connect \\Y \\flag_loop',
      'end',
      'cell $add $inc',
      '  parameter \\A_SIGNED 0',
      '  parameter \\B_SIGNED 0',
      '  parameter \\A_WIDTH 4',
      '  parameter \\B_WIDTH 1',
      '  parameter \\Y_WIDTH 4',
      '  connect \\A \\count',
      "  connect \\B 1'1",
      '  connect \\Y \\count_next',
      'end',
      ...dff('$count', '\\count_next', '\\count', 4),
      'cell $eq $is9',
      '  parameter \\A_SIGNED 0',
      '  parameter \\B_SIGNED 0',
      '  parameter \\A_WIDTH 4',
      '  parameter \\B_WIDTH 4',
      '  parameter \\Y_WIDTH 1',
      '  connect \\A \\count',
      "  connect \\B 4'1001",
      '  connect \\Y \\flag_count',
      'end',
      // Starts at 1 (an initializer) and holds: its negation is 0.
      ...dff('$one', '\\one_q', '\\one_q'),
      'cell $not $notone',
      '  parameter \\A_SIGNED 0',
      '  parameter \\A_WIDTH 1',
      '  parameter \\Y_WIDTH 1',
      '  connect \\A \\one_q',
      '  connect \\Y \\flag_one',
      'end',
      // Starts at 0, a synchronous reset sets it to 1: not constant.
      'cell $sdff $set',
      '  parameter \\WIDTH 1',
      '  parameter \\CLK_POLARITY 1',
      '  parameter \\SRST_POLARITY 1',
      "  parameter \\SRST_VALUE 1'1",
      '  connect \\CLK \\clk',
      '  connect \\SRST \\rst',
      '  connect \\D \\set_q',
      '  connect \\Q \\set_q',
      'end',
      // An operation register loaded with one of two codes (a decoder's): a third code never appears in it.
      'cell $mux $opmux',
      '  parameter \\WIDTH 3',
      "  connect \\A 3'001",
      "  connect \\B 3'010",
      '  connect \\S \\go',
      '  connect \\Y \\op_d',
      'end',
      ...dff('$op', '\\op_d', '\\op_q', 3),
      ...['unused', 'used'].flatMap((n) => [
        `cell $eq $is_${n}`,
        '  parameter \\A_SIGNED 0',
        '  parameter \\B_SIGNED 0',
        '  parameter \\A_WIDTH 3',
        '  parameter \\B_WIDTH 3',
        '  parameter \\Y_WIDTH 1',
        '  connect \\A \\op_q',
        `  connect \\B ${n === 'unused' ? "3'011" : "3'010"}`,
        `  connect \\Y \\flag_op_${n}`,
        'end',
      ]),
      'connect \\flag_set \\set_q',
      'connect \\flag_input \\go',
    ],
  );
  const flags = [
    'flag_mode',
    'flag_loop',
    'flag_count',
    'flag_one',
    'flag_set',
    'flag_input',
    'flag_op_unused',
    'flag_op_used',
  ];
  const r = await registerValues(il, flags);
  assert.deepEqual([...r.zeroFlags].sort(), ['flag_loop', 'flag_mode', 'flag_one', 'flag_op_unused']);
  // Cancelled, or past its bound, it proves nothing (the values are proven only at the fixpoint).
  const cancelled = new AbortController();
  cancelled.abort();
  assert.equal((await registerValues(il, flags, { signal: cancelled.signal })).zeroFlags.size, 0);
  assert.equal((await registerValues(il, flags, { maxMs: -1 })).zeroFlags.size, 0);
  // mode_q (2), mode_q2 (2), x, y, one_q, and op_q's top bit (0 in 000, 001 and 010); of 15 bits.
  assert.equal(r.constantBits, 8, JSON.stringify(r));
  assert.equal(r.registerBits, 15);
  // op_q holds a set of three values; the counter's grew a value a round until it was widened to bits.
  assert.equal(r.valueSets, 1);
});

test('register values: an unknown cell leaves its bits unknown', async () => {
  const il = module(
    ['wire input 1 \\clk', 'wire \\m', 'wire \\q', 'wire \\flag'],
    [
      'cell $mystery $m',
      '  connect \\A \\q',
      '  connect \\Y \\m',
      'end',
      ...dff('$q', '\\m', '\\q'),
      'connect \\flag \\q',
    ],
  );
  assert.equal((await registerValues(il, ['flag'])).zeroFlags.size, 0);
});

test(
  'a parameter-disabled mode held by two register stages is proven, checked against random runs; reached with it set',
  { timeout: 300_000 },
  async () => {
    const log: string[] = [];
    // Every proof against 20,000 random cycles with resets.
    const { file, result, long } = await proveFromNothing('constant_register.sv', 'constant_register', 20_000, { log });
    const arms = ["2'b01: out", "2'b10: out", 'default: out'].map((t) => lineOf(file, t));
    const resetArm = lineOf(file, "if (VEC) vec_seen <= 1'b0;");
    for (const line of [...arms, resetArm]) {
      const vs = result.verdicts.filter((v) => v.target.line === line);
      assert.ok(vs.length, `no hole at line ${line}`);
      for (const v of vs.filter((x) => x.target.comment !== 'else')) {
        assert.equal(v.verdict.status, 'unreachable', `line ${line} ${v.target.comment}: ${JSON.stringify(v.verdict)}`);
        // The case arms by the register values (the reset branch's arm folds to a constant before them).
        if (line !== resetArm)
          assert.ok(v.verdict.status === 'unreachable' && v.verdict.byRegisterValues, JSON.stringify(v.verdict));
      }
    }
    assert.ok(
      log.some((l) => /\d+ of \d+ flag\(s\) held at 0 by the values registers can hold/.test(l) && !/ 0 of /.test(l)),
      log.join('\n'),
    );
    for (const v of result.verdicts.filter((x) => x.verdict.status === 'unreachable'))
      assert.ok(!hits(long, v), `line ${v.target.line} (${v.target.comment}) is proven but the random run hits it`);
    // The counter's compare is reached: not every register is constant.
    const nine = result.verdicts.filter((v) => v.target.line === lineOf(file, "if (count == 16'd9)"));
    assert.ok(
      nine.some((v) => v.verdict.status === 'witness'),
      JSON.stringify(nine),
    );

    // With VEC set the same arms are reached and none is proven; the reset branch's arm, whose wire holds whenever
    // VEC does, is not taken for a witness (its else, never taken with VEC set, is proven).
    const withVec = await proveFromNothing('constant_register.sv', 'constant_register', 0, {
      parameters: { VEC: "1'b1" },
    });
    for (const line of arms)
      for (const v of withVec.result.verdicts.filter((x) => x.target.line === line))
        assert.notEqual(v.verdict.status, 'unreachable', `line ${line}: ${JSON.stringify(v.verdict)}`);
    for (const v of withVec.result.verdicts.filter((x) => x.target.line === resetArm && x.target.comment === 'if'))
      assert.ok(
        v.verdict.status === 'unknown' && /asynchronous reset branch/.test(v.verdict.reason),
        JSON.stringify(v.verdict),
      );
  },
);
