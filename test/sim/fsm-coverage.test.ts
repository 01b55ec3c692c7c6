// FSM state and arc coverage on the Verilator this run uses (scripts/test.mjs runs test/sim on each):
// CHORUS's own points from the bound probe, their hits and holes, and, where Verilator has native FSM coverage
// (5.048+), Verilator's points are a subset of CHORUS's with the same counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fsmModels } from '../../src/hdl/fsm';
import { detectVerilator, lineCoverage, measureCoverage, toLcov, type SimOptions } from '../../src/sim';
import type { CoveragePoint } from '../../src/protocol';
import { currentVerilator } from '../helpers/verilators';
import { fixture, lineOf, suiteCache } from './simFixtures';

const opts: SimOptions = { cacheDir: suiteCache, verilatorPath: currentVerilator().path };
const rtl = fixture('fsm/fsm_ctrl.sv');
const tb = fixture('fsm/tb_fsm_ctrl.sv');
const fsms = fsmModels([{ name: rtl, content: readFileSync(rtl, 'utf8') }]);

const count = (points: CoveragePoint[], kind: string, comment: string): number | undefined =>
  points.find((p) => p.kind === kind && p.comment === comment && p.hierarchy === 'TOP.tb_fsm_ctrl.dut')?.count;

test(
  `FSM states and arcs are measured from CHORUS's analysis, with holes on the case item and the assignment (${currentVerilator().name})`,
  { timeout: 600_000 },
  async () => {
    const r = await measureCoverage({ dutFiles: [rtl], testbench: tb, dutTop: 'fsm_ctrl', fsms }, opts);
    assert.equal(r.status, 'ok', JSON.stringify(r.diagnostics));
    // Entries (a hold is no entry): IDLE from FIN once (it starts there), RUN once, FIN once, ERR never.
    assert.equal(count(r.points, 'fsm_state', 'state_q::RUN'), 1);
    assert.equal(count(r.points, 'fsm_state', 'state_q::FIN'), 1);
    assert.equal(count(r.points, 'fsm_state', 'state_q::IDLE'), 1);
    assert.equal(count(r.points, 'fsm_state', 'state_q::ERR'), 0);
    // The arc written as `IDLE: if (go) state_d = RUN;` and its default hold, which native FSM coverage misses.
    assert.equal(count(r.points, 'fsm_arc', 'state_q::IDLE->RUN'), 1);
    assert.ok((count(r.points, 'fsm_arc', 'state_q::IDLE->IDLE') ?? 0) >= 2);
    assert.equal(count(r.points, 'fsm_arc', 'state_q::RUN->FIN'), 1);
    assert.ok((count(r.points, 'fsm_arc', 'state_q::RUN->RUN') ?? 0) >= 1);
    assert.equal(count(r.points, 'fsm_arc', 'state_q::FIN->IDLE'), 1);
    assert.equal(count(r.points, 'fsm_arc', 'state_q::ERR->IDLE'), 0);
    assert.ok((count(r.points, 'fsm_arc', 'state_q::ANY->IDLE[reset]') ?? 0) >= 1);
    // The one-block FSM without an enum: OFF->ON while busy, ON->OFF next.
    assert.ok((count(r.points, 'fsm_arc', 'blink::OFF->ON') ?? 0) >= 1);
    assert.ok((count(r.points, 'fsm_arc', 'blink::ON->OFF') ?? 0) >= 1);

    assert.deepEqual(r.coverage.fsm_state, { covered: 5, total: 6, pct: 83.3 });
    const arcs = r.points.filter((p) => p.kind === 'fsm_arc');
    assert.equal(r.coverage.fsm_arc?.total, arcs.length);

    const errItem = lineOf(rtl, 'ERR: if (abort)');
    const stateHole = r.holes.find((h) => h.kind === 'fsm_state');
    assert.deepEqual([stateHole?.line, stateHole?.detail], [errItem, 'state ERR never visited']);
    const arcHole = r.holes.find((h) => h.kind === 'fsm_arc' && h.detail === 'arc ERR->IDLE never taken');
    assert.equal(arcHole?.line, errItem);

    const lines = lineCoverage(r.points);
    const runLine = lines.find((l) => l.line === lineOf(rtl, 'RUN: state_d = stop'));
    assert.deepEqual(runLine?.fsm?.map((f) => f.label).sort(), ['RUN', 'RUN->FIN', 'RUN->RUN']);
    const lcov = toLcov(r.points);
    assert.match(
      lcov,
      new RegExp(`BRDA:${errItem},1,\\d+,0`),
      'the unvisited state is an lcov branch record with 0 hits',
    );
  },
);

test(
  `the FSM probe changes no line, branch or toggle point (${currentVerilator().name})`,
  { timeout: 600_000 },
  async () => {
    const probed = await measureCoverage({ dutFiles: [rtl], testbench: tb, dutTop: 'fsm_ctrl', fsms }, opts);
    const plain = await measureCoverage({ dutFiles: [rtl], testbench: tb, dutTop: 'fsm_ctrl' }, opts);
    assert.equal(probed.status, 'ok', JSON.stringify(probed.diagnostics));
    assert.equal(plain.status, 'ok', JSON.stringify(plain.diagnostics));
    const base = (ps: CoveragePoint[]) => ps.filter((p) => ['line', 'branch', 'toggle'].includes(p.kind));
    assert.deepEqual(base(probed.points), base(plain.points));
    assert.deepEqual(
      [probed.coverage.line, probed.coverage.branch, probed.coverage.toggle],
      [plain.coverage.line, plain.coverage.branch, plain.coverage.toggle],
    );
    // Without FSM models only Verilator's native points (5.048+) are FSM points; nothing of the probe's.
    const fsmPoints = plain.points.filter((p) => p.kind === 'fsm_state' || p.kind === 'fsm_arc');
    assert.equal(fsmPoints.length, plain.nativeFsm?.length ?? 0);
    assert.ok(!fsmPoints.some((p) => p.comment === 'state_q::IDLE->RUN'), 'the arc only the probe sees');
  },
);

test(
  `Verilator's native FSM points are a subset of CHORUS's, with the same counts (${currentVerilator().name})`,
  { timeout: 600_000 },
  async () => {
    const { features } = await detectVerilator(opts.verilatorPath);
    const r = await measureCoverage({ dutFiles: [rtl], testbench: tb, dutTop: 'fsm_ctrl', fsms }, opts);
    assert.equal(r.status, 'ok', JSON.stringify(r.diagnostics));
    if (!features.coverageFsm) {
      assert.equal(r.nativeFsm, undefined, 'no native FSM points before 5.048');
      return;
    }
    const native = r.nativeFsm ?? [];
    assert.ok(
      native.some((p) => p.comment === 'state_q::RUN->FIN'),
      `native points: ${native.map((p) => p.comment).join(', ')}`,
    );
    // Verilator misses the `if (go)` arc; CHORUS has it.
    assert.ok(!native.some((p) => p.comment === 'state_q::IDLE->RUN'));
    for (const n of native) {
      const same = r.points.filter((p) => p.kind === n.kind && p.comment === n.comment && p.hierarchy === n.hierarchy);
      assert.equal(same.length, 1, `CHORUS has native point ${n.kind} ${n.hierarchy} ${n.comment}, once`);
      const mine = same[0];
      assert.equal(mine.count, n.count, `${n.comment}: CHORUS ${mine.count}, Verilator ${n.count}`);
    }
  },
);
