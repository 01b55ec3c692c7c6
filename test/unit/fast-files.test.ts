// `npm run test:fast`'s list (test/fast-files.json, written by scripts/mark-fast.mjs) and the Verilator it runs
// with (scripts/no-build-verilator.mjs): every test file is marked, and the refusing Verilator answers probes
// with the real one and refuses a build, so a listed file that starts building fails at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { repoRoot } from '../helpers/cli';

interface Marked {
  file: string;
  verdict: 'fast' | 'builds' | 'fails' | 'timeout';
  seconds: number;
  ran?: string;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? testFiles(p) : e.endsWith('.test.ts') ? [relative(repoRoot, p)] : [];
  });
}

test('test/fast-files.json marks every test file outside e2e, and only files that exist', () => {
  const marked = (JSON.parse(readFileSync(join(repoRoot, 'test', 'fast-files.json'), 'utf8')) as { files: Marked[] })
    .files;
  const onDisk = testFiles(join(repoRoot, 'test')).filter((f) => !f.startsWith(join('test', 'e2e') + '/'));
  const known = new Set(marked.map((m) => m.file));
  assert.deepEqual(
    onDisk.filter((f) => !known.has(f)),
    [],
    'test files not yet marked: run node scripts/mark-fast.mjs <suite>',
  );
  assert.deepEqual(
    marked.filter((m) => !existsSync(join(repoRoot, m.file))).map((m) => m.file),
    [],
    'marked files that are gone: run node scripts/mark-fast.mjs',
  );
  for (const m of marked) assert.ok(m.verdict !== 'fast' || !m.ran, `${m.file} ran Verilator, so it is not fast`);
  assert.ok(marked.filter((m) => m.verdict === 'fast').length > 0);
});

test('the fast tier’s Verilator answers probes with the real one and refuses a build, recording it', async () => {
  const root = mkdtempSync(join(tmpdir(), 'chorus-no-build-'));
  try {
    const log = join(root, 'refused.log');
    const { noBuildVerilatorEnv } = await import('../../scripts/no-build-verilator.mjs');
    const { env } = noBuildVerilatorEnv(root, log);
    const sh = (cmd: string) => spawnSync('sh', ['-c', cmd], { encoding: 'utf8', env: { ...process.env, ...env } });
    const version = sh('verilator --coverage-line --version');
    assert.equal(version.status, 0, version.stderr);
    assert.match(version.stdout, /^Verilator 5\./);
    const build = sh('verilator --binary --coverage top.sv');
    assert.equal(build.status, 97);
    assert.match(build.stderr, /test:fast builds nothing.*test\/fast-files\.json/);
    assert.equal(sh('verilator_coverage --write-info x.info coverage.dat').status, 97);
    assert.deepEqual(readFileSync(log, 'utf8').split('\n').filter(Boolean), [
      'verilator --binary --coverage top.sv',
      'verilator_coverage --write-info x.info coverage.dat',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
