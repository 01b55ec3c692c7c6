/**
 * Complementary experts: two replay experts, each closing a design the other cannot. Alone each closes
 * one item; as an ensemble (one candidate each per round, the simulator keeps the best) they close both, and the
 * bench reports which expert won each item, the closes per expert and the oracle beside Pass@1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';
import { counterClose, counterResetOnly, fifoRecorded, fifoResetOnly } from '../helpers/expertReplies';

const fifoClose = fifoRecorded[0];

interface BenchJson {
  pass_at_1: number;
  results: {
    id: string;
    pass: boolean;
    experts?: { kept?: string; rounds: (string | null)[]; experts: string[]; closedBy: string[] };
  }[];
  experts?: {
    rows: { expert: string; wins: number; closes: number }[];
    oracle: number;
    ensemble: number;
    items: number;
  };
}

test('complementary replay experts: each alone closes one design, the ensemble closes both and the bench names the winners', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-bench-experts-'));
  const read = (example: string, file: string) => readFileSync(join(repoRoot, 'examples', example, file), 'utf8');
  const items = [
    {
      id: 'counter',
      rtl_files: [{ name: 'counter.sv', content: read('counter', 'counter.sv') }],
      spec_files: [],
      dut_module_name: 'counter',
      dut_instance_name: 'uut',
      targets: [{ inst_name: 'uut', metric: 'line', target_percentage: 100 }],
    },
    {
      id: 'fifo',
      rtl_files: [{ name: 'fifo.sv', content: read('fifo', 'fifo.sv') }],
      spec_files: [],
      dut_module_name: 'fifo',
      dut_instance_name: 'uut',
      targets: [{ inst_name: 'uut', metric: 'line', target_percentage: 50 }],
    },
  ];
  const dataset = join(dir, 'items.jsonl');
  writeFileSync(dataset, items.map((i) => JSON.stringify(i)).join('\n') + '\n');
  // Replies are taken in order across items. Alone (2 generations an item): the counter expert closes the counter and
  // fails the FIFO twice; the FIFO expert fails the counter (once with a FIFO testbench) and closes the FIFO. Together
  // (one candidate each per round) an item stops at the round that closes it, so each uses its first two replies.
  const counterExpert = join(dir, 'counter-expert.json');
  const fifoExpert = join(dir, 'fifo-expert.json');
  writeFileSync(counterExpert, JSON.stringify({ responses: [counterClose, fifoResetOnly, fifoResetOnly] }));
  writeFileSync(fifoExpert, JSON.stringify({ responses: [counterResetOnly, fifoClose, fifoClose] }));

  const bench = async (experts: string[], extra: string[] = []) => {
    // Formal is off: the engine's proofs on the items left open are not what this test is about.
    const r = await runCli(
      [
        'bench',
        dataset,
        '--engine',
        'llm',
        ...experts.flatMap((e) => ['--expert', `replay:${e}`]),
        '--rounds',
        '1',
        '--seed',
        '3',
        '--no-formal',
        '--json',
        ...extra,
      ],
      {
        timeoutMs: 400_000,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as BenchJson;
  };
  const passed = (b: BenchJson) => b.results.filter((r) => r.pass).map((r) => r.id);

  assert.deepEqual(
    passed(await bench([counterExpert])),
    ['counter'],
    'the counter expert alone closes only the counter',
  );
  assert.deepEqual(passed(await bench([fifoExpert])), ['fifo'], 'the FIFO expert alone closes only the FIFO');

  const out = join(dir, 'out');
  const ensemble = await bench([counterExpert, fifoExpert], ['--out', out]);
  assert.deepEqual(passed(ensemble), ['counter', 'fifo'], 'together they close the union');
  assert.equal(ensemble.pass_at_1, 1);
  const label = (file: string) => `replay:${file}`;
  const [counterItem, fifoItem] = ensemble.results;
  assert.equal(counterItem.experts?.kept, label(counterExpert));
  assert.deepEqual(counterItem.experts?.rounds, [label(counterExpert)]);
  assert.deepEqual(counterItem.experts?.closedBy, [label(counterExpert)]);
  assert.equal(fifoItem.experts?.kept, label(fifoExpert));
  assert.deepEqual(fifoItem.experts?.closedBy, [label(fifoExpert)]);
  assert.deepEqual(ensemble.experts, {
    rows: [
      { expert: label(counterExpert), wins: 1, closes: 1 },
      { expert: label(fifoExpert), wins: 1, closes: 1 },
    ],
    oracle: 2,
    ensemble: 2,
    items: 2,
  });

  // The written summary has the expert table (the terminal report prints the same).
  const summary = readFileSync(join(out, 'summary.md'), 'utf8');
  assert.match(summary, /## Experts/);
  assert.match(summary, /Oracle \(items any expert closes\): 2\/2 \(100\.0%\) · ensemble Pass@1: 2\/2/);
});
