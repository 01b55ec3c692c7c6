/** The verdict rule (src/engine/verdict.ts): excluded points leave the totals, raw on request, one exit code. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judge } from '../../src/engine/verdict';
import type { CoverageSummary, Hole } from '../../src/protocol';

const summary = (line: [number, number], branch: [number, number]): CoverageSummary => ({
  line: { covered: line[0], total: line[1], pct: line[1] ? Math.floor((line[0] * 1000) / line[1]) / 10 : 100 },
  branch: {
    covered: branch[0],
    total: branch[1],
    pct: branch[1] ? Math.floor((branch[0] * 1000) / branch[1]) / 10 : 100,
  },
  toggle: { covered: 5, total: 6, pct: 83.3 },
});
const hole = (line: number, extra: Partial<Hole>): Hole => ({
  kind: 'branch',
  file: '/d/x.sv',
  line,
  detail: 'if arm never taken',
  ...extra,
});
const proven: Partial<Hole> = { unreachable: 'k-induction, depth 1', proof: { method: 'induction', depth: 1 } };
const targets = { line: 100, branch: 100 };

test('a closed design meets its line and branch targets: proven points are excluded, exit 0', () => {
  const v = judge({
    coverage: summary([1, 1], [2, 4]),
    holes: [hole(10, proven), hole(12, proven), { ...hole(7, {}), kind: 'toggle', detail: 'bad never toggled' }],
    targets,
    ran: true,
    cancelled: false,
  });
  assert.equal(v.counting, 'signoff');
  assert.equal(v.met, true);
  assert.equal(v.closed, true);
  assert.equal(v.exitCode, 0);
  assert.deepEqual(v.unmet, []);
  assert.deepEqual(v.coverage.branch, { covered: 2, total: 2, pct: 100 });
  assert.deepEqual(v.excluded, { branch: { proven: 2, waived: 0 } });
  // Toggle is not targeted: its hole changes neither met nor closed.
  assert.deepEqual(v.coverage.toggle, { covered: 5, total: 6, pct: 83.3 });
});

test('--require-raw judges raw counts, and the summary lists only the kinds that miss', () => {
  const v = judge({
    coverage: summary([1, 1], [2, 4]),
    holes: [hole(10, proven), hole(12, proven)],
    targets,
    ran: true,
    cancelled: false,
    requireRaw: true,
  });
  assert.equal(v.counting, 'raw');
  assert.equal(v.met, false);
  assert.equal(v.exitCode, 1);
  assert.deepEqual(v.unmet, [{ metric: 'branch', pct: 50, target: 100 }], 'line is met, so it is not listed');
  assert.equal(v.closed, true, 'closure is covered-or-excluded whatever the counting');
});

test('a waived point counts as excluded; an open one keeps the run open and failing', () => {
  const waived = hole(10, { waiver: { category: 'LOW_RISK', reason: 'debug only', who: 'ana' } });
  const v = judge({ coverage: summary([1, 1], [3, 4]), holes: [waived], targets, ran: true, cancelled: false });
  assert.equal(v.met, true);
  assert.deepEqual(v.excluded, { branch: { proven: 0, waived: 1 } });
  const open = judge({
    coverage: summary([1, 1], [2, 4]),
    holes: [waived, hole(12, {})],
    targets,
    ran: true,
    cancelled: false,
  });
  assert.equal(open.met, false);
  assert.equal(open.closed, false);
  assert.deepEqual(open.unmet, [{ metric: 'branch', pct: 66.6, target: 100 }]);
});

test('a run that did not build meets nothing, and a cancelled run exits 130', () => {
  const failed = judge({ coverage: summary([0, 0], [0, 0]), holes: [], targets, ran: false, cancelled: false });
  assert.equal(failed.met, false);
  assert.equal(failed.closed, false);
  assert.equal(failed.exitCode, 1);
  const cancelled = judge({ coverage: summary([1, 1], [4, 4]), holes: [], targets, ran: true, cancelled: true });
  assert.equal(cancelled.exitCode, 130);
});
