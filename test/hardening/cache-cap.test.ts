// The build cache is bounded in bytes: through the built CLI, runs whose builds together exceed a small
// `--cache-max` leave `chorus cache info` reporting less than the cap, evicting the least recently used
// simulators (never the one just built), and the cache stays usable; `chorus cache clear` empties it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';
import { removeScratch, scratch } from './support';

after(removeScratch);

const counter = join(repoRoot, 'examples', 'counter', 'counter.sv');
const tbText = readFileSync(join(repoRoot, 'test', 'fixtures', 'sim', 'tb_counter.sv'), 'utf8');
/** Measured here: one counter simulator is about 215 KiB, the runtime objects 330 KiB, ccache about 200 KiB. */
const CAP = 800 * 1024;

interface Info {
  totalBytes: number;
  capBytes: number;
  builds: { count: number };
}

test('runs that would exceed the byte cap leave the cache under it, and it stays usable', async () => {
  const dir = scratch('chorus-cache-cap-');
  const env = { CHORUS_CACHE_DIR: join(dir, 'cache') };
  const info = async (): Promise<Info> => {
    const r = await runCli(['cache', 'info', '--json', '--cache-max', `${CAP / 1024}K`], { cwd: dir, env });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Info;
  };
  const cover = async (i: number): Promise<void> => {
    // A distinct text per run: a distinct build, as a bench's testbenches are.
    const tb = join(dir, `tb_${i}.sv`);
    writeFileSync(tb, `// variant ${i}\n${tbText}`);
    const r = await runCli(['coverage', counter, '--tb', tb, '--json', '--cache-max', `${CAP / 1024}K`], {
      cwd: dir,
      env,
      timeoutMs: 600_000,
    });
    assert.equal(r.code, 0, r.stderr);
  };
  let builds = 0;
  for (const i of [1, 2, 3, 4]) {
    await cover(i);
    const now = await info();
    assert.equal(now.capBytes, CAP);
    assert.ok(now.totalBytes <= CAP, `after run ${i}: ${now.totalBytes} bytes in the cache, over the ${CAP}-byte cap`);
    assert.ok(now.builds.count >= 1, 'the simulator just built stays');
    builds = now.builds.count;
  }
  assert.ok(builds < 4, `older simulators were evicted (${builds} kept of 4)`);
  // Evicted or not, the first testbench measures again.
  await cover(1);

  const cleared = await runCli(['cache', 'clear'], { cwd: dir, env });
  assert.equal(cleared.code, 0, cleared.stderr);
  assert.match(cleared.stdout, /^Freed \d/);
  const empty = await info();
  assert.equal(empty.builds.count, 0);
});
