// Verilator versions: what the probe finds and where it is cached, VERILATOR_ROOT, the build flags, and
// the same line, branch and toggle points from every Verilator the suites have (system, and 5.050 when present).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChorusError, type CoveragePoint } from '../../src/protocol';
import { buildFlags, detectVerilator, measureCoverage, summarize, type SimOptions } from '../../src/sim';
import { elaboratedPortWidthsFromJson } from '../../src/sim/verilator/elaboratedPortsJson';
import { samePointsOnEveryVersion } from '../../src/sim/verilator/versionPoints';
import { repoRoot } from '../helpers/cli';
import { currentVerilator, expectedSha256, testVerilators } from '../helpers/verilators';
import { fixture, suiteCache } from './simFixtures';

const opts: SimOptions = { cacheDir: suiteCache };
let work: string;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'chorus-versions-test-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

test('the probe finds what the Verilator under test accepts, and builds name the coverage kinds one by one', async () => {
  const info = await detectVerilator();
  const selected = currentVerilator();
  // The matrix pass really runs on the Verilator it names.
  if (selected.name !== 'system') assert.equal(info.version, selected.name);
  assert.equal(info.features.version, info.version);
  assert.ok(existsSync(join(info.root, 'include', 'verilated.h')), `root ${info.root}`);
  // Checked by hand on the two builds the suites run on (`<flag> --version` accepted or "Invalid option").
  const { coverageSplit, coverageExpr, coverageFsm, unrollLimit, toggleDirections, xmlOnly } = info.features;
  const flags = { coverageSplit, coverageExpr, coverageFsm, unrollLimit, toggleDirections, xmlOnly };
  if (info.version === '5.006') {
    assert.deepEqual(flags, {
      coverageSplit: true,
      coverageExpr: false,
      coverageFsm: false,
      unrollLimit: false,
      toggleDirections: false,
      xmlOnly: true,
    });
  }
  if (info.version === '5.050') {
    assert.deepEqual(flags, {
      coverageSplit: true,
      coverageExpr: true,
      coverageFsm: true,
      unrollLimit: true,
      toggleDirections: true,
      xmlOnly: false,
    });
  }
  const build = buildFlags(info.features);
  assert.ok(!build.includes('--coverage'), '--coverage turns on FSM and expression coverage on 5.048+');
  for (const kind of ['--coverage-line', '--coverage-toggle', '--coverage-user']) assert.ok(build.includes(kind), kind);
});

