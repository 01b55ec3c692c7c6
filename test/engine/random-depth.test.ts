/**
 * Deep state without a model: counters compared with large constants (a calendar rolling seconds into days, a
 * watchdog that bites after 1,000,000 quiet cycles, a baud-rate divider chained into a bit and frame counter)
 * are closed by holding the counting condition, a clock kept in bit slices by holding every enable high, and
 * the emitted testbench stays compact and reaches the same points when simulated on its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateToEnd } from '../../src/engine';
import { analyzeFiles, countersOf, fsmModelsOfFiles } from '../../src/hdl';
import { lineCoverage, measureCoverage } from '../../src/sim';
import { silentLogger } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';

const deep = (name: string) => join(repoRoot, 'test', 'fixtures', 'engine', 'deep', `${name}.sv`);

async function counters(name: string) {
  const file = deep(name);
  const analysis = await analyzeFiles([file]);
  return countersOf(analysis, name, new Map([[file, readFileSync(file, 'utf8')]]));
}

test('analysis finds counters, their limits, their clears and the counters they wait on', async () => {
  const cal = await counters('calendar');
  const by = new Map(cal.map((c) => [c.name, c]));
  assert.deepEqual([...by.keys()].sort(), ['day', 'hour', 'min', 'sec']);
  assert.deepEqual(by.get('sec')!.limits, [59n]);
  assert.deepEqual(by.get('hour')!.limits, [23n]);
  assert.deepEqual(by.get('sec')!.dependsOn, []);
  assert.deepEqual(by.get('day')!.dependsOn.sort(), ['hour', 'min', 'sec']);
  assert.ok(by.get('sec')!.countWhen.includes('tick'));
  assert.ok(
    by.get('sec')!.loads.some((l) => l.when.includes('clear') && l.value === 0n),
    'clear is a load of sec',
  );

  const [wd] = await counters('watchdog');
  assert.equal(wd.name, 'count');
  assert.equal(wd.direction, 'up');
  assert.deepEqual(wd.limits, [999_999n], 'TIMEOUT - 1 evaluated from the parameter');

  const baud = new Map((await counters('baud_divider')).map((c) => [c.name, c]));
  assert.deepEqual(baud.get('div_count')!.limits, [324n], 'CLK_HZ / (BAUD * 16) - 1');
  // sample_count counts on sample_tick, a register set when div_count reaches its limit.
  assert.deepEqual(baud.get('sample_count')!.dependsOn, ['div_count']);
  assert.deepEqual(baud.get('bit_count')!.dependsOn.sort(), ['div_count', 'sample_count']);
});

const cases: { name: string; deepest: number }[] = [
  { name: 'calendar', deepest: 604_800 },
  { name: 'watchdog', deepest: 1_000_000 },
  { name: 'baud_divider', deepest: 52_000 },
  // Counters in bit slices of one register: no counter hold, the hold of every enable reaches midnight.
  { name: 'bcd_clock', deepest: 86_400 },
];

for (const { name, deepest } of cases) {
  // The safety nets are wide: these close in 10-35 s on a quiet 2-core machine, mostly the harness build, and in
  // over 60 s under CI's load (the deep holds are sized by the measured speed); a run that closes ends at its targets.
  test(
    `${name}: every line and branch point is closed, and the testbench alone reaches the same points`,
    { timeout: 600_000 },
    async () => {
      const file = deep(name);
      const outcome = await generateToEnd(
        { rtlFiles: [file], engine: 'random', targets: { line: 100, branch: 100 }, seed: 1, budgetSeconds: 240 },
        { logger: silentLogger, signal: new AbortController().signal },
        () => {},
      );
      assert.deepEqual(
        outcome.holes.filter((h) => h.kind !== 'toggle').map((h) => `${h.line} ${h.detail}`),
        [],
        `${name}: line or branch holes left`,
      );
      assert.equal(outcome.pass, true);
      // Compact: the deep hold is one table row with its cycle count, not a line per cycle.
      const holds = [...outcome.testbench.matchAll(/\{32'd(\d+),/g)].map((m) => Number(m[1]));
      assert.ok(
        Math.max(...holds) >= deepest,
        `${name}: a row holds at least ${deepest} cycles (longest ${Math.max(...holds)})`,
      );
      assert.ok(outcome.testbench.split('\n').length < 400, `${name}: the testbench stays short`);

      const dir = mkdtempSync(join(tmpdir(), `chorus-deep-${name}-`));
      const tb = join(dir, `tb_${name}.sv`);
      writeFileSync(tb, outcome.testbench);
      const own = await measureCoverage(
        { dutFiles: [file], testbench: tb, dutTop: name, timeoutMs: 120_000, fsms: await fsmModelsOfFiles([file]) },
        { logger: silentLogger, workspaceRoot: dir },
      );
      assert.equal(own.status, 'ok');
      assert.equal(
        own.bounded ?? false,
        false,
        'the testbench ends by $finish, inside the default simulated-time bound',
      );
      assert.deepEqual(own.coverage, outcome.coverage);
      // Point by point: every line's hits and every branch arm's count are the ones the engine reported.
      assert.deepEqual(lineCoverage(own.points), outcome.lines);
    },
  );
}

test(
  'without a reset input, the testbench still reaches every point its sequences reached',
  { timeout: 600_000 },
  async () => {
    // Each sequence was found from power-up; in the testbench all but the first start where the previous one ended.
    const file = deep('load_timer');
    const outcome = await generateToEnd(
      { rtlFiles: [file], engine: 'random', targets: { line: 100, branch: 100 }, seed: 1, budgetSeconds: 240 },
      { logger: silentLogger, signal: new AbortController().signal },
      () => {},
    );
    assert.deepEqual(
      outcome.holes.filter((h) => h.kind !== 'toggle').map((h) => `${h.line} ${h.detail}`),
      [],
    );
    const dir = mkdtempSync(join(tmpdir(), 'chorus-deep-load_timer-'));
    const tb = join(dir, 'tb_load_timer.sv');
    writeFileSync(tb, outcome.testbench);
    const own = await measureCoverage(
      { dutFiles: [file], testbench: tb, dutTop: 'load_timer', fsms: await fsmModelsOfFiles([file]) },
      { logger: silentLogger, workspaceRoot: dir },
    );
    assert.deepEqual(own.coverage, outcome.coverage);
  },
);
