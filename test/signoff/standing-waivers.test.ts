/**
 * The waivers a run stops on: a waiver file's entries re-anchored before the run as the run's check re-anchors them,
 * so a point an entry still names counts as excluded while the search goes on, and only such a point.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anchorEntry } from '../../src/engine/waivers/check';
import { standingWaivers } from '../../src/engine/waivers/standing';
import type { WaiverEntry } from '../../src/engine/waivers/file';
import type { CoveragePoint, Hole } from '../../src/protocol';
import { explainHoles, holesForModel } from '../../src/engine/evaluate';
import { FormalLedger } from '../../src/engine/closure/ledger';
import type { RunContext } from '../../src/engine/context';
import { findHoles } from '../../src/sim';

const design = [
  'module m(input logic clk, input logic d, output logic q, output logic bad);',
  '  always_ff @(posedge clk) begin',
  "    if (d === 1'bx) bad <= 1'b1;",
  "    else bad <= 1'b0;",
  '    q <= d;',
  '  end',
  'endmodule',
  '',
].join('\n');

const entry = (over: Partial<WaiverEntry>): WaiverEntry => ({
  file: '../rtl/m.sv',
  line: 3,
  column: 5,
  kind: 'branch',
  point: 'if',
  instance: '',
  module: 'm',
  category: 'LOW_RISK',
  reason: 'x compare',
  who: 'Ana Reviewer',
  fingerprint: '',
  ...over,
});

const point = (file: string, over: Partial<CoveragePoint>): CoveragePoint => ({
  file,
  line: 3,
  column: 5,
  kind: 'branch',
  comment: 'if',
  hierarchy: 'TOP.tb.uut',
  module: 'm',
  count: 0,
  ...over,
});

test('a standing entry waives its uncovered point after lines move; a changed text, a covered point or another instance does not stand', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-standing-'));
  mkdirSync(join(dir, 'rtl'));
  mkdirSync(join(dir, 'signoff'));
  const file = join(dir, 'rtl', 'm.sv');
  const waivers = join(dir, 'signoff', 'm.waivers.toml');
  writeFileSync(file, design);
  // Taken from the text as written, before the lines move: a person's entry without a fingerprint (empty).
  const before = await standingWaivers(waivers, [entry({})], 'uut');
  assert.equal(before(point(file, {}))?.who, 'Ana Reviewer');
  const fingerprinted = entry({});
  anchorEntry(fingerprinted, design.split('\n'));
  assert.match(fingerprinted.fingerprint ?? '', /^sha256:/);

  // Three lines above: the entry follows its text to line 6; the point at 6 is waived, nothing at 3 is.
  writeFileSync(file, `// a\n// b\n// c\n${design}`);
  const moved = await standingWaivers(waivers, [fingerprinted], 'uut');
  assert.equal(moved(point(file, { line: 6 }))?.category, 'LOW_RISK');
  assert.equal(moved(point(file, { line: 3 })), undefined);
  assert.equal(moved(point(file, { line: 6, count: 1 })), undefined, 'a covered point is no hole to waive');
  assert.equal(moved(point(file, { line: 6, comment: 'else' })), undefined, 'another arm of the line');
  assert.equal(moved(point(file, { line: 6, hierarchy: 'TOP.tb.uut.u_sub' })), undefined, 'another instance');

  // The arm's text changed: the entry waits for the run's check (a proof, or a person), and waives nothing now.
  writeFileSync(file, design.replace("d === 1'bx", "d === 1'b1"));
  const changed = await standingWaivers(waivers, [fingerprinted], 'uut');
  assert.equal(changed(point(file, {})), undefined);
});

test('the model is never pointed at a waived hole: it is counted with the proven ones and left out', () => {
  const base = { kind: 'branch' as const, file: '/d/m.sv', hierarchy: 'TOP.tb.uut' };
  const open: Hole = { ...base, line: 3, detail: 'if arm never taken (condition never true here)' };
  const proven: Hole = {
    ...base,
    line: 4,
    detail: 'else arm never taken (condition never false here)',
    unreachable: 'k-induction, depth 1',
    proof: { method: 'induction', depth: 1 },
  };
  const waived: Hole = {
    ...base,
    line: 9,
    detail: 'if arm never taken (condition never true here)',
    waiver: { category: 'LOW_RISK', reason: 'debug only', who: 'Ana Reviewer' },
  };
  const text = holesForModel([open, proven, waived]);
  assert.match(text, /m\.sv:3 branch/);
  assert.doesNotMatch(text, /m\.sv:9/);
  assert.match(text, /\(2 more point\(s\) are proven unreachable or waived and left out\.\)/);
  assert.equal(holesForModel([waived]), 'No coverage holes left to reach: the 1 uncovered point(s) are waived.');
});

test('a measurement labels the hole of a waived point as waived, as the verdict counts it', () => {
  const file = '/d/m.sv';
  const waived = entry({ line: 9 });
  const ctx = {
    analysis: { modules: [] },
    formal: new FormalLedger('uut'),
    waiverOf: (p: CoveragePoint) => (p.line === 9 && p.count === 0 ? waived : undefined),
  } as unknown as RunContext;
  const points = [point(file, { line: 3 }), point(file, { line: 9 }), point(file, { line: 12, count: 4 })];
  const holes = explainHoles(ctx, findHoles(points, new Map()), points);
  assert.deepEqual(
    holes.map((h) => [h.line, h.waiver?.who]),
    [
      [3, undefined],
      [9, 'Ana Reviewer'],
    ],
  );
});
