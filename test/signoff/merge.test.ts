/**
 * `generate --merge`: CHORUS closes on top of a user's regression of two testbenches (one under another testbench
 * hierarchy). The run's merged points and counts are `verilator_coverage --write` of the two files and CHORUS's own
 * measurement renamed to one hierarchy; the CLI reports the regression, CHORUS's addition and the merge; a file
 * of other coverage flags is refused with exit 2, naming what differs, against another file and against CHORUS's
 * own build.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { generateToEnd } from '../../src/engine';
import { silentLogger, type CoveragePoint } from '../../src/protocol';
import { belowDut, parseCoverageDat, pointId } from '../../src/sim';
import { runCli } from '../helpers/cli';
import { currentVerilator } from '../helpers/verilators';
import { HARNESS, MUX4, TB_TOP, userRun } from '../helpers/userTestbench';

const sel3Line =
  readFileSync(MUX4, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes("2'd3:")) + 1;

/** A coverage.dat with one instance path renamed, as a user would rename it for verilator_coverage. */
function renamed(file: string, from: string, to: string, out: string): string {
  writeFileSync(out, readFileSync(file, 'latin1').split(from).join(to), 'latin1');
  return out;
}

const counts = (ps: CoveragePoint[]) => new Map(ps.map((p) => [pointId(p), p.count]));

test(
  'generate --merge closes on top of two user testbenches, as verilator_coverage merges them',
  { timeout: 900_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chorus-merge-'));
    const a = userRun(join(dir, 'a'), 'tb_top', TB_TOP, [0, 1, 0], ['--coverage']);
    const b = userRun(join(dir, 'b'), 'harness', HARNESS, [1, 2], ['--coverage']);

    // The engine: its merged points against verilator_coverage of the regression and CHORUS's own measurement
    // (the final run of the testbench's rows through the harness writes candidate.dat in the run folder).
    const workDir = join(dir, 'run');
    const full = await generateToEnd(
      {
        rtlFiles: [MUX4],
        engine: 'random',
        targets: { line: 100, branch: 100 },
        seed: 1,
        budgetSeconds: 60,
        regression: [a, b],
        workDir,
      },
      { logger: silentLogger, signal: new AbortController().signal },
    );
    const r = full.regression;
    assert.ok(r, 'the result reports the regression');
    assert.deepEqual(r.files, [a, b]);
    assert.ok(r.coverage.line.covered < r.coverage.line.total, 'the regression leaves a line');
    assert.ok(r.added.line.covered >= 1, "CHORUS's testbench adds the line of sel 3");
    assert.equal(full.verdict?.met, true, 'the merge meets line and branch (the default arm is proven unreachable)');
    assert.equal(full.verdict?.exitCode, 0);
    const line = (ps: CoveragePoint[], n: number) => ps.find((p) => p.kind === 'line' && p.line === n)?.count ?? 0;
    const merged = belowDut(full.points, 'mux4', 'result');
    assert.ok(line(merged, sel3Line) > 0, 'the merge covers sel 3');

    const tool = join(dirname(currentVerilator().path), 'verilator_coverage');
    const out = join(dir, 'merged.dat');
    const w = spawnSync(
      tool,
      [
        '--write',
        out,
        a,
        renamed(b, 'TOP.harness.u_wrap.u_mux', 'TOP.tb_top.dut', join(dir, 'b.dat')),
        renamed(join(workDir, 'candidate.dat'), 'TOP.tb_mux4.uut', 'TOP.tb_top.dut', join(dir, 'chorus.dat')),
      ],
      { encoding: 'utf8' },
    );
    assert.equal(w.status, 0, w.stderr);
    const reference = belowDut(parseCoverageDat(readFileSync(out, 'utf8'), [MUX4], out), 'mux4', out);
    assert.deepEqual(counts(merged), counts(reference), 'the same DUT points with the same counts');

    // The CLI: the summary shows the regression, the addition and the merge; the testbench is written.
    const tb = join(dir, 'chorus_tb.sv');
    const cli = await runCli(['generate', MUX4, '--engine', 'random', '--seed', '1', '--merge', a, b, '--out', tb], {
      cwd: dir,
    });
    assert.equal(cli.code, 0, cli.stdout + cli.stderr);
    assert.match(cli.stdout, /On top of the regression \(.*a\/coverage\.dat, .*b\/coverage\.dat\):/);
    assert.match(cli.stdout, /regression: line \d+(\.\d+)?% \(\d+\/\d+\)/);
    assert.match(cli.stdout, /added by CHORUS's testbench: line \+\d+/);
    assert.ok(existsSync(tb));

    // Other coverage flags: refused against another regression file, and against CHORUS's own build.
    const c = userRun(join(dir, 'c'), 'tb_top', TB_TOP, [3], ['--coverage-line']);
    const two = await runCli(['generate', MUX4, '--engine', 'random', '--merge', a, c, '--out', tb, '--force'], {
      cwd: dir,
    });
    assert.equal(two.code, 2, two.stdout + two.stderr);
    assert.match(two.stderr, /Not from the same build.*kinds line against line, toggle/s);
    const one = await runCli(['generate', MUX4, '--engine', 'random', '--merge', c, '--out', tb, '--force'], {
      cwd: dir,
    });
    assert.equal(one.code, 2, one.stdout + one.stderr);
    assert.match(one.stderr, /Not from the same build of the design as CHORUS's build.*kinds line against/s);
  },
);
