// Parameters the design itself rejects (its own `$error` in an initial block stops every simulation at time 0): the
// search ends at once with the design's message and its place, instead of running candidates until its budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { generateToEnd } from '../../src/engine';
import { ChorusError, silentLogger } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';

const file = join(repoRoot, 'test', 'fixtures', 'engine', 'rejected', 'checked_fifo.sv');
const run = (parameters: Record<string, string>) =>
  generateToEnd(
    {
      rtlFiles: [file],
      engine: 'random',
      targets: { line: 100, branch: 100 },
      seed: 1,
      budgetSeconds: 120,
      parameters,
    },
    { logger: silentLogger, signal: new AbortController().signal },
  );

test('a configuration the design rejects is reported with its message and line, not as a budget spent', async () => {
  const err = await run({ FRAME_MODE: '1', MARK_FULL: '1' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ChorusError, `expected a ChorusError, got ${String(err)}`);
  assert.equal(err.kind, 'bad_input');
  assert.match(err.message, /MARK_FULL is not compatible with FRAME_MODE/);
  // The search stopped after its first few runs, not at its budget.
  assert.match(err.message, /\(3 run\(s\)\)/);
  assert.equal(err.location?.file, file);
  assert.equal(err.location?.line, 16);
});

test('the same design with a configuration it accepts runs and closes', async () => {
  const result = await run({ MARK_FULL: '1' });
  assert.equal(result.closed, true, `stop: ${result.stopReason}`);
});
