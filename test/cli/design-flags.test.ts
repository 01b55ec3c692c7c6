// The design options through the built CLI: --filelist, -I, -D on generate, coverage, inspect and prompt;
// bad filelists exit 2 naming the list and line; a design with lint warnings builds, simulates and lists them.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureFreshCli, repoRoot, runCli } from '../helpers/cli';

const FIX = join(repoRoot, 'test', 'fixtures', 'filelist');
const LINT = join(repoRoot, 'test', 'fixtures', 'lint');
const LIBS = join(repoRoot, 'test', 'fixtures', 'libraries');
/** nested/leaf.f names its include folder through $FL_INC. */
const env = { FL_INC: '../include', CHORUS_TEST: '1' };

// `npm test` builds first; a lone run of this file rebuilds a stale CLI.
before(ensureFreshCli);

for (const [list, line, pattern] of [
  ['missing.f', 2, /rtl\/nope\.sv does not exist/],
  ['loop_a.f', 1, /includes itself/],
  ['unknown.f', 3, /Unknown filelist option -timescale/],
] as const) {
  test(`a bad filelist (${list}) exits 2 naming the list and line`, async () => {
    const r = await runCli(['inspect', '--filelist', list], { cwd: FIX, env });
    assert.equal(r.code, 2, r.stderr);
    const shown = list === 'loop_a.f' ? 'loop_b.f' : list;
    assert.match(r.stderr, new RegExp(`${shown}:${line}: `));
    assert.match(r.stderr, pattern);
  });
}

test('a missing --filelist exits 2 naming it', async () => {
  const r = await runCli(['coverage', '--filelist', 'no_such.f', '--tb', 'tb_fl_top.sv'], { cwd: FIX, env });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /no_such\.f: No such filelist/);
});

test('-D takes NAME[=VALUE]; no files at all is a usage error', async () => {
  for (const args of [['-D', '1bad'], ['-D', 'W-1'], []]) {
    const r = await runCli(['inspect', ...(args.length ? ['rtl/top.sv', ...args] : [])], { cwd: FIX, env });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
  }
});

test('inspect --filelist analyses the listed files in order', async () => {
  const r = await runCli(['inspect', '--filelist', 'design.f', '--json'], { cwd: FIX, env });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { modules: { name: string }[]; top: string };
  assert.deepEqual(
    out.modules.map((m) => m.name),
    ['fl_leaf', 'fl_top'],
  );
  assert.equal(out.top, 'fl_top');
});

test('coverage --filelist passes the include folder and +define+W=8 to the build', async () => {
  // The testbench stops with $fatal unless W is 8 (the header's default is 4).
  const r = await runCli(['coverage', '--filelist', 'design.f', '--tb', 'tb_fl_top.sv', '--top', 'fl_top', '--json'], {
    cwd: FIX,
    env,
  });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const report = JSON.parse(r.stdout) as {
    status: string;
    coverage: { toggle: { total: number } };
    holes: { file: string }[];
  };
  assert.equal(report.status, 'ok');
  // 8-bit a and y in both modules plus the clocks: more toggle points than a 4-bit build has.
  assert.ok(report.coverage.toggle.total >= 34, JSON.stringify(report.coverage));
});

test('coverage -D overrides a filelist define: W=4 fails the testbench check', async () => {
  const r = await runCli(
    ['coverage', '--filelist', 'design.f', '-D', 'W=4', '--tb', 'tb_fl_top.sv', '--top', 'fl_top', '--json'],
    { cwd: FIX, env },
  );
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /W is 4, not 8/);
});

test('prompt --filelist gives the model every listed file', async () => {
  const r = await runCli(['prompt', '--filelist', 'design.f', '--top', 'fl_top'], { cwd: FIX, env });
  assert.equal(r.code, 0, r.stderr);
  const text = JSON.stringify(JSON.parse(r.stdout));
  assert.match(text, /module fl_top/);
  assert.match(text, /module fl_leaf/);
});

