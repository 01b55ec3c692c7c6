/**
 * FSM state and arc holes as formal targets: holes from a real Verilator run with CHORUS's FSM probe,
 * verdicts from Yosys, and a long random simulation that must never hit a point proven unreachable.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateToEnd, provePoints } from '../../src/engine';
import { prove } from '../../src/formal';
import { repoRoot } from '../helpers/cli';
import { measureTestbench, randomTestbench, services, topOf } from './support';

const file = join(repoRoot, 'test', 'fixtures', 'formal', 'fsmhole.sv');
const top = 'fsmhole';
const isFsm = (kind: string) => kind === 'fsm_state' || kind === 'fsm_arc';

test(
  'FSM holes: a state no arc enters and an arc behind a tied input are proven; a long random run hits neither, and hits every other FSM point',
  { timeout: 300_000 },
  async () => {
    const mod = topOf([{ file, content: readFileSync(file, 'utf8') }], top);
    const points = await measureTestbench([file], top, randomTestbench(mod, 300, 11));
    const holes = points
      .filter((p) => isFsm(p.kind) && p.count === 0)
      .map((p) => p.comment)
      .sort();
    assert.deepEqual(
      holes,
      ['state_q::ERR', 'state_q::ERR->IDLE', 'state_q::LOST', 'state_q::LOST->IDLE', 'state_q::RUN->ERR'],
      JSON.stringify(points.filter((p) => isFsm(p.kind))),
    );
    const result = await provePoints(points, { rtlFiles: [file], top }, { timeoutSeconds: 200 }, services());
    const fsm = result.verdicts.filter((v) => isFsm(v.target.kind));
    assert.deepEqual(fsm.map((v) => v.target.comment).sort(), holes);
    for (const v of fsm)
      assert.equal(v.verdict.status, 'unreachable', `${v.target.comment}: ${JSON.stringify(v.verdict)}`);

    // Cross-check: no point proven unreachable is hit by a much longer random simulation (another seed).
    const long = await measureTestbench([file], top, randomTestbench(mod, 20_000, 5));
    for (const v of fsm) {
      const hit = long.filter(
        (p) => p.kind === v.target.kind && p.comment === v.target.comment && p.line === v.target.line,
      );
      assert.ok(hit.length, `the long run has no point ${v.target.comment}`);
      assert.ok(
        hit.every((p) => p.count === 0),
        `${v.target.comment} was proven unreachable but simulation hit it`,
      );
    }
    assert.ok(long.filter((p) => isFsm(p.kind) && !holes.includes(p.comment)).every((p) => p.count > 0));
  },
);

test('an FSM arc a short run missed is not proven: Yosys finds a witness for it', { timeout: 300_000 }, async () => {
  const mod = topOf([{ file, content: readFileSync(file, 'utf8') }], top);
  // Three cycles (two of them reset): DONE is never reached, so DONE->IDLE is a hole that is reachable.
  const points = await measureTestbench([file], top, randomTestbench(mod, 3, 1));
  const missed = points.find((p) => p.kind === 'fsm_arc' && p.comment === 'state_q::DONE->IDLE');
  assert.ok(missed && missed.count === 0, JSON.stringify(missed));
  const result = await provePoints(points, { rtlFiles: [file], top }, { timeoutSeconds: 200 }, services());
  const v = result.verdicts.find((x) => x.target.kind === 'fsm_arc' && x.target.comment === 'state_q::DONE->IDLE');
  assert.ok(v, JSON.stringify(result.verdicts.map((x) => x.target)));
  assert.equal(v.verdict.status, 'witness', JSON.stringify(v.verdict));
  for (const x of result.verdicts.filter((y) => isFsm(y.target.kind) && y.verdict.status === 'unreachable')) {
    assert.ok(
      ['state_q::ERR', 'state_q::ERR->IDLE', 'state_q::LOST', 'state_q::LOST->IDLE', 'state_q::RUN->ERR'].includes(
        x.target.comment,
      ),
      `${x.target.comment} proven unreachable`,
    );
  }
});

test(
  'the model-free search with FSM targets: the FSM holes are proven and labelled, and the run ends closed',
  { timeout: 600_000 },
  async () => {
    const r = await generateToEnd(
      {
        rtlFiles: [file],
        top,
        engine: 'random',
        targets: { line: 100, branch: 100, fsm_state: 100, fsm_arc: 100 },
        seed: 3,
        budgetSeconds: 120,
      },
      services(),
    );
    const fsm = r.holes.filter((h) => isFsm(h.kind));
    assert.deepEqual(fsm.map((h) => h.detail.split(' — ')[0]).sort(), [
      'arc ERR->IDLE never taken',
      'arc LOST->IDLE never taken',
      'arc RUN->ERR never taken',
      'state ERR never visited',
      'state LOST never visited',
    ]);
    for (const h of fsm) {
      assert.equal(h.proof?.method, 'induction', `${h.detail} carries its proof`);
      assert.match(h.unreachable ?? '', /^k-induction, depth \d+( \(the values its registers can hold\))?$/);
    }
    assert.equal(r.closed, true);
    assert.equal(r.stopReason, 'all reachable points covered');
    assert.ok(r.formal && r.formal.proven >= fsm.length, JSON.stringify(r.formal));
  },
);

test(
  'a one-block FSM: an arc behind a condition that is never true is proven, a reachable one is not',
  { timeout: 120_000 },
  async () => {
    const five = join(repoRoot, 'test', 'fixtures', 'formal', 'fsm5.sv');
    const content = readFileSync(five, 'utf8').replace(
      "3'd3: state <= 3'd4;",
      "3'd3: state <= (go && !go) ? 3'd1 : 3'd4;",
    );
    const line = content.split('\n').findIndex((l) => l.includes('(go && !go)')) + 1;
    const arc = (to: string) => ({
      file: five,
      line,
      column: 0,
      kind: 'fsm_arc' as const,
      comment: `state::3'd3->${to}`,
    });
    const r = await prove(
      { sources: [{ file: five, content }], top: 'fsm5', targets: [arc("3'd1"), arc("3'd4")] },
      services(),
    );
    assert.equal(r.verdicts[0].verdict.status, 'unreachable', JSON.stringify(r.verdicts[0]));
    assert.equal(r.verdicts[1].verdict.status, 'witness', JSON.stringify(r.verdicts[1]));
  },
);
