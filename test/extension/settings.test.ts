import './stub/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  generateParams,
  needsModel,
  readSettings,
  resolveEngine,
  runEngine,
  safeRelativeFolder,
  DEFAULT_SETTINGS,
  type ConfigurationLike,
} from '../../src/extension/settings';
import { parseByteSize } from '../../src/protocol';

function cfg(values: Record<string, unknown>): ConfigurationLike {
  return { get: (k) => values[k] };
}

test('unset settings read as the documented defaults', () => {
  assert.deepEqual(readSettings(cfg({})), DEFAULT_SETTINGS);
});

test('bad values fall back to defaults instead of reaching the server', () => {
  const s = readSettings(
    cfg({
      maxRounds: -4,
      engine: 'gpt',
      gpu: 'tpu',
      targets: { line: 140, branch: 'x', bogus: 5 },
      testbenchFolder: '../outside',
      contextSize: 'big',
    }),
  );
  assert.equal(s.maxRounds, 1, 'clamped to the minimum');
  assert.equal(s.engine, 'auto');
  assert.equal(s.gpu, 'auto');
  assert.deepEqual(s.targets, { line: 100, branch: 100 }, 'no valid target: the defaults');
  assert.equal(s.testbenchFolder, 'tb', 'a folder outside the workspace is refused');
  assert.equal(s.contextSize, 0);
});

test('testbench folders stay inside the workspace', () => {
  assert.equal(safeRelativeFolder('tb'), 'tb');
  assert.equal(safeRelativeFolder('./verif//tb/'), 'verif/tb');
  assert.equal(safeRelativeFolder('.'), '.');
  assert.equal(safeRelativeFolder('/etc'), undefined);
  assert.equal(safeRelativeFolder('a/../../b'), undefined);
  assert.equal(safeRelativeFolder('C:\\tb'), undefined);
});

test('auto engine: the request names none and the server decides; a chosen engine is sent as chosen', () => {
  assert.equal(resolveEngine(readSettings(cfg({}))), undefined);
  assert.equal(runEngine(readSettings(cfg({})), 'llm'), 'llm', 'auto shows what the server said it stands for');
  assert.equal(
    runEngine(readSettings(cfg({ model: '/m/chorus.gguf' })), 'random'),
    'random',
    'no guess from the settings',
  );
  assert.equal(runEngine(readSettings(cfg({ engine: 'random' })), 'llm'), 'random');
  assert.equal(resolveEngine(readSettings(cfg({ engine: 'hybrid', endpoint: 'http://x' }))), 'hybrid');
  assert.equal(needsModel(readSettings(cfg({ engine: 'llm' }))), true);
  assert.equal(needsModel(readSettings(cfg({ engine: 'hybrid', model: 'replay:x.json' }))), false);
  assert.equal(needsModel(readSettings(cfg({ engine: 'random' }))), false);
  assert.equal(needsModel(readSettings(cfg({}))), false, 'auto never blocks a run');
});

test('the generate request carries what this run chose, never a copy of the settings the server reads', () => {
  const p = generateParams({ uri: 'file:///w/counter.sv', runId: 'r1', top: 'counter', files: ['file:///w/a.sv'] });
  assert.deepEqual(p, { uri: 'file:///w/counter.sv', runId: 'r1', top: 'counter', files: ['file:///w/a.sv'] });
  // "Use the model-free search" is this run's choice: it goes with the request.
  assert.equal(generateParams({ uri: 'file:///w/a.v', runId: 'r2' }, 'random').engine, 'random');
  const bare = generateParams({ uri: 'file:///w/a.v', runId: 'r3' });
  assert.equal(bare.top, undefined, 'no top: the server decides');
  for (const key of ['engine', 'model', 'targets', 'rounds', 'testbenchUri'])
    assert.equal(key in bare, false, `${key}: a setting the server reads itself (or the client's own job)`);
});

test('chorus.memoryLimit and chorus.cacheMax are sizes; a bad one is named in a warning and left at its default', () => {
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  const d = readSettings(cfg({}), warn);
  assert.equal(d.memoryLimit, '4G');
  assert.equal(d.cacheMax, '2G');
  const s = readSettings(cfg({ memoryLimit: ' 1536M ', cacheMax: '1.5 GiB' }), warn);
  assert.equal(s.memoryLimit, '1536M');
  assert.equal(parseByteSize(s.memoryLimit), 1536 * 1024 ** 2);
  assert.equal(parseByteSize(s.cacheMax), 1.5 * 1024 ** 3);
  assert.equal(
    parseByteSize(readSettings(cfg({ memoryLimit: '512' }), warn).memoryLimit),
    512 * 1024 ** 2,
    'a bare number is MiB',
  );
  assert.deepEqual(warnings, [], 'good values warn of nothing');

  const bad = readSettings(cfg({ memoryLimit: 'lots', cacheMax: 4096 }), warn);
  assert.equal(bad.memoryLimit, '4G');
  assert.equal(bad.cacheMax, '2G', 'a number where a size text belongs is refused too');
  assert.equal(warnings.length, 2, warnings.join('\n'));
  assert.match(warnings[0], /chorus\.memoryLimit is "lots".*4G/);
  assert.match(warnings[1], /chorus\.cacheMax is 4096.*2G/);
  assert.equal(readSettings(cfg({ memoryLimit: '0G' })).memoryLimit, '4G', 'zero is no limit to apply: the default');
});