test('the probe is cached per binary and made again when the binary changes', async () => {
  const cache = join(work, 'probe-cache');
  const root = join(work, 'fake-root');
  mkdirSync(root);
  const calls = join(work, 'calls.log');
  const fake = join(work, 'verilator');
  const script = (version: string, fsm: boolean): string =>
    [
      '#!/bin/sh',
      `echo "$*" >> ${calls}`,
      `[ "$1" = --getenv ] && { echo ${root}; exit 0; }`,
      fsm
        ? ''
        : 'for a in "$@"; do [ "$a" = --coverage-fsm ] && { echo "%Error: Invalid option: --coverage-fsm"; exit 1; }; done',
      `echo "Verilator ${version} 2026-01-01 rev v${version}"`,
      '',
    ].join('\n');
  writeFileSync(fake, script('5.046', false));
  chmodSync(fake, 0o755);
  const saved = process.env.CHORUS_CACHE_DIR;
  process.env.CHORUS_CACHE_DIR = cache;
  try {
    const first = await detectVerilator(fake);
    assert.equal(first.version, '5.046');
    assert.equal(first.features.coverageFsm, false);
    assert.equal(first.root, root);
    const probes = readdirSync(join(cache, 'verilator-probes'));
    assert.equal(probes.length, 1, 'one probe file for one binary');
    const callsAfterFirst = execFileSync('wc', ['-l', calls], { encoding: 'utf8' });
    assert.equal(await detectVerilator(fake), first, 'a second ask in the same process reuses the probe');
    assert.equal(execFileSync('wc', ['-l', calls], { encoding: 'utf8' }), callsAfterFirst, 'and runs nothing');

    // Another process with the same cache reads the probe from disk: only --getenv and --version run.
    rmSync(calls);
    const child = `require(${JSON.stringify(join(repoRoot, 'src', 'sim', 'verilator', 'verilator.ts'))})
      .detectVerilator(${JSON.stringify(fake)}).then((v) => process.stdout.write(JSON.stringify(v.features)));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', child], {
      encoding: 'utf8',
      env: { ...process.env, CHORUS_CACHE_DIR: cache },
    });
    assert.deepEqual(JSON.parse(out), first.features);
    assert.deepEqual(execFileSync('cat', [calls], { encoding: 'utf8' }).trim().split('\n').sort(), [
      '--getenv VERILATOR_ROOT',
      '--version',
    ]);

    // An upgrade in place (new content, new modification time) is probed again.
    writeFileSync(fake, script('5.050', true));
    const upgraded = await detectVerilator(fake);
    assert.equal(upgraded.version, '5.050');
    assert.equal(upgraded.features.coverageFsm, true);
  } finally {
    if (saved === undefined) delete process.env.CHORUS_CACHE_DIR;
    else process.env.CHORUS_CACHE_DIR = saved;
  }
});

test('a VERILATOR_ROOT of another installation is a clear error naming both folders; the own one is accepted', async () => {
  const info = await detectVerilator();
  const other = join(work, 'other-root');
  mkdirSync(other, { recursive: true });
  const saved = process.env.VERILATOR_ROOT;
  try {
    process.env.VERILATOR_ROOT = other;
    await assert.rejects(detectVerilator(), (err: unknown) => {
      assert.ok(err instanceof ChorusError && err.kind === 'missing_tool', String(err));
      assert.ok(err.message.includes(other) && err.message.includes(info.root), err.message);
      assert.match(err.message, /unset VERILATOR_ROOT/);
      return true;
    });
    // Its own folder: accepted exactly when Verilator itself accepts it (Debian's 5.006 does not: its
    // verilator_bin lives in /usr/bin, outside /usr/share/verilator; an unpacked 5.050 does).
    process.env.VERILATOR_ROOT = info.root;
    const own = spawnSync(info.path, ['--version'], { env: { ...process.env }, encoding: 'utf8' });
    if (own.status === 0) assert.equal((await detectVerilator()).version, info.version);
    else
      await assert.rejects(
        detectVerilator(),
        (err: unknown) =>
          err instanceof ChorusError && err.message.includes(info.root) && /unset VERILATOR_ROOT/.test(err.message),
      );
  } finally {
    if (saved === undefined) delete process.env.VERILATOR_ROOT;
    else process.env.VERILATOR_ROOT = saved;
  }
});

test('toggle directions merge into one point per bit and `?:` branch arms are left out', () => {
  const base = { file: 'a.sv', column: 3, hierarchy: 'TOP.tb.uut', module: 'm', line: 5 };
  const points: CoveragePoint[] = [
    { ...base, kind: 'toggle', comment: 'q[0]:0->1', count: 3 },
    { ...base, kind: 'toggle', comment: 'q[0]:1->0', count: 2 },
    { ...base, kind: 'toggle', comment: 'q[1]:0->1', count: 0 },
    { ...base, kind: 'toggle', comment: 'q[1]:1->0', count: 0 },
    { ...base, kind: 'toggle', comment: 'old_style', count: 4 },
    { ...base, kind: 'branch', comment: 'cond_then', count: 1 },
    { ...base, kind: 'branch', comment: 'cond_else', count: 0 },
    { ...base, kind: 'branch', comment: 'if', count: 1 },
  ];
  assert.deepEqual(
    samePointsOnEveryVersion(points).map((p) => `${p.kind} ${p.comment} ${p.count}`),
    ['toggle q[0] 5', 'toggle q[1] 0', 'toggle old_style 4', 'branch if 1'],
  );
});

test("port widths from Verilator 5.050's --json-only tree (it has no --xml-only): enum, packed union, inout, packed array", () => {
  const widths = elaboratedPortWidthsFromJson(readFileSync(fixture('ports-5.050.json'), 'utf8'));
  assert.deepEqual(
    [...widths],
    [
      ['e', 3],
      ['u', 4],
      ['io', 4],
      ['pa', 8],
    ],
  );
  assert.deepEqual([...elaboratedPortWidthsFromJson('{"truncated')], []);
});

test('the tools README gives the tarball sha256 the helper checks', () => {
  const readme =
    '# tools\n## verilator-5.050-x.tar.gz\nabc; sha256 ' +
    'a'.repeat(64) +
    '.\n## other.tar.gz\nsha256 ' +
    'b'.repeat(64) +
    '\n';
  assert.equal(expectedSha256(readme, 'verilator-5.050-x.tar.gz'), 'a'.repeat(64));
  assert.equal(expectedSha256(readme, 'other.tar.gz'), 'b'.repeat(64));
  assert.equal(expectedSha256(readme, 'missing.tar.gz'), undefined);
});

test('the sequence detector gives the same line, branch and toggle points on every Verilator', async () => {
  const rtl = fixture('seqdet.sv');
  const results: {
    name: string;
    points: string[];
    summary: Pick<ReturnType<typeof summarize>, 'line' | 'branch' | 'toggle'>;
  }[] = [];
  for (const v of testVerilators()) {
    const r = await measureCoverage(
      { dutFiles: [rtl], testbench: fixture('tb_seqdet.sv') },
      { ...opts, verilatorPath: v.path },
    );
    assert.equal(r.status, 'ok', `${v.name}: ${JSON.stringify(r.diagnostics)}`);
    // The kinds every version has (FSM and expression points exist only where the Verilator or CHORUS adds them).
    const shared = r.points.filter((p) => p.kind === 'line' || p.kind === 'branch' || p.kind === 'toggle');
    const points = shared.map((p) => `${p.kind} ${p.line} ${p.comment} ${p.count}`).sort();
    const { line, branch, toggle } = summarize(r.points);
    results.push({ name: v.name, points, summary: { line, branch, toggle } });
  }
  // Derived from the stimulus (1,1,0,1 after reset): every case item runs; the `?:` arms are not branches; the
  // reset if/else is; state[2:0] and next[2:0] toggle on every bit, found rises once, clk/reset/data toggle.
  assert.deepEqual(results[0].summary, {
    line: { covered: 7, total: 7, pct: 100 },
    branch: { covered: 2, total: 2, pct: 100 },
    toggle: { covered: 10, total: 10, pct: 100 },
  });
  for (const r of results.slice(1))
    assert.deepEqual(r.points, results[0].points, `${r.name} against ${results[0].name}`);
});
