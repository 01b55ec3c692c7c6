/**
 * The testbench's table measured as it is written: one harness run reads the kept sequences from its standard input
 * while the search goes on, and its coverage is the testbench's, with no second simulation at the finish. Forced on
 * a small design here (off by default; 'costly' starts it only where a run's start is costly, a core); the emitted testbench,
 * built and simulated on its own, must reach exactly what the run reported. Real Verilator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareRun } from '../../src/engine/context';
import { runSearch } from '../../src/engine/search/search';
import type { Logger } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { resimulate } from '../helpers/resimulate';

// A deep counter's point and an arm a parameter disables: without the formal stage the search runs to its budget,
// so the finish appends a plain random tail.
const file = join(repoRoot, 'test', 'fixtures', 'formal', 'beside.sv');
const BUDGET_MS = 12_000;

function recording(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const keep = (m: string) => void lines.push(m);
  return { logger: { debug: keep, info: keep, warn: keep, error: keep }, lines };
}

async function search(liveTable: 'always' | 'never', rtl = file) {
  const { logger, lines } = recording();
  const ctx = await prepareRun({
    rtlFiles: [rtl],
    engine: 'random',
    targets: { line: 100, branch: 100 },
    workDir: mkdtempSync(join(tmpdir(), 'chorus-live-')),
  });
  const out = await runSearch(
    ctx,
    { logger, signal: new AbortController().signal },
    { seed: 2, budgetMs: BUDGET_MS, formal: null, liveTable },
    () => {},
  );
  return { out, lines };
}

test(
  'a table measured as it is written reports what its testbench reaches on its own',
  { timeout: 300_000 },
  async () => {
    const started = Date.now();
    const { out, lines } = await search('always');
    const elapsed = Date.now() - started;
    assert.equal(out.result.stopReason, 'budget', 'the disabled arm is out of reach');
    assert.ok(
      lines.some((l) => /the testbench's table is measured as its sequences are kept/.test(l)),
      `the live table started: ${lines.filter((l) => /search:/.test(l)).join(' | ')}`,
    );
    const summary = lines.map((l) => /the live table: (\d+) sequence\(s\), (\d+) cycles/.exec(l)).find(Boolean);
    assert.ok(summary, `the live table finished: ${lines.filter((l) => /search:/.test(l)).join(' | ')}`);
    assert.ok(!lines.some((l) => /measured on its own/.test(l)), 'no fallback to a second measurement');
    assert.ok(
      lines.some((l) => /plain random tail of \d+ cycles/.test(l)),
      'the tail went into the live table',
    );
    // Every kept sequence is in the table, in the order found.
    const sequences = Number(summary[1]);
    // (Each sequence is named where its rows are listed and where it is played.)
    const named = new Set(out.result.testbench.match(/\/\/ sequence \d+:/g) ?? []);
    assert.equal(named.size, sequences);
    // Within the budget and its margin: the finish waits only for the rows the run had not yet simulated.
    assert.ok(elapsed < BUDGET_MS * 1.1 + 10_000, `${elapsed} ms`);

    const own = await resimulate([file], 'beside', out.result.testbench);
    assert.equal(own.status, 'ok');
    assert.deepEqual(own.coverage, out.result.coverage);
    assert.ok(out.result.coverage.line.covered > 0);
  },
);

test('without it the finish measures the table once, as before', { timeout: 300_000 }, async () => {
  const { out, lines } = await search('never');
  assert.ok(!lines.some((l) => /measured as its sequences are kept|the live table/.test(l)));
  assert.ok(lines.some((l) => /the testbench keeps \d+ of \d+ sequences/.test(l)));
  const own = await resimulate([file], 'beside', out.result.testbench);
  assert.deepEqual(own.coverage, out.result.coverage);
});

test(
  'a live run the design ends before its rows leaves the table to the finish, which measures it on its own',
  {
    timeout: 300_000,
  },
  async () => {
    // The design's own $finish on a code random stimulus soon sends: the first kept sequence ends the live run, and
    // the hold kept after it is never simulated there.
    const design = join(repoRoot, 'test', 'fixtures', 'engine', 'finish_on_code.sv');
    const { out, lines } = await search('always', design);
    const searchLines = () => lines.filter((l) => /search:/.test(l)).join(' | ');
    assert.ok(
      lines.some((l) => /the testbench's table is measured as its sequences are kept/.test(l)),
      searchLines(),
    );
    assert.ok(
      lines.some((l) => /the live table's run ended before its rows/.test(l)),
      searchLines(),
    );
    assert.ok(
      !lines.some((l) => /the live table: \d+ sequence/.test(l)),
      'the live run is not taken as the measurement',
    );
    assert.ok(
      lines.some((l) => /the testbench keeps \d+ of \d+ sequences/.test(l)),
      searchLines(),
    );
    const own = await resimulate([design], 'finish_on_code', out.result.testbench);
    assert.equal(own.status, 'ok');
    assert.deepEqual(own.coverage, out.result.coverage, 'the testbench alone reaches what the run reported');
    assert.ok(out.result.coverage.line.covered > 0);
  },
);
