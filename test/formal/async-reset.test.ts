/**
 * Asynchronous resets in the formal model: an FSM reset from an input is decided (its reset-only entry gets a
 * witness, its dead state a proof), and behind a reset a register drives no proof is claimed. Holes come from
 * real Verilator runs; every proof is checked against a long random run whose resets fall between clock edges.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideChecked, hits, lineOf, measureTestbench, replayTestbench } from './support';

const decide = (name: string, top: string, cycles: number) => decideChecked(name, top, cycles, 20_000);
const hit = hits;

test(
  'an FSM reset from an input: the state only the reset enters gets a witness Verilator confirms, the dead state a proof',
  { timeout: 300_000 },
  async () => {
    const { file, mod, result, long } = await decide('fsm_async.sv', 'fsm_async', 4);
    const fsm = (comment: string) => result.verdicts.find((v) => v.target.comment === comment);
    for (const dead of ['state::ERR', 'state::RUN->ERR', 'state::ERR->IDLE'])
      assert.equal(fsm(dead)?.verdict.status, 'unreachable', `${dead}: ${JSON.stringify(fsm(dead)?.verdict)}`);
    // IDLE is entered only at a reset: the probe counts it at the reset's own edge, the model in the reset's cycle.
    const idle = fsm('state::IDLE');
    assert.ok(idle, JSON.stringify(result.verdicts.map((v) => v.target.comment)));
    assert.equal(idle.verdict.status, 'witness', JSON.stringify(idle.verdict));
    assert.ok(hit(long, idle), 'random resets enter IDLE');
    for (const v of result.verdicts) {
      if (v.verdict.status !== 'witness') continue;
      const replay = await measureTestbench([file], 'fsm_async', replayTestbench(mod, v.verdict.witness));
      assert.ok(hit(replay, v), `the witness for ${v.target.comment} (line ${v.target.line}) misses it in Verilator`);
    }
    assert.ok(
      result.verdicts.every((v) => v.verdict.status !== 'unknown'),
      JSON.stringify(result.verdicts.filter((v) => v.verdict.status === 'unknown')),
    );
  },
);

test(
  'behind a reset a register drives, nothing is proven: the points the synchronous model would rule out are hit',
  { timeout: 300_000 },
  async () => {
    const { file, result, long } = await decide('registered_reset.sv', 'registered_reset', 1);
    const behind = result.verdicts.filter(
      (v) => v.verdict.status === 'unknown' && /a register drives \(rst_q\)/.test(v.verdict.reason),
    );
    // The state register holds C between the clock edge and the reset's: a combinational block and the FSM probe see
    // it, the model (C replaced by the reset value in the same cycle) never does.
    for (const [line, comment] of [
      [lineOf(file, 'if (st == C)'), 'if'],
      [lineOf(file, 'C: st <= D;'), 'st::C'],
      [lineOf(file, 'B: st <= C;'), 'st::B->C'],
      [lineOf(file, 'B: st <= C;'), 'case'],
    ] as const) {
      const v = behind.find((x) => x.target.line === line && x.target.comment === comment);
      assert.ok(v, `line ${line} ${comment}: ${JSON.stringify(result.verdicts.map((x) => [x.target, x.verdict]))}`);
      assert.ok(hit(long, v), `the long run hits line ${line} ${comment}`);
    }
    assert.ok(result.verdicts.every((v) => v.verdict.status !== 'unreachable'));
  },
);
