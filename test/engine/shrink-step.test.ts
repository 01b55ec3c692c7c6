// Shrinking a kept sequence: where a run's start is costly, a probe that can save fewer cycles than that start is
// not run, and what is kept still reaches the points it was chosen for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shorten, type Chosen } from '../../src/engine/search/shrink';
import { MAX_CYCLES, totalCycles, type Row } from '../../src/engine/search/stimulus';

/** A sequence of `n` distinct cycles after a two-cycle reset prologue, chosen for one point. */
function chosen(n: number): Chosen {
  const rows: Row[] = [{ count: 2, values: [1n, 0n] }];
  for (let i = 0; i < n; i++) rows.push({ count: 1, values: [0n, BigInt(i)] });
  return { kept: { candidate: { rows, origin: 'test' }, newPoints: 1, covered: new Set(['p']) }, gain: new Set(['p']) };
}

/** The point is reached once cycle `needed` (counting the prologue) has run. */
function reachesAt(needed: number) {
  let probes = 0;
  const reaches = async (rows: Row[]) => {
    probes++;
    return totalCycles(rows) >= needed;
  };
  return { reaches, probes: () => probes };
}

test('step 1 finds the shortest prefix that still reaches the point', async () => {
  const r = reachesAt(1_234);
  const out = await shorten(chosen(4_000), { runs: 30, over: () => false, prologue: 2 }, r.reaches);
  assert.equal(totalCycles(out.rows), 1_234);
});

test('a costly start stops the prefix search once a probe could save less than that start', async () => {
  const exact = reachesAt(1_234);
  await shorten(chosen(4_000), { runs: 30, over: () => false, prologue: 2 }, exact.reaches);
  const coarse = reachesAt(1_234);
  const out = await shorten(chosen(4_000), { runs: 30, over: () => false, prologue: 2, minStep: 500 }, coarse.reaches);
  const kept = totalCycles(out.rows);
  // Still reaches the point, within one step of the shortest, in fewer probes.
  assert.ok(kept >= 1_234 && kept < 1_234 + 500, `kept ${kept} cycles`);
  assert.ok(
    coarse.probes() < exact.probes(),
    `${coarse.probes()} probes with a step of 500, ${exact.probes()} without`,
  );
});

test('a sequence shorter than the step is kept whole without a probe', async () => {
  const r = reachesAt(100);
  const c = chosen(1_500);
  const out = await shorten(c, { runs: 30, over: () => false, prologue: 2, minStep: 2_400 }, r.reaches);
  assert.equal(r.probes(), 0);
  assert.equal(totalCycles(out.rows), totalCycles(c.kept.candidate.rows));
});

test('a whole plain random segment is kept as it is, without a probe', async () => {
  // The testbench regenerates a plain random segment from its seed in one line at any length, so a probe of a
  // prefix costs about what it could save the final measurement (a core's 50,000-cycle segments: 4 s of probes).
  const n = MAX_CYCLES;
  const c = chosen(n);
  c.kept.candidate.random = { seed: 7, resetBelow: 0, start: 2, cycles: n };
  const r = reachesAt(30_000);
  const out = await shorten(c, { runs: 40, over: () => false, prologue: 2 }, r.reaches);
  assert.equal(r.probes(), 0);
  assert.equal(out, c.kept.candidate);
  assert.equal(out.random?.cycles, n);
});
