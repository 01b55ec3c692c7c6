// The build cache with real builds: concurrent builds of one key, hits, includes in the key, damaged entries.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildSimulation, readCoverageFile, runSimulation, type BuildInput, type SimOptions } from '../../src/sim';
import { cacheLayout } from '../../src/sim/cache/cacheDir';
import { counterRtl, fixture, suiteCache } from './simFixtures';

let work: string;
let input: BuildInput;
const debug: string[] = [];
const opts: SimOptions = {
  cacheDir: suiteCache,
  logger: { debug: (m) => debug.push(m), info: () => {}, warn: () => {}, error: () => {} },
};

before(() => {
  // A private copy: its path is part of the key, so these builds never collide with other tests or runs.
  work = mkdtempSync(join(tmpdir(), 'chorus-cache-test-'));
  copyFileSync(fixture('tb_cache.sv'), join(work, 'tb_cache.sv'));
  copyFileSync(fixture('cache_defs.svh'), join(work, 'cache_defs.svh'));
  input = { dutFiles: [counterRtl], testbench: join(work, 'tb_cache.sv') };
});

after(() => rmSync(work, { recursive: true, force: true }));

/** Mode the built simulator applies, read back from which case item of the counter it reached. */
async function modeReached(binary: string, name: string): Promise<string[]> {
  const coverageFile = join(work, name, 'coverage.dat');
  const run = await runSimulation({ binary, coverageFile }, opts);
  assert.equal(run.status, 'ok', run.output);
  const points = await readCoverageFile(coverageFile, [counterRtl]);
  const src = readFileSync(counterRtl, 'utf8').split('\n');
  return points.filter((p) => p.comment === 'case' && p.count > 0).map((p) => src[p.line - 1].trim().split(':')[0]);
}

test('two concurrent builds of the same sources compile once; an identical rebuild is a hit', async () => {
  const [a, b] = await Promise.all([buildSimulation(input, opts), buildSimulation(input, opts)]);
  assert.equal(a.status, 'ok', JSON.stringify(a.diagnostics));
  assert.equal(b.status, 'ok', JSON.stringify(b.diagnostics));
  assert.deepEqual([a.cacheHit, b.cacheHit].sort(), [false, true]);
  assert.equal(a.binary, b.binary);
  assert.equal(a.key, b.key);
  const again = await buildSimulation(input, opts);
  assert.equal(again.cacheHit, true);
  assert.equal(again.binary, a.binary);
  assert.deepEqual(await modeReached(a.binary!, 'first'), ["2'b01"]);
  // The Verilator runtime objects were reused from the cache, or (the first build with this Verilator in this
  // cache, as in the version matrix's first pass) built once and kept there; the next test reuses them.
  assert.ok(
    debug.some((m) => /Runtime objects \w+: (reused|to be built)/.test(m)),
    debug.join('\n'),
  );
  const layout = cacheLayout(suiteCache);
  assert.ok(readdirSync(layout.runtime).some((d) => !d.includes('.tmp-')));
});

test('a changed include is a different build', async () => {
  const first = await buildSimulation(input, opts);
  assert.equal(first.cacheHit, true);
  writeFileSync(join(work, 'cache_defs.svh'), "`define CACHE_MODE 2'b11\n");
  debug.length = 0;
  const changed = await buildSimulation(input, opts);
  assert.equal(changed.status, 'ok', JSON.stringify(changed.diagnostics));
  assert.equal(changed.cacheHit, false);
  // A fresh build with the same Verilator and settings reuses the runtime objects, never rebuilds them.
  assert.ok(
    debug.some((m) => /Runtime objects \w+: reused/.test(m)),
    debug.join('\n'),
  );
  assert.deepEqual(await modeReached(changed.binary!, 'changed'), ["2'b11"]);
});

test('a damaged cache entry is rebuilt, not trusted', async () => {
  const good = await buildSimulation(input, opts);
  assert.equal(good.cacheHit, true);
  // Truncate the cached simulator: its hash no longer matches the stamp.
  writeFileSync(good.binary!, readFileSync(good.binary!).subarray(0, 1000));
  const rebuilt = await buildSimulation(input, opts);
  assert.equal(rebuilt.status, 'ok');
  assert.equal(rebuilt.cacheHit, false);
  assert.deepEqual(await modeReached(rebuilt.binary!, 'rebuilt'), ["2'b11"]);
  // An unreadable stamp is no better.
  writeFileSync(join(dirname(rebuilt.binary!), 'stamp.json'), '{"schema":1,');
  const again = await buildSimulation(input, opts);
  assert.equal(again.cacheHit, false);
  assert.equal((await buildSimulation(input, opts)).cacheHit, true);
});

test('a large generated model is compiled without optimisation, with the same coverage', async () => {
  const tb = join(work, 'large', 'tb_cache.sv');
  mkdirSync(dirname(tb), { recursive: true });
  copyFileSync(join(work, 'tb_cache.sv'), tb);
  copyFileSync(join(work, 'cache_defs.svh'), join(work, 'large', 'cache_defs.svh'));
  const saved = process.env.CHORUS_SIM_LARGE_MODEL_BYTES;
  process.env.CHORUS_SIM_LARGE_MODEL_BYTES = '1';
  try {
    const build = await buildSimulation({ dutFiles: [counterRtl], testbench: tb }, opts);
    assert.equal(build.status, 'ok', JSON.stringify(build.diagnostics));
    assert.equal(build.cacheHit, false);
    assert.match(build.notes.join('\n'), /compiled without optimisation/);
    assert.deepEqual(await modeReached(build.binary!, 'large'), ["2'b11"]);
  } finally {
    if (saved === undefined) delete process.env.CHORUS_SIM_LARGE_MODEL_BYTES;
    else process.env.CHORUS_SIM_LARGE_MODEL_BYTES = saved;
  }
});
