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

test('a plain random segment longer than a candidate stays one segment when shrunk', async () => {
  // A plain random candidate of the longest length plus its reset prologue is over MAX_CYCLES, so it takes the
  // long-run path; where its point needs every cycle, that path once dropped the segment, and the testbench listed
  // each of its 50,000 cycles (20 MB on a core, over the preprocessor's bound).
  const n = MAX_CYCLES;
  for (const needed of [n + 2, 30_000]) {
    const c = chosen(n);
    c.kept.candidate.random = { seed: 7, resetBelow: 0, start: 2, cycles: n };
    const out = await shorten(c, { runs: 40, over: () => false, prologue: 2 }, reachesAt(needed).reaches);
    assert.ok(totalCycles(out.rows) >= needed && totalCycles(out.rows) <= n + 2, `${totalCycles(out.rows)} cycles`);
    assert.ok(out.random, `the random segment was dropped (point at cycle ${needed})`);
    assert.equal(out.random.start, 2);
    assert.equal(out.random.cycles, totalCycles(out.rows) - 2);
  }
});
