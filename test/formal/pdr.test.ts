/**
 * Proofs that need a relation between registers (PDR, pdr.ts): a dead arm that k-induction and the register values
 * cannot prove is proven, a point that start values alone make dead is proven only from the simulator's start
 * values, and a point reached 200 cycles after reset is never claimed. Every proof is checked against a long
 * random run; the parsers are checked on ABC's own lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bmcReached, byInstanceInTurn, modelOutputs, pdrOutcomes, pdrRunMs } from '../../src/formal/pdr';
import { hits, lineOf, proveFromNothing } from './support';

/** The verdict of the else arm of `if (<condition>)` in a fixture's result. */
function elseArm(run: Awaited<ReturnType<typeof proveFromNothing>>, condition: string) {
  const line = lineOf(run.file, `if (${condition})`);
  const v = run.result.verdicts.find(
    (x) => x.target.kind === 'branch' && x.target.line === line && x.target.comment === 'else',
  );
  assert.ok(v, `no verdict for the else of line ${line}: ${JSON.stringify(run.result.verdicts.map((x) => x.target))}`);
  return v;
}

test(
  'a dead arm only a relation between two registers shows is proven by PDR, and random stimulus never hits it',
  { timeout: 300_000 },
  async () => {
    const run = await proveFromNothing('held_pair.sv', 'held_pair', 20_000);
    const v = elseArm(run, 'mode');
    assert.equal(v.verdict.status, 'unreachable', JSON.stringify(v.verdict));
    assert.ok(v.verdict.status === 'unreachable' && v.verdict.byInvariant, 'proven by the invariant PDR found');
    assert.ok(!hits(run.long, v));
    // The other arms are reached: the random run hits them, and none is proven.
    for (const other of run.result.verdicts.filter((x) => x !== v))
      assert.ok(!(other.verdict.status === 'unreachable' && hits(run.long, other)), JSON.stringify(other));
  },
);

test("registers with initializers: PDR starts from the simulator's start values", { timeout: 300_000 }, async () => {
  const run = await proveFromNothing('init_pair.sv', 'init_pair', 20_000);
  const v = elseArm(run, 'a != b');
  assert.equal(v.verdict.status, 'unreachable', JSON.stringify(v.verdict));
  assert.ok(!hits(run.long, v));
});

test('a point reached only 200 cycles after reset is never claimed proven', { timeout: 300_000 }, async () => {
  const run = await proveFromNothing('held_pair_deep.sv', 'held_pair_deep', 20_000);
  const v = elseArm(run, 'mode');
  assert.notEqual(v.verdict.status, 'unreachable', JSON.stringify(v.verdict));
  assert.ok(hits(run.long, v), 'the random run reaches the arm past tick 200');
});

test("ABC's lines: the outputs' order, what the bounded check reached, each cone's PDR verdict", () => {
  assert.deepEqual(
    modelOutputs(
      'ABC: Primary inputs (2):  0=clk 1=go\nABC: Primary outputs (3): 0=u.chorus_flag_2 1=chorus_flag_1 2=g[0].chorus_flag_7\n',
    ),
    ['u.chorus_flag_2', 'chorus_flag_1', 'g[0].chorus_flag_7'],
  );
  assert.deepEqual(modelOutputs('ABC: + bmc3 -a\n'), []);
  const bmc =
    'ABC: Output  24 was asserted in frame  1 (solved   1 out of 252 outputs).\nABC: Output 3 was asserted in frame 6 ( 6) (solved 2 out of 252 outputs).\n';
  assert.deepEqual(
    [...bmcReached(bmc)].sort((a, b) => a - b),
    [3, 24],
  );
  const log = [
    'ABC: + &cone -O 4 ',
    'ABC: + &put ',
    'ABC: + pdr -a -H 500 ',
    'ABC: Proved output 0 in frame 3 (converged).',
    'ABC: + &loadaig ',
    'ABC: + &cone -O 7 ',
    'ABC: Output 0 was asserted in frame 5 ( 5) (solved 1 out of 1 outputs).',
    'ABC: + &cone -O 9 ',
    'ABC: Properties:  All = 1. Proved = 0. Disproved = 0. Undecided = 1.   Time =     0.50 sec',
  ].join('\n');
  assert.deepEqual(
    [...pdrOutcomes(log)],
    [
      [4, 'proven'],
      [7, 'reachable'],
      [9, 'undecided'],
    ],
  );
});

test("PDR's order: the instances take turns, each in the order given", () => {
  assert.deepEqual(
    byInstanceInTurn([
      'ctrl.chorus_flag_1',
      'ctrl.chorus_flag_2',
      'ctrl.chorus_flag_3',
      'lsu.chorus_flag_9',
      'chorus_flag_4',
      'lsu.chorus_flag_8',
      'g[0].s.chorus_flag_5',
    ]),
    [
      'ctrl.chorus_flag_1',
      'lsu.chorus_flag_9',
      'chorus_flag_4',
      'g[0].s.chorus_flag_5',
      'ctrl.chorus_flag_2',
      'lsu.chorus_flag_8',
      'ctrl.chorus_flag_3',
    ],
  );
  assert.deepEqual(byInstanceInTurn([]), []);
});

test("PDR's time in one Yosys run follows the memory bound, within 1-6 s", () => {
  assert.equal(pdrRunMs(512), 1000);
  assert.ok(pdrRunMs(2048) > 3000 && pdrRunMs(2048) < 4500, String(pdrRunMs(2048)));
  assert.equal(pdrRunMs(64 * 1024), 6000);
});
