/**
 * A protocol point 300 cycles deep in a 60 s run: the search trains the link, the formal stage finds the accept
 * arm's frame from the state a kept sequence reached, and the emitted testbench alone hits it in Verilator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { generateToEnd } from '../../src/engine';
import { repoRoot } from '../helpers/cli';
import { measureTestbench, services } from '../formal/support';

test(
  'link_train: closed by a witness from a reached state, replayed by the testbench alone',
  { timeout: 600_000 },
  async () => {
    const file = join(repoRoot, 'test', 'fixtures', 'formal', 'link_train.sv');
    const r = await generateToEnd(
      // 60 s closes it on a quiet machine (docs/benchmarks.md); 240 s is a safety net for CI's load, under which the
      // formal stage's bound (half the budget) once ran out first. A closed run ends at its targets.
      { rtlFiles: [file], engine: 'random', targets: { line: 100, branch: 100 }, seed: 1, budgetSeconds: 240 },
      services(),
    );
    assert.equal(r.coverage.branch.covered, r.coverage.branch.total, JSON.stringify(r.coverage));
    assert.ok(r.formal && r.formal.witnesses >= 1, JSON.stringify(r.formal));
    assert.match(r.testbench, /formal witness for link_train\.sv:\d+/);

    // The testbench on its own (measureTestbench fails unless its run is ok).
    const points = await measureTestbench([file], 'link_train', r.testbench);
    const accept =
      readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes("accepted <= 1'b1")) + 1;
    // The accept arm is the `if` branch of its line (Verilator gives the line no line point of its own).
    const pts = points.filter(
      (p) => basename(p.file) === 'link_train.sv' && p.line === accept && p.kind === 'branch' && p.comment === 'if',
    );
    assert.equal(pts.length, 1, JSON.stringify(points.filter((p) => p.line === accept)));
    assert.ok(pts[0].count > 0, `the accept arm (line ${accept}) is hit by the emitted testbench`);
  },
);
