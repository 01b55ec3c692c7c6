// `chorus coverage` end to end (built CLI, real Verilator): the JSON contract, text output, lcov, exit codes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { lineOf, suiteCache } from '../sim/simFixtures';

const env = { CHORUS_CACHE_DIR: suiteCache };
const rtl = 'examples/counter/counter.sv';
const tb = 'test/fixtures/sim/tb_counter.sv';
let work: string;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'chorus-cli-cov-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

interface Report {
  status: string;
  coverage: Record<'line' | 'branch' | 'toggle', { covered: number; total: number; pct: number }>;
  holes: { kind: string; file: string; line: number; detail: string }[];
  diagnostics: { file: string; line: number; column: number; severity: string; message: string }[];
  ms: { build: number; sim: number };
}

test('--json prints the report and --lcov writes the tracefile; exit 0', async () => {
  const lcov = join(work, 'out.info');
  const r = await runCli(['coverage', rtl, '--tb', tb, '--json', '--lcov', lcov], { env });
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as Report;
  assert.equal(report.status, 'ok');
  assert.deepEqual(report.coverage, {
    line: { covered: 4, total: 6, pct: 66.6 },
    branch: { covered: 4, total: 6, pct: 66.6 },
    toggle: { covered: 22, total: 23, pct: 95.6 },
  });
  assert.equal(report.holes.length, 5);
  for (const h of report.holes) {
    assert.equal(h.file, rtl);
    assert.ok(h.line > 0 && h.detail.length > 0 && ['line', 'branch', 'toggle'].includes(h.kind));
  }
  assert.deepEqual(report.diagnostics, []);
  assert.ok(report.ms.build >= 0 && report.ms.sim > 0);
  assert.ok(!('points' in report));
  const info = readFileSync(lcov, 'utf8');
  assert.match(info, new RegExp(`^SF:${rtl}$`, 'm'));
  assert.match(info, /^end_of_record$/m);
});

test('the text report shows the table and the holes with their source lines', async () => {
  const r = await runCli(['coverage', rtl, '--tb', tb], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /branch\s+4\/6\s+66\.6%/);
  assert.match(r.stdout, /Holes \(5\)/);
  assert.match(r.stdout, /counter\.sv:34 line case item never taken\n\s+default: count <= count;/);
  assert.doesNotMatch(r.stdout, /\x1b\[/, 'no colour when not on a terminal');
});

test('a compile error exits 1 with the diagnostic on the testbench line', async () => {
  const broken = 'test/fixtures/sim/tb_syntax_error.sv';
  const r = await runCli(['coverage', rtl, '--tb', broken, '--json'], { env });
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout) as Report;
  assert.equal(report.status, 'compile_error');
  const err = report.diagnostics.find((d) => d.severity === 'error');
  assert.equal(err?.file, broken);
  assert.equal(err?.line, lineOf(broken, '$finish;'));
  assert.deepEqual(report.coverage.line, { covered: 0, total: 0, pct: 0 });
});

test('a rejected testbench exits 2', async () => {
  const rejected = 'test/fixtures/sim/tb_rejected.sv';
  const r = await runCli(['coverage', rtl, '--tb', rejected, '--json'], { env });
  assert.equal(r.code, 2, r.stderr);
  const report = JSON.parse(r.stdout) as Report;
  assert.equal(report.status, 'rejected');
  assert.equal(report.diagnostics[0].file, rejected);
  assert.equal(report.diagnostics[0].line, lineOf(rejected, '$system'));
});

test('a simulation past --timeout exits 1 with status timeout', async () => {
  const r = await runCli(['coverage', rtl, '--tb', tb, '--json', '--timeout', '2', '--plusarg', '+hang'], { env });
  assert.equal(r.code, 1, r.stderr);
  assert.equal((JSON.parse(r.stdout) as Report).status, 'timeout');
});

test('a missing Verilator exits 3 with the install command; a missing file exits 2', async () => {
  const r = await runCli(['coverage', rtl, '--tb', tb, '--verilator', '/nonexistent/verilator'], { env });
  assert.equal(r.code, 3);
  assert.match(r.stderr, /apt-get install verilator/);
  const viaEnv = await runCli(['coverage', rtl, '--tb', tb], {
    env: { ...env, CHORUS_VERILATOR: '/nonexistent/verilator' },
  });
  assert.equal(viaEnv.code, 3);
  const missing = await runCli(['coverage', rtl, '--tb', 'no/such/tb.sv'], { env });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Testbench not found: no\/such\/tb\.sv/);
});
