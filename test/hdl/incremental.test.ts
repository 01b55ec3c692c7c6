// Re-analysing an edited file reuses its previous tree (tree-sitter reparses around the edit); the result
// must be exactly what a fresh parse gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { analyzeSources } from '../../src/hdl';
import { editBetween } from '../../src/hdl/parser';

const root = join(__dirname, '..', '..');
const base = readFileSync(join(root, 'examples', 'uart_tx', 'uart_tx.sv'), 'utf8');

test('editBetween finds the changed span and its rows and columns', () => {
  const e = editBetween('ab\ncd\nef', 'ab\ncXYd\nef');
  assert.deepEqual(e, {
    startIndex: 4,
    oldEndIndex: 4,
    newEndIndex: 6,
    startPosition: { row: 1, column: 1 },
    oldEndPosition: { row: 1, column: 1 },
    newEndPosition: { row: 1, column: 3 },
  });
  const del = editBetween('x\ny\nz', 'x\nz');
  assert.deepEqual([del.startIndex, del.oldEndIndex, del.newEndIndex], [2, 4, 2]);
});

test('property: a sequence of edits to one file analyses the same as fresh parses of each version', () => {
  const tokens = ['', ' ', '\n', ';', 'if (start) ', 'begin', 'end', "3'd5", 'state', '// note\n', 'x <= 1;', '('];
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(), fc.nat({ max: 30 }), fc.constantFrom(...tokens)), { minLength: 1, maxLength: 6 }),
      (edits) => {
        let text = base;
        const name = `edited-${Math.random()}.sv`; // a fresh name per run: the first parse is not incremental
        analyzeSources([{ name, content: text }]);
        for (const [at, len, insert] of edits) {
          const from = at % text.length;
          text = text.slice(0, from) + insert + text.slice(Math.min(text.length, from + len));
          const incremental = analyzeSources([{ name, content: text }]);
          // a name never seen before has no tree to reuse: a fresh parse
          const freshName = `fresh-${Math.random()}.sv`;
          const fresh = analyzeSources([{ name: freshName, content: text }]);
          assert.equal(
            JSON.stringify(incremental).replaceAll(JSON.stringify(name), JSON.stringify(freshName)),
            JSON.stringify(fresh),
          );
        }
      },
    ),
    { numRuns: 60 },
  );
});
