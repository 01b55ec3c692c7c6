/** Input that sends tree-sitter's error recovery in circles (reduced from a mutated example a property test found). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeSources } from '../../src/hdl';
import { repoRoot } from '../helpers/cli';

test('a parse that never ends is stopped and reported as an error of the file', () => {
  const content = readFileSync(join(repoRoot, 'test', 'fixtures', 'hdl', 'parser-loop.sv'), 'utf8');
  const analysis = analyzeSources([{ name: 'parser-loop.sv', content }]);
  assert.equal(analysis.errors.length, 1);
  assert.equal(analysis.errors[0].file, 'parser-loop.sv');
  assert.match(analysis.errors[0].message, /parser gave up after \d+\.\d s/);
  assert.deepEqual(analysis.modules, []);
  // The text is remembered as one the parser gives up on: asked again, it fails the same way (at once).
  const again = analyzeSources([{ name: 'again.sv', content }]);
  assert.equal(again.errors.length, 1);
  assert.equal(again.errors[0].file, 'again.sv');
  assert.equal(again.errors[0].message, analysis.errors[0].message);
});
