// Reading expression text at its top level: one walk (outside brackets and based literals) under the comma and
// `&&` splits, the conditional splitter and the range/label colon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  splitConditional,
  splitTopLevel,
  splitTopLevelAt,
  topLevelColon,
  topLevelIndices,
} from '../../src/hdl/topLevel';
import { conjuncts } from '../../src/hdl';

test('the walk yields only top-level indices, skipping brackets and based literals', () => {
  const text = "a[1]?4'b1?0?:{b,c}";
  const chars = [...topLevelIndices(text)].map((i) => text[i]).join('');
  assert.equal(chars, 'a?4:', 'the width of a based literal is top level, its digits are not');
});

test('splits at a top-level separator, not inside brackets', () => {
  assert.deepEqual(splitTopLevel('a, f(b, c), {d, e}[1:0]'), ['a', 'f(b, c)', '{d, e}[1:0]']);
  assert.deepEqual(splitTopLevelAt('x && (y && z) && w[a&&b]', '&&'), ['x', '(y && z)', 'w[a&&b]']);
  assert.deepEqual(conjuncts("((en && !busy) && cnt == 4'd3)"), ['(en && !busy)', "cnt == 4'd3"]);
  assert.deepEqual(conjuncts('a && &b'), ['a', '&b'], 'a reduction AND after && is an operand');
});

test('a casez digit ? is neither a conditional nor a reason to skip a range colon', () => {
  assert.equal(
    splitConditional("s == 4'b1?0? ? x : y")
      ?.map((p) => p.trim())
      .join('|'),
    'x|y',
  );
  assert.equal(splitConditional("4'b1?0?"), undefined);
  const label = "4'b1?0?: out = 1";
  assert.equal(topLevelColon(label), label.indexOf(':'));
  assert.equal(topLevelColon('W-1:0'), 3);
  assert.equal(topLevelColon('sel ? a : b'), -1, 'the colon of a conditional');
  assert.equal(topLevelColon('pkg::W'), -1);
  assert.equal(topLevelColon('base+:8'), -1);
  assert.equal(topLevelColon('(a ? 1 : 2):0'), 11);
});
