// What the search counts as progress: every new point keeps a candidate, but only a new point of a kind closure is
// judged on (line, branch, a targeted FSM kind) holds back the formal stage, which decides only those kinds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CoveragePoint } from '../../src/protocol';
import type { RunContext } from '../../src/engine/context';
import { SearchProgress } from '../../src/engine/search/progress';
import type { Candidate } from '../../src/engine/search/stimulus';

const point = (kind: CoveragePoint['kind'], line: number, count: number, comment = 'if'): CoveragePoint => ({
  file: '/d/dut.sv',
  line,
  column: 1,
  kind,
  comment,
  hierarchy: 'TOP.tb.uut',
  module: 'dut',
  count,
});
const candidate: Candidate = { rows: [], origin: 'test' };
// The progress reads only the run's targets and its regression (none here).
const contextWith = (targets: RunContext['targets']) => ({ targets }) as unknown as RunContext;

test('a new toggle point alone keeps the candidate but counts as a stall for the formal kinds', () => {
  const progress = new SearchProgress(contextWith({ line: 100, branch: 100 }));
  const line = point('line', 3, 1);
  const toggleHole = point('toggle', 4, 0, 'q[0]');
  assert.equal(progress.absorb(candidate, [line, toggleHole], 1), 1);
  assert.equal(progress.structuralSinceNew, 0);
  const structuralTime = progress.lastStructuralTime;

  assert.equal(progress.absorb(candidate, [line, { ...toggleHole, count: 1 }], 2), 1, 'the toggle point is new');
  assert.equal(progress.sinceNew, 0, 'a new point of any kind is progress for the search');
  assert.equal(progress.structuralSinceNew, 1, 'but not for the line and branch points formal decides');
  assert.equal(progress.lastStructuralTime, structuralTime);
  assert.equal(progress.kept.length, 2);

  progress.nothing();
  assert.equal(progress.sinceNew, 1);
  assert.equal(progress.structuralSinceNew, 2);

  assert.equal(progress.absorb(candidate, [point('branch', 5, 1)], 4), 1);
  assert.equal(progress.structuralSinceNew, 0);
  assert.equal(progress.sinceNew, 0);
});

test('a new FSM state holds back the formal stage only when the run targets FSM states', () => {
  const state = point('fsm_state', 7, 1, 'S_IDLE');
  const untargeted = new SearchProgress(contextWith({ line: 100 }));
  untargeted.absorb(candidate, [state], 1);
  assert.equal(untargeted.structuralSinceNew, 1);
  const targeted = new SearchProgress(contextWith({ line: 100, fsm_state: 100 }));
  targeted.absorb(candidate, [state], 1);
  assert.equal(targeted.structuralSinceNew, 0);
});
