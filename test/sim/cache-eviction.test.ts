// Cache housekeeping without Verilator: least-recently-used eviction by bytes and count, leases of entries in
// use by live processes, leftovers of crashed builds, locks, info and clear.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withCacheLock } from '../../src/sim/cache/cacheLock';
import { cacheLayout, cacheRoot } from '../../src/sim/cache/cacheDir';
import { entryInUse, leaseEntry } from '../../src/sim/cache/cacheLease';
import { cacheInfo, clearCache, evictCache, folderBytes } from '../../src/sim/cache/cacheSize';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'chorus-evict-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

const MiB = 1024 ** 2;

/** A build entry of `bytes` whose stamp was last used `ageMinutes` ago. */
function entry(folder: string, name: string, ageMinutes: number, bytes = 1000, stampName = 'stamp.json'): string {
  const dir = join(folder, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, stampName), '{}');
  writeFileSync(join(dir, 'payload'), Buffer.alloc(bytes));
  const t = new Date(Date.now() - ageMinutes * 60_000);
  utimesSync(join(dir, stampName), t, t);
  utimesSync(dir, t, t);
  return dir;
}

/** A pid that has certainly exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((r) => child.on('exit', r));
  return child.pid!;
}

test('eviction keeps the cache under its byte cap, least recently used first, never an entry in use or being built', async () => {
  const layout = cacheLayout(join(root, 'bytes'));
  const oldest = entry(layout.builds, 'a', 300, 3 * MiB);
  const locked = entry(layout.builds, 'b', 250, 3 * MiB);
  mkdirSync(`${locked}.lock`);
  const leasedByUs = entry(layout.builds, 'c', 200, 3 * MiB);
  await leaseEntry(leasedByUs);
  const leasedByDead = entry(layout.builds, 'd', 150, 3 * MiB);
  const deadLease = `${leasedByDead}.use-${await deadPid()}`;
  writeFileSync(deadLease, '');
  const runtimeOld = entry(layout.runtime, 'r1', 100, 3 * MiB, 'runtime.json');
  const recent = entry(layout.builds, 'e', 1, 3 * MiB);
  const crashed = entry(layout.builds, 'f.tmp-0a1b2c3d', 48 * 60);
  mkdirSync(layout.tmp, { recursive: true });
  const crashedTmp = join(layout.tmp, 'x-12345678');
  mkdirSync(crashedTmp);
  const t = new Date(Date.now() - 48 * 3600_000);
  utimesSync(crashedTmp, t, t);

  // 18 MiB of entries, a 10 MiB cap: the oldest unprotected ones go until the rest fits.
  await evictCache(layout, { maxBytes: 10 * MiB });
  assert.equal(existsSync(oldest), false);
  assert.equal(existsSync(locked), true, 'a build holds its lock');
  assert.equal(existsSync(leasedByUs), true, 'a live process leases it');
  assert.equal(existsSync(leasedByDead), false, "a dead process's lease protects nothing");
  assert.equal(existsSync(deadLease), false, 'the dead lease is removed');
  assert.equal(existsSync(runtimeOld), false, 'runtime entries (objects, precompiled headers) count and go too');
  assert.equal(existsSync(recent), true, 'the most recent entry fits under the cap');
  assert.equal(existsSync(crashed), false);
  assert.equal(existsSync(crashedTmp), false);
  assert.ok((await folderBytes(layout.root)) <= 10 * MiB);
});

test('eviction also keeps at most maxBuilds simulators, whatever their size', async () => {
  const layout = cacheLayout(join(root, 'count'));
  const dirs = [5, 4, 3, 2].map((age, i) => entry(layout.builds, `k${i}`, age));
  await evictCache(layout, { maxBytes: 1024 ** 3, maxBuilds: 2 });
  assert.deepEqual(dirs.map(existsSync), [false, false, true, true]);
});

test('a lease protects an entry only while its process lives and renews it', async () => {
  const layout = cacheLayout(join(root, 'lease'));
  const dir = entry(layout.builds, 'x', 10);
  assert.equal(await entryInUse(dir), false);
  await leaseEntry(dir);
  assert.equal(await entryInUse(dir), true);
  const stale = new Date(Date.now() - 60 * 60_000);
  utimesSync(`${dir}.use-${process.pid}`, stale, stale);
  assert.equal(await entryInUse(dir), false, 'a lease not renewed for an hour has lapsed');
});

test('cache info sums every part; clear removes all but entries in use', async () => {
  const cacheDir = join(root, 'info');
  const layout = cacheLayout(cacheDir);
  entry(layout.builds, 'b1', 30, 2 * MiB);
  const kept = entry(layout.builds, 'b2', 20, 1 * MiB);
  await leaseEntry(kept);
  entry(layout.runtime, 'r1', 30, 1 * MiB, 'runtime.json');
  mkdirSync(layout.ccache, { recursive: true });
  writeFileSync(join(layout.ccache, 'blob'), Buffer.alloc(MiB));
  const info = await cacheInfo({ cacheDir, cacheMaxBytes: 64 * MiB });
  assert.equal(info.builds.count, 2);
  assert.equal(info.runtime.count, 1);
  assert.equal(info.ccacheBytes, MiB);
  assert.equal(info.capBytes, 64 * MiB);
  assert.ok(info.totalBytes >= 5 * MiB && info.totalBytes < 5 * MiB + 4096, String(info.totalBytes));
  const cleared = await clearCache({ cacheDir });
  assert.equal(cleared.keptInUse, 1);
  assert.ok(cleared.freedBytes >= 4 * MiB);
  const after = await cacheInfo({ cacheDir });
  assert.equal(after.builds.count, 1);
  assert.equal(after.runtime.count, 0);
  assert.equal(after.ccacheBytes, 0);
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
