/**
 * The build cache's byte cap holds across a bench run: through the built CLI, `chorus bench` on three small items
 * whose simulators together pass a small `--cache-max` leaves `chorus cache info` at or under that cap.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';
import { limitMs } from '../helpers/time-limits';

/**
 * Measured with an empty cache: one simulator is about 215 KiB, Verilator's runtime objects 330 KiB, ccache about
 * 150 KiB, so three simulators (1.1 MiB in all) pass an 800 KiB cap. The bench took 27.6 s at load average 4.6.
 */
const CAP = 800 * 1024;
const BENCH_MS = limitMs(27_600, 4.6);

function item(example: string) {
  return {
    id: example,
    rtl_files: [
      { name: `${example}.sv`, content: readFileSync(join(repoRoot, 'examples', example, `${example}.sv`), 'utf8') },
    ],
    spec_files: [],
    dut_module_name: example,
    dut_instance_name: 'uut',
    instruction: 'stimulus only',
    targets: [{ inst_name: 'uut', metric: 'line', target_percentage: 100 }],
    difficulty: 'easy',
    is_agentic: false,
  };
}

interface Info {
  totalBytes: number;
  capBytes: number;
  builds: { count: number };
}

test('chorus bench whose builds pass --cache-max leaves chorus cache info under the cap', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-bench-cache-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { CHORUS_CACHE_DIR: join(dir, 'cache') };
  const dataset = join(dir, 'items.jsonl');
  writeFileSync(dataset, ['counter', 'vending', 'alu'].map((e) => JSON.stringify(item(e))).join('\n') + '\n');
  const cap = `${CAP / 1024}K`;
  const bench = await runCli(
    ['bench', dataset, '--engine', 'random', '--samples', '1', '--budget-seconds', '2', '--cache-max', cap, '--json'],
    {
      cwd: dir,
      env,
      timeoutMs: BENCH_MS,
    },
  );
  assert.equal(bench.code, 0, bench.stderr);
  const report = JSON.parse(bench.stdout) as { items: number; compile_rate: number };
  assert.equal(report.items, 3);
  assert.equal(report.compile_rate, 1, 'every item built its simulator');

  const r = await runCli(['cache', 'info', '--json', '--cache-max', cap], { cwd: dir, env });
  assert.equal(r.code, 0, r.stderr);
  const info = JSON.parse(r.stdout) as Info;
  assert.equal(info.capBytes, CAP);
  assert.ok(info.totalBytes <= CAP, `${info.totalBytes} bytes in the cache after the bench, over the ${CAP}-byte cap`);
  assert.ok(info.builds.count < 3, `simulators were evicted to stay under the cap (${info.builds.count} of 3 kept)`);
});
