/**
 * A user's regression coverage, as `generate --merge` reads it: two testbenches of one design under differently
 * named hierarchies (`tb_top.dut` and `harness.u_wrap.u_mux`) merge to the same DUT points and counts as
 * `verilator_coverage --write` of both files renamed to one hierarchy; a file built with other coverage flags is
 * refused with what differs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { currentVerilator } from '../helpers/verilators';
import { HARNESS, MUX4, TB_TOP, userRun } from '../helpers/userTestbench';
import { belowDut, parseCoverageDat, pointId, readRegression } from '../../src/sim';

const design = MUX4;

test(
  'two testbenches under other hierarchies merge as verilator_coverage merges them',
  { timeout: 600_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chorus-regression-'));
    const a = userRun(join(dir, 'a'), 'tb_top', TB_TOP, [0, 1, 0], ['--coverage']);
    const b = userRun(join(dir, 'b'), 'harness', HARNESS, [1, 2], ['--coverage']);
    const { runs, merged } = await readRegression([a, b], [design], 'mux4');
    assert.equal(runs.length, 2);
    assert.deepEqual(
      [...new Set(merged.map((p) => p.hierarchy))],
      [''],
      'every point is named below the DUT, whatever the testbench above it',
    );

    // verilator_coverage --write of both, the second renamed to the first's hierarchy.
    const renamed = join(dir, 'b-renamed.dat');
    writeFileSync(
      renamed,
      readFileSync(b, 'latin1').split('TOP.harness.u_wrap.u_mux').join('TOP.tb_top.dut'),
      'latin1',
    );
    const tool = join(dirname(currentVerilator().path), 'verilator_coverage');
    const out = join(dir, 'merged.dat');
    const w = spawnSync(tool, ['--write', out, a, renamed], { encoding: 'utf8' });
    assert.equal(w.status, 0, w.stderr);
    const reference = belowDut(parseCoverageDat(readFileSync(out, 'utf8'), [design], out), 'mux4', out);
    const counts = (ps: typeof merged) => new Map(ps.map((p) => [pointId(p), p.count]));
    assert.deepEqual(counts(merged), counts(reference));
    const count = (line: number) => merged.find((p) => p.kind === 'line' && p.line === line)?.count;
    const sel0 =
      readFileSync(design, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes("2'd0:")) + 1;
    assert.ok((count(sel0) ?? 0) > 0 && (count(sel0 + 1) ?? 0) > 0 && (count(sel0 + 2) ?? 0) > 0);
    assert.equal(count(sel0 + 3), 0, 'sel 3 is left by both testbenches');

    // A build with line coverage only: refused, naming the kinds that differ.
    const c = userRun(join(dir, 'c'), 'tb_top', TB_TOP, [3], ['--coverage-line']);
    await assert.rejects(readRegression([a, c], [design], 'mux4'), (err: Error) => {
      assert.match(err.message, /Not from the same build.*kinds line against line, toggle/s);
      return true;
    });
  },
);
