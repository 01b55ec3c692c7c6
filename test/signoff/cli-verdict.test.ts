/** `chorus generate` on a design that closes on proofs: exit 0, the rule in --help, only missed kinds listed. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';

const design = join(repoRoot, 'test', 'fixtures', 'signoff', 'xmux.sv');

test('generate on a closed design exits 0; --require-raw exits 1 and lists only the kind that misses', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-verdict-'));
  const args = ['generate', design, '--engine', 'random', '--seed', '1', '--out', join(dir, 'tb.sv'), '--force'];
  const json = join(dir, 'summary.json');
  const md = join(dir, 'summary.md');
  const r = await runCli([...args, '--summary-json', json, '--summary-md', md], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const summary = JSON.parse(readFileSync(json, 'utf8'));
  assert.equal(summary.chorus, 'summary');
  assert.deepEqual(summary.raw.branch, { covered: 2, total: 4, pct: 50 });
  assert.deepEqual(summary.verdict.coverage.branch, { covered: 2, total: 2, pct: 100 });
  assert.equal(summary.verdict.met, true);
  assert.equal(summary.verdict.exitCode, 0);
  const comment = readFileSync(md, 'utf8');
  assert.match(comment, /^<!-- chorus summary -->\n### CHORUS coverage: `xmux` — ✅ targets met, closed/);
  assert.match(comment, /^\| branch \| 2\/4 \| 50% \| 2 \| 100% \| 100% \|$/m);
  assert.match(r.stdout, /Targets met\./);
  assert.match(r.stdout, /branch +2\/4 +50\.0% +100\.0% signoff \(2 proven excluded\)/);
  assert.match(r.stdout, /Closed: every line and branch point is covered or proven unreachable \(2\)/);
  const raw = await runCli([...args, '--require-raw', '--json'], { cwd: dir });
  assert.equal(raw.code, 1, raw.stderr);
  const j = JSON.parse(raw.stdout);
  assert.equal(j.pass, false);
  assert.equal(j.closed, true);
  assert.equal(j.verdict.counting, 'raw');
  assert.deepEqual(j.verdict.unmet, [{ metric: 'branch', pct: 50, target: 100 }]);
  const text = await runCli([...args, '--require-raw'], { cwd: dir });
  assert.match(text.stdout, /Targets not met \(raw coverage: --require-raw\): branch 50% of 100%\./);
  assert.doesNotMatch(text.stdout, /line 100%/, 'a met kind is not listed among the missed');
});

test('generate --help states the verdict rule and every exit code', async () => {
  const r = await runCli(['generate', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /--require-raw/);
  assert.match(r.stdout, /proven unreachable[\s\S]*excluded from the kind's total/);
  for (const code of ['0 targets met', '1 not met', '2 bad input', '3 a missing tool', '4 a fault', '130 cancelled'])
    assert.ok(r.stdout.replace(/\s+/g, ' ').includes(code), `--help names exit ${code}`);
});
