/**
 * Arms inside functions, decided through a copy of the function at the module's end: arms no call's arguments reach
 * are proven, arms a call runs unconditionally get witnesses Verilator confirms, arms of a call behind a condition
 * keep their proofs and get no witness. Holes come from a real Verilator run; every proof is checked against a long
 * random run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { provePoints } from '../../src/engine';
import {
  fixture,
  hits,
  lineOf,
  measureTestbench,
  proveFromNothing,
  randomTestbench,
  replayTestbench,
  services,
  topOf,
} from './support';

const hit = hits;

test(
  'arms in functions: the ones no call reaches are proven, the ones an unconditional call reaches are witnessed',
  { timeout: 300_000 },
  async () => {
    const { file, top, mod, result, long } = await proveFromNothing('fnarm.sv', 'fnarm', 20_000);
    const at = (text: string, comment: string) =>
      result.verdicts.find((v) => v.target.line === lineOf(file, text) && v.target.comment === comment);

    // No call's limit is 10 (9, or a value below 8); `a | 1` is odd, so the decoder never sees 2 or 12.
    for (const [text, comment] of [
      ["if (lim == 4'd10 && v == 4'd2)", 'if'],
      ["4'd2: r = 2'd2;", 'case'],
      ["4'd12: r = 2'd3;", 'case'],
    ] as const) {
      const v = at(text, comment);
      assert.ok(v, `${text}: ${JSON.stringify(result.verdicts.map((x) => x.target))}`);
      assert.equal(v.verdict.status, 'unreachable', `${text}: ${JSON.stringify(v.verdict)}`);
    }
    for (const v of result.verdicts.filter((x) => x.verdict.status === 'unreachable'))
      assert.ok(!hit(long, v), `${v.target.comment} at line ${v.target.line} is proven but the long run hits it`);

    // Reached through the continuous assignment (`a` over 9) and the clocked call (b = 15, a & 7 = 3).
    for (const [text, comment] of [
      ['if (v > lim) clamp = lim;', 'if'],
      ["if (v == 4'd15 && lim == 4'd3)", 'if'],
    ] as const) {
      const v = at(text, comment);
      assert.ok(v, text);
      assert.equal(v.verdict.status, 'witness', `${text}: ${JSON.stringify(v.verdict)}`);
      if (v.verdict.status !== 'witness') continue;
      const replay = await measureTestbench([file], top, replayTestbench(mod, v.verdict.witness));
      assert.ok(hit(replay, v), `the witness for ${text} misses it in Verilator`);
    }

    // The decoder is called only when `en` holds: its reachable arm is not given a trace as a witness.
    const one = at("4'd1: r = 2'd1;", 'case');
    assert.ok(one && one.verdict.status === 'unknown', JSON.stringify(one?.verdict));
    assert.match(one.verdict.status === 'unknown' ? one.verdict.reason : '', /inside an if or case arm.*not a witness/);
    assert.ok(hit(long, one), 'the long run reaches the decoder arm');
  },
);

test('a call whose argument its always block computes first leaves the function arms unknown with why', async () => {
  const file = fixture('fnarm_local.sv');
  const top = 'fnarm_local';
  const mod = topOf([{ file, content: readFileSync(file, 'utf8') }], top);
  const points = await measureTestbench([file], top, randomTestbench(mod, 1, 3));
  const result = await provePoints(points, { rtlFiles: [file], top }, { timeoutSeconds: 120 }, services());
  const inFunction = result.verdicts.filter((v) => v.target.line === lineOf(file, "if (v == 4'd0)"));
  assert.ok(inFunction.length, JSON.stringify(result.verdicts.map((v) => v.target)));
  for (const v of inFunction)
    assert.match(
      v.verdict.status === 'unknown' ? v.verdict.reason : JSON.stringify(v.verdict),
      /reads 't', which its always block writes or declares/,
    );
});
