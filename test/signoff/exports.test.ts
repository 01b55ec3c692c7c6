/**
 * `generate --vlt` and `--lcov`: a full case's default is proven unreachable by the analysis; the `.vlt` turns its
 * line off, and a Verilator build with it records no point there while every other line keeps its points; the lcov
 * tracefile and the Cobertura XML leave the excluded point out, and the Cobertura XML (of generate and of coverage)
 * validates against Cobertura's coverage-04.dtd (xmllint, Debian libxml2-utils).
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
const dtd = join(repoRoot, 'test', 'fixtures', 'cobertura', 'coverage-04.dtd');

/** Validates a Cobertura file against the DTD; a missing xmllint fails the test, naming the package. */
function assertValidCobertura(file: string): void {
  const v = spawnSync('xmllint', ['--noout', '--dtdvalid', dtd, file], { encoding: 'utf8' });
  assert.ok(!v.error, `xmllint not runnable (${String(v.error)}): install Debian libxml2-utils (npm run bootstrap)`);
  assert.equal(v.status, 0, `${file} does not validate against coverage-04.dtd:\n${v.stderr}`);
}

/** The <line> elements of a Cobertura file: number → its attributes. */
function coberturaLines(xml: string): Map<number, string> {
  const lines = new Map<number, string>();
  for (const m of xml.matchAll(/<line number="(\d+)"([^>]*)\/>/g)) lines.set(Number(m[1]), m[2]);
  return lines;
}
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
  'the .vlt export turns off only wholly excluded lines, and Verilator honours it; lcov and Cobertura leave them out',
  { timeout: 300_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chorus-vlt-'));
    const vlt = join(dir, 'excl.vlt');
    const lcov = join(dir, 'cov.info');
    const xml = join(dir, 'cov.xml');
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
        '--cobertura',
        xml,
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

    assertValidCobertura(xml);
    const cob = readFileSync(xml, 'utf8');
    const lines = coberturaLines(cob);
    assert.ok(!lines.has(defaultLine), 'the excluded point is left out of the Cobertura XML');
    for (let l = defaultLine - 4; l < defaultLine; l++) assert.match(lines.get(l) ?? '', /hits="[1-9]/, `line ${l}`);
    assert.match(cob, new RegExp(`lines-valid="${lines.size}"`));

    // coverage --cobertura of the generated testbench: every point, the unreachable default too (0 hits).
    const fromCoverage = join(dir, 'measured.xml');
    const m = await runCli(['coverage', design, '--tb', join(dir, 'tb.sv'), '--cobertura', fromCoverage], {
      cwd: dir,
    });
    assert.equal(m.code, 0, m.stdout + m.stderr);
    assertValidCobertura(fromCoverage);
    assert.match(coberturaLines(readFileSync(fromCoverage, 'utf8')).get(defaultLine) ?? '', /hits="0"/);

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
    const built = new Set(points.filter((p) => p.kind === 'line').map((p) => p.line));
    assert.ok(!built.has(defaultLine), `no point on the waived line ${defaultLine}`);
    for (let l = defaultLine - 4; l < defaultLine; l++) assert.ok(built.has(l), `the case item on line ${l} is kept`);
  },
);
