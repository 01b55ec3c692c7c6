// The wire and adapter folders type-check with noUncheckedIndexedAccess (scripts/typecheck-indexed.mjs), and the
// check finds an unchecked index there and only there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/cli';
import { limitMs } from '../helpers/time-limits';

const script = join(repoRoot, 'scripts', 'typecheck-indexed.mjs');
const UNCHECKED = 'const a: number[] = [];\nexport const n: number = a[0];\n';
// Measured: the whole program in 15.7 s at load average 2.7 (a test file's own program, 3.9 s).
const WHOLE_PROGRAM_MS = limitMs(15_700, 2.7, 120_000);
// The analysis and search folders, which index arrays they built themselves, are left out of the check.
const UNCHECKED_FOLDERS = ['src/engine', 'src/formal', 'src/hdl', 'src/sim'];

test('the wire and adapter folders have no unchecked indexed access', () => {
  const r = spawnSync(process.execPath, [script], { cwd: repoRoot, encoding: 'utf8', timeout: WHOLE_PROGRAM_MS });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  assert.equal(r.stdout, '');
});

test('an unchecked index is an error in every checked folder and in none of the others', async () => {
  const { CHECKED_FOLDERS, indexedAccessDiagnostics, formatDiagnostics } =
    await import('../../scripts/typecheck-indexed.mjs');
  const probe = (folder: string) => `${folder}/indexed-probe.ts`;
  const files = Object.fromEntries([...CHECKED_FOLDERS, ...UNCHECKED_FOLDERS].map((f) => [probe(f), UNCHECKED]));
  // A narrowed read is no error anywhere.
  files['src/protocol/indexed-narrowed.ts'] = 'const a: number[] = [];\nexport const n: number = a[0] ?? 0;\n';
  const out = formatDiagnostics(indexedAccessDiagnostics({ root: repoRoot, files }), repoRoot);
  const flagged = [...out.matchAll(/^(\S+)\(2,14\): error TS2322: /gm)].map((m) => m[1]);
  assert.deepEqual(flagged.sort(), CHECKED_FOLDERS.map(probe).sort(), out);
  assert.equal(out.split('\n').filter((l) => / error TS\d+: /.test(l)).length, CHECKED_FOLDERS.length, out);
  // Every folder of src is checked but the four: a new one is checked unless it is deliberately left out.
  const folders = readdirSync(join(repoRoot, 'src'), { withFileTypes: true }).filter((d) => d.isDirectory());
  assert.deepEqual(
    [...CHECKED_FOLDERS].sort(),
    folders
      .map((d) => `src/${d.name}`)
      .filter((f) => !UNCHECKED_FOLDERS.includes(f))
      .sort(),
  );
});

test('the command prints tsc-style errors and exits 1 when a checked folder has one', () => {
  const root = mkdtempSync(join(tmpdir(), 'chorus-indexed-'));
  try {
    const tsconfig = { compilerOptions: { strict: true, noEmit: true, types: [] }, include: ['src/**/*.ts'] };
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify(tsconfig));
    for (const folder of ['src/serve', 'src/engine']) {
      mkdirSync(join(root, folder), { recursive: true });
      writeFileSync(join(root, folder, 'probe.ts'), UNCHECKED);
    }
    const r = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8', timeout: limitMs(3_900, 2.7) });
    assert.equal(r.status, 1, `${r.stdout}${r.stderr}`);
    assert.match(
      r.stdout,
      /^src\/serve\/probe\.ts\(2,14\): error TS2322: Type 'number \| undefined' is not assignable/m,
    );
    assert.doesNotMatch(r.stdout, /src\/engine/);
    assert.match(r.stderr, /1 error\(s\) under noUncheckedIndexedAccess/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
