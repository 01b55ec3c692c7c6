/** One identity for a coverage point: a `pointId` reads back to the file, line and kind it was made from. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pointId, pointOfId } from '../../src/protocol';

test('pointOfId reads back what pointId wrote, paths with spaces and non-ASCII characters included', () => {
  const p = { file: '/work/my ip/überfifo.sv', line: 42, column: 7, kind: 'branch' as const, comment: 'else' };
  assert.deepEqual(pointOfId(pointId({ ...p, hierarchy: 'TOP.tb.uut' })), { file: p.file, line: 42, kind: 'branch' });
});
