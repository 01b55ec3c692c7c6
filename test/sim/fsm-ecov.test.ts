// verilog-eval-ecov items with an FSM (the corpus: test/helpers/corpus.ts), a sample: on the Verilator this run uses, CHORUS's
// fsm_state/fsm_arc points are measured for every FSM its analysis finds, and where Verilator reports FSM
// points natively (5.048+) they are a subset of CHORUS's with the same hit counts. bench/fsm-coverage.ts runs
// every such item (docs/benchmarks.md, "FSM coverage").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureCoverage, type SimOptions } from '../../src/sim';
import { currentVerilator } from '../helpers/verilators';
import { ecovFsmItems, writeEcovBench } from './fsmEcov';
import { suiteCache } from './simFixtures';

const opts: SimOptions = { cacheDir: suiteCache, verilatorPath: currentVerilator().path };
/** Two items Verilator 5.050 reports FSM points for (a one-block FSM, and one with a reset arc), and two it does not. */
const SAMPLE = [
  'verilog_eval_Prob140_fsm_hdlc',
  'verilog_eval_Prob151_review2015_fsm',
  'verilog_eval_Prob109_fsm1',
  'verilog_eval_Prob120_fsm3s',
];

test(
  `verilog-eval-ecov FSMs: CHORUS's points include Verilator's native ones, same counts (${currentVerilator().name})`,
  { timeout: 900_000 },
  async () => {
    const items = ecovFsmItems().filter((i) => SAMPLE.includes(i.id));
    assert.equal(items.length, SAMPLE.length, 'every sampled item has an FSM CHORUS finds');
    const dir = mkdtempSync(join(tmpdir(), 'chorus-fsm-ecov-'));
    try {
      for (const item of items) {
        const { rtl, tb } = writeEcovBench(item, join(dir, item.id));
        const fsms = item.fsms.map((f) => ({ ...f, file: rtl }));
        const r = await measureCoverage({ dutFiles: [rtl], testbench: tb, dutTop: 'RefModule', fsms }, opts);
        assert.equal(r.status, 'ok', `${item.id}: ${JSON.stringify(r.diagnostics)}`);
        const states = r.points.filter((p) => p.kind === 'fsm_state');
        assert.ok(states.length >= 2, `${item.id}: FSM states measured`);
        assert.ok(
          states.some((p) => p.count > 0),
          `${item.id}: a random testbench enters some state`,
        );
        for (const n of r.nativeFsm ?? []) {
          const mine = r.points.filter(
            (p) => p.kind === n.kind && p.comment === n.comment && p.hierarchy === n.hierarchy,
          );
          assert.equal(mine.length, 1, `${item.id}: CHORUS has native point ${n.kind} ${n.comment}`);
          assert.equal(
            mine[0].count,
            n.count,
            `${item.id} ${n.comment}: CHORUS ${mine[0].count}, Verilator ${n.count}`,
          );
        }
        if (currentVerilator().name !== 'system' && item.id === 'verilog_eval_Prob140_fsm_hdlc') {
          assert.ok((r.nativeFsm ?? []).length > 0, 'Verilator 5.050 reports this FSM natively');
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
