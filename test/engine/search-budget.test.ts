// The run's budget counts the build: a build that leaves less than half of it still gives the search time, but a
// build shorter than the budget never moves the run's end past 1.05x the budget; only a build longer than the whole
// budget moves it to half the budget after the build (within 1.1x of build + budget).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SearchBudget } from '../../src/engine/search/budget';

const B = 60_000;

/** A budget started at 0 on a clock the test sets, after a build ending at `buildEnd` ms. */
function afterBuildAt(buildEnd: number) {
  let now = 0;
  const budget = new SearchBudget(B, 0, () => now);
  now = buildEnd;
  const message = budget.afterBuild(buildEnd);
  return { message, end: budget.remaining() + now };
}

test('a quick build leaves the budget as it is, and says nothing', () => {
  const { message, end } = afterBuildAt(20_000);
  assert.equal(message, undefined);
  assert.equal(end, B);
});

test('a build shorter than the budget but past its half ends the run within 1.05x the budget', () => {
  for (const build of [31_000, 45_000, 59_000]) {
    const { message, end } = afterBuildAt(build);
    assert.equal(end, Math.min(build + B / 2, 1.05 * B), `build ${build} ms`);
    assert.ok(end <= 1.1 * B);
    assert.ok(message?.includes(`this run ends about ${Math.round(end / 1000)} s after it started`), message);
    assert.doesNotMatch(message ?? '', /longer than the budget/);
  }
  // Just past the half: half the budget after it still fits.
  assert.equal(afterBuildAt(31_000).end, 61_000);
});

test('a build longer than the whole budget gives the search half the budget after it, and says so', () => {
  const build = 80_000;
  const { message, end } = afterBuildAt(build);
  assert.equal(end, build + B / 2);
  assert.ok(end <= 1.1 * (build + B));
  assert.match(message ?? '', /took 80\.0 s of the 60 s budget, longer than the budget itself; the search gets 30 s/);
});
