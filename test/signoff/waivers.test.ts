/**
 * `generate --waivers`: a closed run writes the waiver file; a person's entry is kept and excludes its point; ten
 * lines inserted above the waived arms leave every entry applied (re-anchored by fingerprint); changing the arms
 * re-proves the one still unreachable and reports the others stale, in the file and on the terminal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';
import { parseWaivers } from '../../src/engine/waivers/file';

const fixture = join(repoRoot, 'test', 'fixtures', 'signoff', 'xmux.sv');

test('a waiver file survives moved lines and goes stale when the arm changes', { timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-waivers-'));
  const design = join(dir, 'rtl', 'xmux.sv');
  const waivers = join(dir, 'signoff', 'xmux.waivers.toml');
  mkdirSync(join(dir, 'rtl'));
  mkdirSync(join(dir, 'signoff'));
  copyFileSync(fixture, design);
  const gen = (...extra: string[]) =>
    runCli(
      [
        'generate',
        design,
        '--engine',
        'random',
        '--seed',
        '1',
        '--out',
        join(dir, 'tb.sv'),
        '--waivers',
        waivers,
        ...extra,
      ],
      { cwd: dir },
    );
  const read = () => parseWaivers(readFileSync(waivers, 'utf8'), waivers);

  // 1. The closed run proves both x-compare arms and writes them as UNR entries, files relative to the waiver file.
  const first = await gen();
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const proven = read();
  assert.deepEqual(
    proven.map((e) => [e.file, e.line, e.kind, e.point, e.category, e.who, e.proofMethod]),
    [
      ['../rtl/xmux.sv', 10, 'branch', 'if', 'UNR', 'chorus', 'induction'],
      ['../rtl/xmux.sv', 12, 'branch', 'else', 'UNR', 'chorus', 'induction'],
    ],
  );
  for (const e of proven) {
    assert.match(e.fingerprint, /^sha256:[0-9a-f]{16}$/);
    assert.match(e.proofTool ?? '', /^yosys \d+\.\d+/);
    assert.ok((e.proofDepth ?? 0) >= 1);
  }

  // 2. A person's LOW_RISK entry, written without a fingerprint: kept, fingerprinted, and it excludes its point.
  appendFileSync(
    waivers,
    '\n[[waiver]]\nfile = "../rtl/xmux.sv"\nline = 7\nkind = "toggle"\npoint = "bad"\ninstance = ""\n' +
      'category = "LOW_RISK"\nreason = "debug flag"\nwho = "Ana Reviewer"\n',
  );
  const toggle = await gen('--no-formal', '--target', 'line=100,branch=100,toggle=100');
  assert.equal(toggle.code, 0, toggle.stdout + toggle.stderr);
  assert.match(toggle.stdout, /toggle +5\/6 +83\.3% +100\.0% signoff \(1 waived excluded\)/);
  // The search stops on the verdict's rule: the waived points are left out while it runs, not only in the result.
  assert.match(toggle.stdout, /random engine, 1 round\(s\), stopped: targets met/);
  const person = read().find((e) => e.category === 'LOW_RISK');
  assert.equal(person?.who, 'Ana Reviewer');
  assert.match(person?.fingerprint ?? '', /^sha256:/);

  // 3. Ten lines above every waived point: each entry moves with its text and still applies (no formal engine).
  writeFileSync(design, `${'// moved\n'.repeat(10)}${readFileSync(design, 'utf8')}`);
  const moved = await gen('--no-formal', '--target', 'line=100,branch=100,toggle=100');
  assert.equal(moved.code, 0, moved.stdout + moved.stderr);
  assert.match(
    moved.stdout,
    /Waivers xmux\.waivers\.toml: 3 entries, 3 applied, 0 added from proofs, 3 moved, 0 stale\./,
  );
  assert.deepEqual(
    read().map((e) => [e.line, e.stale]),
    [
      [17, undefined],
      [20, undefined],
      [22, undefined],
    ],
  );

  // 4. The arms change: the else arm is still unreachable and is proven again; the if arm is now reachable and the
  // toggle's declaration changed: both stale, visibly.
  writeFileSync(
    design,
    readFileSync(design, 'utf8')
      .replace("d === 1'bx", "d === 1'b1")
      .replace("else q <= 1'b0", 'else q <= d')
      .replace('output logic bad', 'output logic bad /* flag */'),
  );
  // The changed UNR entry stands only once proven again, after the run: a short budget is all this step needs.
  const changed = await gen('--no-formal', '--budget-seconds', '10');
  assert.match(changed.stdout, /1 re-proven, 2 stale\./, changed.stdout);
  assert.match(changed.stdout, /xmux\.sv:17: stale LOW_RISK toggle: the text of its lines changed/);
  assert.match(changed.stdout, /xmux\.sv:20: stale UNR branch: the text of its lines changed/);
  const after = read();
  assert.deepEqual(
    after.map((e) => [e.line, e.category, Boolean(e.stale)]),
    [
      [17, 'LOW_RISK', true],
      [20, 'UNR', true],
      [22, 'UNR', false],
    ],
  );
  assert.notEqual(after[2].fingerprint, proven[1].fingerprint, 'the re-proven entry has the new text fingerprint');
});

test('--waivers refuses a file CHORUS did not write and a malformed entry, naming its line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-waivers-'));
  const waivers = join(dir, 'w.toml');
  writeFileSync(waivers, 'my notes\n');
  const args = ['generate', fixture, '--engine', 'random', '--out', join(dir, 'tb.sv'), '--waivers', waivers];
  const foreign = await runCli(args, { cwd: dir });
  assert.equal(foreign.code, 2);
  assert.match(foreign.stderr, /not written by CHORUS: pass --force/);
  writeFileSync(
    waivers,
    '# CHORUS waivers\nversion = 1\n\n[[waiver]]\nfile = "x.sv"\nline = 3\nkind = "branch"\npoint = "if"\ncategory = "MAYBE"\nreason = "r"\n',
  );
  const bad = await runCli(args, { cwd: dir });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /w\.toml:4: Unknown category 'MAYBE': use UNR, UNSUPPORTED, LOW_RISK\./);
});
