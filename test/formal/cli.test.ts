/** `chorus prove` from the built bundle (`dist/cli.js`): Yosys loads from outside the bundle, verdicts as JSON. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';
import { randomTestbench, topOf } from './support';

test('chorus prove --tb --json: the FSM defaults proven unreachable', { timeout: 300_000 }, async () => {
  const file = join(repoRoot, 'test', 'fixtures', 'formal', 'fsm5.sv');
  const tb = join(mkdtempSync(join(tmpdir(), 'chorus-prove-cli-')), 'tb.sv');
  writeFileSync(tb, randomTestbench(topOf([{ file, content: readFileSync(file, 'utf8') }], 'fsm5'), 300, 5));
  const r = await runCli(['prove', file, '--tb', tb, '--json'], { timeoutMs: 280_000 });
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { top: string; holesFrom: string; verdicts: { target: { line: number }; verdict: { status: string; depth?: number } }[] };
  assert.equal(report.top, 'fsm5');
  assert.equal(report.holesFrom, 'testbench');
  assert.equal(report.verdicts.length, 2);
  for (const v of report.verdicts) {
    assert.equal(v.verdict.status, 'unreachable');
    assert.ok((v.verdict.depth ?? 0) >= 1);
  }
});

test('chorus prove with a bad --define says what is wrong and exits 2', { timeout: 120_000 }, async () => {
  const file = join(repoRoot, 'test', 'fixtures', 'formal', 'fsm5.sv');
  const r = await runCli(['prove', file, '--tb', file, '--define', '1BAD=2']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--define '1BAD=2': expected NAME or NAME=VALUE/);
});
