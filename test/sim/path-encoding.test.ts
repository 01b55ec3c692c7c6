// A design at a path with spaces and non-ASCII letters (`My Projects/ü dir/dü t.sv`) builds, measures and generates
// exactly as the same design at an ASCII path, on every Verilator of the matrix: Verilator before 5.018 cuts file
// names at a space, and coverage.dat writes `ü` as %FFFFFFC3%FFFFFFBC (src/sim/verilator/pathLinks.ts, coverageQuoting.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { buildSimulation, lintDesign, measureCoverage, preprocessDesignFile, type SimOptions } from '../../src/sim';
import { ChorusError, type CoveragePoint } from '../../src/protocol';
import { CLI_TIMEOUT_MS, ensureFreshCli, runCli } from '../helpers/cli';
import { limitMs } from '../helpers/time-limits';
import { counterRtl, fixture, suiteCache } from './simFixtures';

const opts: SimOptions = { cacheDir: suiteCache };
// Two fresh builds of the counter (runtime objects cached) and three runs: 9.6 s on Verilator 5.050 at load 1.2.
const MEASURE_MS = limitMs(9_600, 1.2);
// Two Verilator passes over a four-line design: 0.2 s at load 1.2.
const LINT_MS = limitMs(200, 1.2);
let base: string;
let ascii: { dut: string; tb: string };
let odd: { dir: string; dut: string; tb: string };

before(() => {
  ensureFreshCli();
  base = mkdtempSync(join(tmpdir(), 'chorus-enc-test-'));
  const plain = join(base, 'ascii');
  mkdirSync(plain);
  ascii = { dut: join(plain, 'counter.sv'), tb: join(plain, 'tb_counter.sv') };
  const dir = join(base, 'My Projects', 'ü dir');
  mkdirSync(dir, { recursive: true });
  // The testbench's own name has a space too: the simulator prints it in its messages.
  odd = { dir, dut: join(dir, 'dü t.sv'), tb: join(dir, 'tb ü.sv') };
  for (const f of [ascii, odd]) {
    copyFileSync(counterRtl, f.dut);
    copyFileSync(fixture('tb_counter.sv'), f.tb);
  }
});

after(() => rmSync(base, { recursive: true, force: true }));

/** A point without its file: what must match between the two copies. */
const shape = (p: CoveragePoint) => `${p.kind} ${p.line}:${p.column} ${p.comment} ${p.hierarchy} = ${p.count}`;

test(
  'coverage of the design at a path with spaces and ü is that of the ASCII copy, point for point',
  { timeout: MEASURE_MS },
  async () => {
    const want = await measureCoverage({ dutFiles: [ascii.dut], testbench: ascii.tb }, opts);
    assert.equal(want.status, 'ok', JSON.stringify(want.diagnostics));
    const got = await measureCoverage({ dutFiles: [odd.dut], testbench: odd.tb }, opts);
    assert.equal(got.status, 'ok', JSON.stringify(got.diagnostics));
    assert.ok(got.points.length > 20, `${got.points.length} points`);
    assert.deepEqual(got.points.map(shape).sort(), want.points.map(shape).sort());
    assert.deepEqual(new Set(got.points.map((p) => p.file)), new Set([odd.dut]), 'every point names the real file');
    assert.deepEqual(got.coverage, want.coverage);
    assert.deepEqual(new Set(got.holes.map((h) => h.file)), new Set([odd.dut]));
    // A runtime error names the testbench (the simulator prints its link's base name, `tb_ü.sv`).
    const fatal = await measureCoverage({ dutFiles: [odd.dut], testbench: odd.tb, plusargs: ['+fatal'] }, opts);
    const error = fatal.diagnostics.find((d) => d.severity === 'error');
    assert.equal(error?.file, odd.tb, JSON.stringify(fatal.diagnostics));
  },
);

