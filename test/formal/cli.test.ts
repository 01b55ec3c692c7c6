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
  const report = JSON.parse(r.stdout) as {
    top: string;
    holesFrom: string;
    verdicts: { target: { line: number }; verdict: { status: string; depth?: number } }[];
  };
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
  assert.match(r.stderr, /'1BAD=2' is invalid. -D takes NAME or NAME=VALUE/);
});

test(
  'chorus prove --filelist: the include folder (a header in a folder below it) and the define reach the search and Yosys; the define-enabled arm is proven',
  { timeout: 300_000 },
  async () => {
    // The arm sits in an `ifdef the filelist's +define+ enables, and the counter's limit comes from a header in a
    // folder below its +incdir+ (`include "wrap/wrap_cfg.svh").
    const cwd = join(repoRoot, 'test', 'fixtures', 'formal', 'filelist');
    const r = await runCli(['prove', '--filelist', 'wrap.f', '--budget', '5', '--seed', '1', '--json'], {
      cwd,
      timeoutMs: 280_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as {
      top: string;
      verdicts: { target: { file: string; line: number }; verdict: { status: string; reason?: string } }[];
    };
    assert.equal(report.top, 'wrap_counter');
    const line =
      readFileSync(join(cwd, 'rtl', 'wrap_counter.sv'), 'utf8')
        .split('\n')
        .findIndex((l) => l.includes("if (count == 4'd12)")) + 1;
    const alarm = report.verdicts.filter((v) => v.target.line === line);
    assert.ok(alarm.length, `the alarm arm (line ${line}) is a hole: ${JSON.stringify(report.verdicts)}`);
    for (const v of alarm) assert.equal(v.verdict.status, 'unreachable', JSON.stringify(v.verdict));
    assert.equal(
      alarm[0].target.file,
      join('rtl', 'wrap_counter.sv'),
      'the file as the filelist names it, relative to the working folder',
    );
  },
);
