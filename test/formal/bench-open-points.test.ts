/**
 * `chorus bench` reports, per item, how many line/branch points are left neither covered nor proven unreachable:
 * a design whose holes are all parameter-disabled code (test/fixtures/formal/paramcheck.sv), with the formal engine
 * (closed, none left) and without it (every hole left).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchMarkdown } from '../../src/cli/bench/report';
import { runBench } from '../../src/cli/bench/run';
import { parseItems } from '../../src/cli/bench/schema';
import { silentLogger } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';

const file = join(repoRoot, 'test', 'fixtures', 'formal', 'paramcheck.sv');
const line = JSON.stringify({
  id: 'paramcheck',
  rtl_files: [{ name: 'paramcheck.sv', content: readFileSync(file, 'utf8') }],
  dut_module_name: 'paramcheck',
  targets: [{ inst_name: 'uut', metric: 'line', target_percentage: 100 }],
});

async function bench(formal: boolean) {
  const report = await runBench(
    parseItems(`${line}\n`),
    {
      engine: 'random',
      samples: 1,
      concurrency: 1,
      // The budget counts the build: with the formal engine the run ends once the rest is proven; without it, at 5 s.
      budgetSeconds: formal ? 60 : 5,
      seed: 1,
      workDir: mkdtempSync(join(tmpdir(), 'chorus-bench-open-')),
      formal,
    },
    { logger: silentLogger, signal: new AbortController().signal },
  );
  return { result: report.results[0], markdown: benchMarkdown(report, 'open points') };
}

test(
  'bench: the points neither covered nor proven, per item, with the formal engine and without it',
  { timeout: 240_000 },
  async () => {
    const on = await bench(true);
    assert.equal(on.result.error, undefined, on.result.error);
    assert.equal(on.result.closed, true, JSON.stringify(on.result));
    assert.equal(on.result.open_points, 0);
    assert.ok((on.result.formal?.proven ?? 0) >= 4, JSON.stringify(on.result.formal));
    assert.match(on.markdown, /\| paramcheck \| yes \| \d+ \| 0 \| 0 \| 0 \| [\d.]+ s \|/);

    // Without it the parameter-disabled arms stay open: the initial block's three, the always block's one.
    const off = await bench(false);
    assert.equal(off.result.closed, false);
    assert.equal(off.result.open_points, 4, JSON.stringify(off.result.open));
    assert.match(off.markdown, /## Items not closed \(1\)[\s\S]*\| paramcheck \| 4 \|/);
  },
);
