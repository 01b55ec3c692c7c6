/**
 * The model-free search on designs of the shapes where plain random and a search that stalls fall short: a core
 * that traps on a bad instruction (only a reset leaves it), a watchdog armed by an input and then left alone for a
 * million cycles, a UART receiver whose 16-bit prescale must be small, an open-drain bus master that reads its
 * line back (arbitration lost, acknowledge). Each closes for seeds 1-3 (within 60 s on a quiet machine), and its
 * emitted testbench alone reaches what the run reported. Also: the budget counts the build, and plain random segments
 * the testbench regenerates from their seed drive exactly the values the search ran.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { generateToEnd, type GenerateRequest } from '../../src/engine';
import { silentLogger, type LoopEvent } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { resimulate } from '../helpers/resimulate';

const fixture = (name: string) => join(repoRoot, 'test', 'fixtures', 'engine', 'processors', `${name}.sv`);

/**
 * The shapes close within 60 s on a quiet machine (docs/benchmarks.md measures that); under the load CI runs at
 * (several builds on 2 cores) the same search needs several times the wall time, so the budget here is a wide
 * safety net: a run that closes ends there, at its targets, and only one that cannot runs it out.
 */
const BUDGET_SECONDS = 240;

function run(file: string, extra: Partial<GenerateRequest> = {}, events: LoopEvent[] = []) {
  return generateToEnd(
    {
      rtlFiles: [file],
      engine: 'random',
      targets: { line: 100, branch: 100 },
      seed: 1,
      budgetSeconds: BUDGET_SECONDS,
      ...extra,
    },
    { logger: silentLogger, signal: new AbortController().signal },
    (e) => events.push(e),
  );
}

for (const name of ['trap_core', 'watchdog', 'uart_rx_prescale', 'od_master']) {
  for (const seed of [1, 2, 3]) {
    test(
      `${name}, seed ${seed}: closed, and the testbench alone reaches the same points`,
      { timeout: 600_000 },
      async () => {
        const result = await run(fixture(name), { seed });
        assert.equal(
          result.closed,
          true,
          `${name} seed ${seed}: ${JSON.stringify(result.coverage)}, stop ${result.stopReason}`,
        );
        assert.notEqual(result.stopReason, 'stalled');
        const own = await resimulate([fixture(name)], name, result.testbench);
        assert.equal(own.status, 'ok');
        assert.deepEqual(own.coverage, result.coverage);
      },
    );
  }
}

test('the budget counts the build: a run that cannot close ends within 1.1x its budget, never stalled', async () => {
  const budgetSeconds = 15;
  const debug: string[] = [];
  const warnings: string[] = [];
  const logger = { ...silentLogger, debug: (m: string) => debug.push(m), warn: (m: string) => warnings.push(m) };
  const t0 = Date.now();
  const result = await generateToEnd(
    {
      rtlFiles: [fixture('slow_count')],
      engine: 'random',
      targets: { line: 100, branch: 100 },
      seed: 1,
      budgetSeconds,
      formal: false,
    },
    { logger, signal: new AbortController().signal },
    () => {},
  );
  const wall = Date.now() - t0;
  // The time the finish has left after shrinking goes to a plain random tail, measured with the testbench; on a
  // machine busy enough that shrinking took that time, the finish says there was none to fill.
  const tail = debug.find((m) => /a plain random tail of \d+ cycles/.test(m));
  const none = debug.find((m) => /no plain random tail: -?\d+ ms spare holds fewer than/.test(m));
  assert.ok(
    tail || none,
    `the finish neither added a tail nor said why not:\n${debug.filter((m) => m.startsWith('search:')).join('\n')}`,
  );
  if (tail) assert.match(result.testbench, /chorus_play_random\(/);
  const own = await resimulate([fixture('slow_count')], 'slow_count', result.testbench);
  assert.equal(own.status, 'ok');
  assert.deepEqual(own.coverage, result.coverage, 'the testbench with its tail alone reaches the reported points');
  assert.equal(result.stopReason, 'budget');
  // A build that leaves less than half the budget gives the search half the budget after it, and the run says
  // when it will end (SearchBudget.afterBuild): that is the end it must keep, within 10%.
  const promised = warnings.map((m) => /this run ends about (\d+) s after it started/.exec(m)).find(Boolean);
  const endMs = Math.max(budgetSeconds, promised ? Number(promised[1]) : 0) * 1000;
  const bound = 1.1 * endMs;
  assert.ok(wall <= bound, `ran ${wall} ms, bound ${Math.round(bound)} ms (${promised?.[0] ?? 'no slow build'})`);
  assert.ok(wall >= budgetSeconds * 1000 * 0.7, `ran ${wall} ms: it should use its budget, not stop early`);
});

test('plain random segments the testbench regenerates drive exactly the values the search ran, wide inputs too', async () => {
  const file = fixture('wide_inputs');
  const result = await run(file, { targets: { line: 100, branch: 100, toggle: 100 }, budgetSeconds: 20 });
  assert.match(result.testbench, /chorus_play_random\(32'h[0-9a-f]{8}, 32'h[0-9a-f]{8}, \d+\);/);
  const own = await resimulate([file], 'wide_inputs', result.testbench);
  assert.equal(own.status, 'ok');
  // Toggle coverage of every bit of every input: a value off by one bit shows.
  assert.deepEqual(own.coverage, result.coverage);
  assert.ok(result.coverage.toggle.covered > 0);
});
