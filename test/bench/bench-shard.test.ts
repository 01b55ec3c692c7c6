/**
 * `chorus bench --shard i/n` then `chorus bench merge`: with a fixed seed and the model-free search (whose budget
 * shrinks in runs, not time), the merged report has the unsharded run's items, passes and figures.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';

/** The report without its wall times, which differ from run to run. */
function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([k]) => k !== 'ms' && !/_ms$|seconds|per_second/.test(k))
        .map(([k, v]) => [k, withoutTimes(v)]),
    );
  }
  return value;
}

test('bench --shard 1/2 and 2/2, merged, equal the unsharded run', { timeout: 900_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-bench-shard-'));
  const item = (id: string, name: string, pct: number) => ({
    id,
    rtl_files: [{ name: `${name}.sv`, content: readFileSync(join(repoRoot, 'examples', name, `${name}.sv`), 'utf8') }],
    dut_module_name: name,
    dut_instance_name: 'uut',
    instruction: 'Cover every line.',
    targets: [{ inst_name: 'uut', metric: 'line', target_percentage: pct }],
  });
  const dataset = join(dir, 'items.jsonl');
  const items = [item('counter-80', 'counter', 80), item('alu-80', 'alu', 80), item('counter-100', 'counter', 100)];
  writeFileSync(dataset, items.map((i) => JSON.stringify(i)).join('\n') + '\n');
  const common = ['--engine', 'random', '--no-formal', '--seed', '7', '--json'];
  const bench = async (args: string[]) => {
    const r = await runCli(['bench', dataset, ...common, ...args], { timeoutMs: 600_000 });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };
  const whole = await bench([]);
  await bench(['--shard', '1/2', '--out', join(dir, 's1')]);
  await bench(['--shard', '2/2', '--out', join(dir, 's2')]);
  const merged = await runCli(['bench', 'merge', join(dir, 's2'), join(dir, 's1'), '--json'], { timeoutMs: 60_000 });
  assert.equal(merged.code, 0, merged.stderr);
  assert.deepEqual(withoutTimes(JSON.parse(merged.stdout)), withoutTimes(whole));
  const missing = await runCli(['bench', 'merge', join(dir, 's1')], { timeoutMs: 60_000 });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Shard\(s\) 2\/2 missing/);
});
