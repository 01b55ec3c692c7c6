/**
 * Function arms whose calls a copy at the module's end could misjudge: each shape below gave a false proof or a
 * false witness before. Now every proof stands against a long random run, every witness replays to a hit in
 * Verilator, and each shape CHORUS cannot model says why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hits, lineOf, measureTestbench, proveFromNothing, replayTestbench } from './support';

test(
  'function arms behind nested calls, module variables, macros, task outputs and unbuilt branches are never falsely decided',
  { timeout: 300_000 },
  async () => {
    const { file, top, mod, result, long } = await proveFromNothing('fnarm_hidden.sv', 'fnarm_hidden', 5_000);
    const at = (text: string, comment: string) => {
      const v = result.verdicts.find((x) => x.target.line === lineOf(file, text) && x.target.comment === comment);
      assert.ok(v, `${text}: ${JSON.stringify(result.verdicts.map((x) => x.target))}`);
      return v;
    };
    const reason = (v: { verdict: { status: string; reason?: string } }) =>
      v.verdict.status === 'unknown' ? (v.verdict.reason ?? '') : JSON.stringify(v.verdict);

    for (const v of result.verdicts) {
      if (v.verdict.status === 'unreachable')
        assert.ok(!hits(long, v), `${v.target.comment} at line ${v.target.line} is proven but the long run hits it`);
      if (v.verdict.status === 'witness') {
        const replay = await measureTestbench([file], top, replayTestbench(mod, v.verdict.witness));
        assert.ok(
          hits(replay, v),
          `the witness for ${v.target.comment} at line ${v.target.line} misses it in Verilator`,
        );
      }
    }
    // The inner call of `inc(inc(…))` reaches 4: a call, and a witness.
    assert.equal(at("if (v == 4'd4) inc = 4'd9;", 'if').verdict.status, 'witness');
    assert.match(reason(at("if (cfg == 4'd3 && v == 4'd1)", 'if')), /reads 'cfg', which its always block writes/);
    assert.match(reason(at("if (v == 4'd6) sel = 4'd2;", 'if')), /macro `CALL_SEL mentions sel/);
    assert.match(reason(at("if (v == 4'd9) chk = 4'd1;", 'if')), /reads 't5', which its always block writes/);
    // `v[0]` always holds: the outer if's added else is unreachable, and the inner if's arm, which ends where both
    // the outer arm and that else end, is reached.
    assert.equal(at('if (v[0])', 'else').verdict.status, 'unreachable');
    assert.equal(at('if (v[1]) nest', 'if').verdict.status, 'witness');
    assert.match(
      reason(at("if (v == 4'd2) never = 4'd3;", 'if')),
      /outside an always block or a continuous assignment/,
    );
    for (const v of result.verdicts.filter((x) => x.target.line === lineOf(file, "4'd3: return 2'd1;")))
      assert.match(reason(v), /is a return, which Verilator's coverage does not count/);
  },
);