test('generate on a design with WIDTH warnings builds, simulates and lists them as warnings', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-lint-'));
  try {
    const out = join(dir, 'tb_alu_width.sv');
    const r = await runCli(
      [
        'generate',
        join(LINT, 'alu_width.v'),
        '--engine',
        'random',
        '--budget-seconds',
        '5',
        '--seed',
        '1',
        '--out',
        out,
        '--json',
      ],
      { env },
    );
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const result = JSON.parse(r.stdout) as {
      top: string;
      coverage: { line: { covered: number } };
      designWarnings: { file: string; line: number; message: string }[];
      diagnostics: { message: string }[];
    };
    assert.equal(result.top, 'alu_width');
    assert.ok(result.coverage.line.covered > 0);
    assert.ok(
      result.designWarnings.some((w) => /Operator EQ expects 33 bits.*\[WIDTH\]/.test(w.message)),
      JSON.stringify(result.designWarnings),
    );
    assert.ok(result.designWarnings.every((w) => w.file.endsWith('alu_width.v')));
    assert.ok(!result.diagnostics.some((d) => /\[WIDTH\]/.test(d.message)), JSON.stringify(result.diagnostics));
    assert.ok(existsSync(out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('generate --filelist: RTL from two folders, found through a nested -F list', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-fl-'));
  try {
    const out = join(dir, 'tb_plain_top.sv');
    const r = await runCli(
      [
        'generate',
        '--filelist',
        'plain.f',
        '--top',
        'plain_top',
        '--engine',
        'random',
        '--budget-seconds',
        '5',
        '--seed',
        '1',
        '--out',
        out,
        '--json',
      ],
      { cwd: FIX, env },
    );
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const result = JSON.parse(r.stdout) as {
      top: string;
      coverage: { line: { covered: number } };
      holes: { file: string }[];
    };
    assert.equal(result.top, 'plain_top');
    assert.ok(result.coverage.line.covered > 0, JSON.stringify(result.coverage));
    assert.ok(existsSync(out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("coverage lists the design's lint warnings apart from the testbench's diagnostics", async () => {
  const r = await runCli(
    ['coverage', join(LINT, 'alu_width.v'), '--tb', join(LINT, 'tb_alu_width.sv'), '--top', 'alu_width'],
    { env },
  );
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const [before, after] = r.stdout.split('Warnings in the design (lint, not fatal)');
  assert.ok(after, r.stdout);
  assert.match(after, /alu_width\.v:3:\d+: warning: Operator EQ expects 33 bits.*\[WIDTH\]/);
  assert.match(after, /\[CASEINCOMPLETE\]/);
  // The testbench's own WIDTH warning is a diagnostic of the testbench.
  assert.match(before, /tb_alu_width\.sv:\d+:\d+: warning: .*\[WIDTH\]/);
});

test('a filelist with -v/-y libraries: only the library modules the design uses are added, and the sources give the top', async () => {
  const r = await runCli(['inspect', '--filelist', 'libs.f', '--json'], { cwd: LIBS, env });
  assert.equal(r.code, 0, r.stderr);
  const a = JSON.parse(r.stdout) as { modules: { name: string }[]; top: string };
  // cells.v is compiled whole (its unused lib_unused_cell too, as a simulator's -v would read it), ydir/lib_unused.sv not at all.
  assert.deepEqual(
    a.modules.map((m) => m.name),
    ['lib_top', 'lib_and', 'lib_unused_cell', 'lib_or', 'lib_inv'],
  );
  assert.equal(a.top, 'lib_top');
  // fl_top uses no library module: top.f's -v/-y add nothing.
  const plain = await runCli(['inspect', '--filelist', 'top.f', '--json'], { cwd: FIX, env });
  assert.equal(plain.code, 0, plain.stderr);
  assert.ok(!(JSON.parse(plain.stdout) as { modules: { name: string }[] }).modules.some((m) => m.name === 'fl_lib'));
});

test('a module defined twice in a filelist exits 2 naming both files', async () => {
  const r = await runCli(['inspect', '--filelist', 'dup.f'], { cwd: LIBS, env });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /Module 'dup_cell' is defined twice, in \S*dup\/a\.sv and \S*dup\/b\.sv/);
});
