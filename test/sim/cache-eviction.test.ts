// Cache housekeeping without Verilator: least-recently-used eviction, leftovers of crashed builds, locks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evictOldEntries } from '../../src/sim/buildEntry';
import { withCacheLock } from '../../src/sim/cacheLock';
import { cacheLayout, cacheRoot } from '../../src/sim/cacheDir';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'chorus-evict-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

function entry(builds: string, name: string, ageMinutes: number): string {
  const dir = join(builds, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'stamp.json'), '{}');
  const t = new Date(Date.now() - ageMinutes * 60_000);
  utimesSync(join(dir, 'stamp.json'), t, t);
  utimesSync(dir, t, t);
  return dir;
}

test('eviction drops the least recently used builds beyond the cap, never recent or locked ones', async () => {
  const builds = join(root, 'builds');
  const tmp = join(root, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const oldest = entry(builds, 'a', 300);
  const locked = entry(builds, 'b', 250);
  mkdirSync(`${locked}.lock`);
  const old = entry(builds, 'c', 200);
  const recent1 = entry(builds, 'd', 1);
  const recent2 = entry(builds, 'e', 2);
  const crashed = entry(builds, 'f.tmp-0a1b2c3d', 48 * 60);
  const crashedTmp = join(tmp, 'x-12345678');
  mkdirSync(crashedTmp);
  const t = new Date(Date.now() - 48 * 3600_000);
  utimesSync(crashedTmp, t, t);

  const removed = await evictOldEntries(builds, tmp, 2);
  assert.equal(existsSync(oldest), false);
  assert.equal(existsSync(old), false);
  assert.equal(existsSync(locked), true, 'a locked entry is in use');
  assert.equal(existsSync(recent1), true);
  assert.equal(existsSync(recent2), true, 'recent entries stay even beyond the cap');
  assert.equal(existsSync(crashed), false);
  assert.equal(existsSync(crashedTmp), false);
  assert.equal(removed, 3);
});

test('the cache root follows the option, then CHORUS_CACHE_DIR, then XDG_CACHE_HOME', () => {
  const saved = { c: process.env.CHORUS_CACHE_DIR, x: process.env.XDG_CACHE_HOME };
  try {
    process.env.CHORUS_CACHE_DIR = '/c/env';
    process.env.XDG_CACHE_HOME = '/x';
    assert.equal(cacheRoot('/opt/given'), '/opt/given');
    assert.equal(cacheRoot(), '/c/env');
    delete process.env.CHORUS_CACHE_DIR;
    assert.equal(cacheRoot(), '/x/chorus');
    assert.equal(cacheLayout('/r').ccache, '/r/ccache');
  } finally {
    if (saved.c === undefined) delete process.env.CHORUS_CACHE_DIR;
    else process.env.CHORUS_CACHE_DIR = saved.c;
    if (saved.x === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = saved.x;
  }
});

test('the cache lock serialises holders of one key and honours cancellation while waiting', async () => {
  const key = join(root, 'locks', 'k');
  const order: string[] = [];
  let releaseFirst!: () => void;
  const first = withCacheLock(key, { timeoutMs: 10_000 }, async () => {
    order.push('first in');
    await new Promise<void>((r) => (releaseFirst = r));
    order.push('first out');
  });
  await new Promise((r) => setTimeout(r, 100));
  const second = withCacheLock(key, { timeoutMs: 10_000 }, async () => {
    order.push('second in');
  });
  const controller = new AbortController();
  const third = withCacheLock(key, { timeoutMs: 10_000, signal: controller.signal }, async () => {
    order.push('third in');
  });
  await new Promise((r) => setTimeout(r, 300));
  controller.abort();
  await assert.rejects(third, /Cancelled/);
  releaseFirst();
  await Promise.all([first, second]);
  assert.deepEqual(order, ['first in', 'first out', 'second in']);
});
