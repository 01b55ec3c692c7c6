/**
 * `generate --vlt` and `--lcov`: a full case's default is proven unreachable by the analysis; the `.vlt` turns its
 * line off, and a Verilator build with it records no point there while every other line keeps its points; the lcov
 * tracefile leaves the excluded point out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';
import { currentVerilator } from '../helpers/verilators';
import { parseCoverageDat } from '../../src/sim/coverage/coverageFile';

const design = join(repoRoot, 'test', 'fixtures', 'signoff', 'mux4.sv');
const defaultLine =
  readFileSync(design, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('default:')) + 1;

/** Drives the mux through every select value and writes coverage.dat (5.006's own main writes none). */
const MAIN = `#include "Vmux4.h"
#include "verilated.h"
#include "verilated_cov.h"
int main(int argc, char** argv) {
  VerilatedContext ctx;
  ctx.commandArgs(argc, argv);
  Vmux4 top{&ctx};
  top.a = 0xA;
  for (int i = 0; i < 16; ++i) {
    top.sel = i & 3;
    top.clk = 0;
    top.eval();
    top.clk = 1;
    top.eval();
  }
  top.final();
  ctx.coveragep()->write("coverage.dat");
  return 0;
}
`;

test(
  'the .vlt export turns off only wholly excluded lines, and Verilator honours it',
  { timeout: 300_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chorus-vlt-'));
    const vlt = join(dir, 'excl.vlt');
    const lcov = join(dir, 'cov.info');
    const r = await runCli(
      [
        'generate',
        design,
        '--engine',
        'random',
        '--seed',
        '1',
        '--out',
        join(dir, 'tb.sv'),
        '--vlt',
        vlt,
        '--lcov',
        lcov,
      ],
      { cwd: dir },
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const config = readFileSync(vlt, 'utf8');
    assert.match(config, /^`verilator_config\n/);
    const offs = config.split('\n').filter((l) => l.startsWith('coverage_off'));
    assert.deepEqual(offs, [`coverage_off -file ${JSON.stringify(design)} -lines ${defaultLine}`]);
    const trace = readFileSync(lcov, 'utf8');
    assert.match(trace, /^TN:chorus\n/);
    assert.doesNotMatch(trace, new RegExp(`^DA:${defaultLine},`, 'm'), 'the excluded point is left out of the lcov');
    assert.match(trace, new RegExp(`^DA:${defaultLine - 1},[1-9]`, 'm'));

    writeFileSync(join(dir, 'main.cpp'), MAIN);
    const build = spawnSync(
      currentVerilator().path,
      [
        '--cc',
        '--exe',
        '--build',
        '--coverage',
        '-Wno-fatal',
        '--top-module',
        'mux4',
        '-Mdir',
        'obj',
        vlt,
        design,
        'main.cpp',
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    assert.equal(build.status, 0, build.stderr);
    const sim = spawnSync(join(dir, 'obj', 'Vmux4'), [], { cwd: dir, encoding: 'utf8' });
    assert.equal(sim.status, 0, sim.stderr);
    const points = parseCoverageDat(readFileSync(join(dir, 'coverage.dat'), 'utf8'), [design], 'coverage.dat');
    const lines = new Set(points.filter((p) => p.kind === 'line').map((p) => p.line));
    assert.ok(!lines.has(defaultLine), `no point on the waived line ${defaultLine}`);
    for (let l = defaultLine - 4; l < defaultLine; l++) assert.ok(lines.has(l), `the case item on line ${l} is kept`);
  },
);
