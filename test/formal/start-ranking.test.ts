/** Which reached states a deep witness search starts from: those that reached what few others did, near the point. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { StartState } from '../../src/formal';
import { nearestStarts } from '../../src/formal/deepWitness';
import { repoRoot } from '../helpers/cli';

const file = join(repoRoot, 'test', 'fixtures', 'formal', 'link_train.sv');

test('start ranking: the sequence that reached the rare lines before the point first, ties to the shorter', () => {
  const target = { file, line: 30, column: 7, kind: 'branch' as const, comment: 'if' };
  const start = (cycles: number, lines: number[], other = file): StartState => ({
    rows: Array.from({ length: cycles }, () => ({})),
    reached: lines.map((line) => ({ file: other, line })),
  });
  const starts = [
    start(10, [18, 19]), // only what every sequence reaches
    start(900, [18, 19, 23]), // and the rare line where the link comes up
    start(400, [18, 19, 23]), // the same, shorter
    start(5, [40]), // only a line after the point
    start(5, [23], '/elsewhere/other.sv'), // another file
  ];
  assert.deepEqual(nearestStarts(target, starts), [2, 1, 0]);
  assert.deepEqual(nearestStarts(target, starts, 1), [2]);
});
