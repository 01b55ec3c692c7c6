// Project files through the built CLI: `coverage --filelist <Bender.yml | .core | .slang/server.json |
// verible.filelist>` builds and measures the same design as the hand-written .f (the testbench stops unless the
// define and include folder reached the build); --project-target picks Bender groups; a bad project file exits 2
// naming the file and line.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureFreshCli, repoRoot, runCli } from '../helpers/cli';

const FIX = join(repoRoot, 'test', 'fixtures', 'projects');
const DEPS = join(repoRoot, 'test', 'fixtures', 'projects-bender-deps');
const env = { CHORUS_TEST: '1' };

before(ensureFreshCli);

interface Report {
  status: string;
  coverage: Record<string, { covered: number; total: number }>;
  holes: unknown[];
}

async function measure(list: string, cwd = FIX): Promise<Report> {
  const tb = join(FIX, 'tb', 'tb_acc_top.sv');
  const r = await runCli(['coverage', '--filelist', list, '--tb', tb, '--top', 'acc_top', '--json'], { cwd, env });
  assert.equal(r.code, 0, `${list}: ${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout) as Report;
}

test('coverage --filelist <project file> measures the same design as the hand-written .f', async () => {
  const hand = await measure('hand.f');
  assert.equal(hand.status, 'ok');
  assert.ok(hand.coverage.line.total > 0);
  for (const project of ['Bender.yml', 'acc.core', '.slang/server.json', 'verible.filelist']) {
    const r = await measure(project);
    assert.deepEqual({ coverage: r.coverage, holes: r.holes }, { coverage: hand.coverage, holes: hand.holes }, project);
  }
  // Dependencies from Bender.lock and the .bender checkouts, read from another working folder.
  const deps = await measure(join(DEPS, 'Bender.yml'), tmpdir());
  assert.deepEqual(deps.coverage, (await measure('hand.f', DEPS)).coverage);
});

test('--project-target sets Bender targets: the fpga group in place of the default one', async () => {
  const targets = ['--project-target', 'fpga', '--project-target', 'Xilinx'];
  const r = await runCli(['inspect', '--filelist', 'Bender.yml', ...targets, '--json'], { cwd: FIX, env });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { modules: { name: string }[] };
  assert.deepEqual(
    out.modules.map((m) => m.name),
    ['acc_clock_gate'],
  );
  // fpga alone leaves every group out: no source file, said so.
  const none = await runCli(['inspect', '--filelist', 'Bender.yml', '--project-target', 'fpga'], { cwd: FIX, env });
  assert.equal(none.code, 2, none.stderr);
  assert.match(none.stderr, /Bender\.yml names no source file.*--project-target/);
});

test('a Bender.yml whose dependency is not checked out, or with a bad target, exits 2 naming file and line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-cli-bender-'));
  try {
    cpSync(DEPS, dir, { recursive: true });
    rmSync(join(dir, '.bender'), { recursive: true });
    let r = await runCli(['inspect', '--filelist', 'Bender.yml'], { cwd: dir, env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /Bender\.yml:7: acc_alu is not checked out .*`bender checkout`/);
    writeFileSync(
      join(dir, 'Bender.yml'),
      'package:\n  name: x\nsources:\n  - target: any(rtl sim)\n    files: [a.sv]\n',
    );
    r = await runCli(['inspect', '--filelist', 'Bender.yml'], { cwd: dir, env });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /Bender\.yml:4: Unknown target expression 'any\(rtl sim\)'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
