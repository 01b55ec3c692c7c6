/** `chorus bench --engine llm` on a replay set: the same seed gives the same results, run after run. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';
import { replayModel } from '../helpers/replay';

const recorded = (
  JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8')) as { responses: string[] }
).responses;

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

test('bench --engine llm on a replay set: identical results across two runs with the same seed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-bench-llm-'));
  const fifo = readFileSync(join(repoRoot, 'examples', 'fifo', 'fifo.sv'), 'utf8');
  const spec = readFileSync(join(repoRoot, 'examples', 'fifo', 'fifo.md'), 'utf8');
  const item = (id: string, pct: number) => ({
    id,
    rtl_files: [{ name: 'fifo.sv', content: fifo }],
    spec_files: [{ name: 'fifo.md', content: spec }],
    dut_module_name: 'fifo',
    dut_instance_name: 'uut',
    instruction: 'Exercise overrun and underrun.',
    targets: [{ inst_name: 'uut', metric: 'line', target_percentage: pct }],
  });
  const dataset = join(dir, 'items.jsonl');
  writeFileSync(
    dataset,
    [item('fifo-line-100', 100), item('fifo-line-50', 50)].map((i) => JSON.stringify(i)).join('\n') + '\n',
  );
  // Item 1: a whole testbench, then the patch that closes it; item 2: the whole testbench meets 50% at once.
  const responses = [recorded[0], recorded[1], recorded[0]];
  const once = async () => {
    const r = await runCli(
      ['bench', dataset, '--engine', 'llm', '--model', replayModel(responses), '--seed', '5', '--json'],
      { timeoutMs: 300_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as { results: { id: string; pass: boolean; rounds: number }[] };
  };
  const first = await once();
  const second = await once();
  assert.deepEqual(
    first.results.map((x) => [x.id, x.pass, x.rounds]),
    [
      ['fifo-line-100', true, 2],
      ['fifo-line-50', true, 1],
    ],
  );
  assert.deepEqual(withoutTimes(second), withoutTimes(first));
});