test(
  'chorus coverage "My Projects/ü dir/dü t.sv" --tb …: the report and the lcov name the real files',
  { timeout: 2 * CLI_TIMEOUT_MS },
  async () => {
    const info = join(odd.dir, 'cov ü.info');
    const given = relative(base, odd.dut);
    const r = await runCli(['coverage', given, '--tb', relative(base, odd.tb), '--lcov', info, '--json'], {
      cwd: base,
      env: { CHORUS_CACHE_DIR: suiteCache },
    });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { status: string; holes: { file: string }[] };
    assert.equal(report.status, 'ok');
    assert.ok(
      report.holes.every((h) => h.file === given),
      JSON.stringify(report.holes),
    );
    const sf = readFileSync(info, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('SF:'));
    assert.deepEqual(sf, [`SF:${given}`], 'the file as the user typed it, spaces and ü as they are');
    const abs = await runCli(['coverage', odd.dut, '--tb', odd.tb, '--lcov', info], {
      cwd: base,
      env: { CHORUS_CACHE_DIR: suiteCache },
    });
    assert.equal(abs.code, 0, abs.stderr);
    assert.match(readFileSync(info, 'utf8'), new RegExp(`^SF:${odd.dut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  },
);

test(
  'generate --engine random --budget-seconds 10 closes the design at that path and writes the testbench there',
  { timeout: CLI_TIMEOUT_MS },
  async () => {
    const out = join(odd.dir, 'gen tb ü.sv');
    const r = await runCli(
      ['generate', odd.dut, '--engine', 'random', '--budget-seconds', '10', '--json', '--out', out],
      { cwd: base, env: { CHORUS_CACHE_DIR: suiteCache } },
    );
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout) as {
      pass: boolean;
      coverage: { line: { covered: number } };
      designWarnings?: unknown[];
    };
    assert.equal(j.pass, true, r.stdout.slice(0, 2000));
    assert.ok(j.coverage.line.covered > 0);
    assert.match(readFileSync(out, 'utf8'), /^\/\/ Generated by CHORUS/);
  },
);

test(
  'a build cache at a path with a space is refused up front, saying where to put it instead',
  { timeout: LINT_MS },
  async () => {
    // Verilator's makefiles (verilated.mk) stop in a folder whose path has a space.
    const cacheDir = join(base, 'cache dir');
    await assert.rejects(
      buildSimulation({ dutFiles: [ascii.dut], testbench: ascii.tb }, { cacheDir }),
      (err: unknown) => {
        assert.ok(err instanceof ChorusError && err.kind === 'infrastructure', String(err));
        assert.match(err.message, /cache dir.*CHORUS_CACHE_DIR to a folder without spaces/);
        return true;
      },
    );
  },
);

test(
  "the design's lint warnings and its preprocessed text name the real file, includes from a folder with spaces",
  { timeout: LINT_MS },
  async () => {
    const inc = join(base, 'My Projects', 'inc ü');
    mkdirSync(inc, { recursive: true });
    writeFileSync(join(inc, 'wïdth.svh'), '`define CHORUS_W 8\n');
    const dut = join(odd.dir, 'warn dü.sv');
    writeFileSync(
      dut,
      [
        '`include "wïdth.svh"',
        'module warn_du (input logic [`CHORUS_W-1:0] a, output logic [3:0] y);',
        '  assign y = a;',
        'endmodule',
        '',
      ].join('\n'),
    );
    const lint = await lintDesign({ files: [dut], top: 'warn_du', includeDirs: [inc] });
    const width = lint.warnings.find((w) => /WIDTH/.test(w.message));
    assert.equal(width?.file, dut, JSON.stringify(lint.warnings));
    assert.equal(width?.line, 3);
    assert.doesNotMatch(JSON.stringify(lint.warnings), /chorus-paths-[A-Za-z0-9]{6}\//, 'no link leaks into a message');
    const text = await preprocessDesignFile(dut, { includeDirs: [inc] });
    assert.match(text.split('\n')[1] ?? '', /input logic \[8-1:0\] a/, text);
  },
);
