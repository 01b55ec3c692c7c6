// What of a kept candidate the testbench keeps: of several sequences run back to back (each from reset), only
// those whose stretch of the run hit a point new to the search, each up to its last new point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reachingLengths, sequencesOf, toCycles, totalCycles, type Row } from '../../src/engine/search/stimulus';

/** Sequences of the given lengths back to back, each cycle's value its sequence and its index in it. */
function batch(lengths: number[]) {
  const rows: Row[] = [];
  const starts: number[] = [];
  let at = 0;
  for (const [j, n] of lengths.entries()) {
    starts.push(at);
    for (let i = 0; i < n; i++) rows.push({ count: 1, values: [BigInt(j), BigInt(i)] });
    at += n;
  }
  return { rows, origin: 'test', starts };
}

test('a new point keeps the sequence it fell in, up to that point; the others are dropped', () => {
  // Four sequences of 300 cycles; new points by cycle 64 (the first) and by cycle 768 (the third, its 168th cycle).
  const starts = [0, 300, 600, 900];
  assert.deepEqual(reachingLengths(starts, 1200, [64, 768], 68), [64, 0, 168, 0]);
  // Nothing new: nothing kept.
  assert.deepEqual(reachingLengths(starts, 1200, [], 68), [0, 0, 0, 0]);
});

test('a point whose window began in the sequence before keeps that one whole', () => {
  // By cycle 640, within 68 cycles: the window [572, 640) began in the second sequence (its state may have caused
  // the hit in the third's reset).
  assert.deepEqual(reachingLengths([0, 300, 600, 900], 1200, [640], 68), [0, 300, 40, 0]);
  // A point by the very end of a sequence keeps it whole, and not the next.
  assert.deepEqual(reachingLengths([0, 300, 600], 900, [300], 68), [300, 0, 0]);
});

test('the kept sequences are the run sliced as given, their new starts recorded', () => {
  const c = batch([5, 4, 6]);
  const kept = sequencesOf(c, [2, 0, 6]);
  assert.equal(totalCycles(kept.rows), 8);
  assert.deepEqual(kept.starts, [0, 2]);
  assert.deepEqual(
    toCycles(kept.rows).map((v) => v.map(Number)),
    [
      [0, 0],
      [0, 1],
      [2, 0],
      [2, 1],
      [2, 2],
      [2, 3],
      [2, 4],
      [2, 5],
    ],
  );
  assert.match(kept.origin, /the 2 of 3 that reached something new, 8 of 15 cycles/);
});
