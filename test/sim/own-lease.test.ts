// This process's own leases: a simulator it ran moments ago is kept, one it last ran longer ago than
// OWN_LEASE_MS is evictable, and `trimCache` (the end of a bench run) counts none of its leases. Another live
// process's lease keeps protecting for LEASE_MS.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheLayout } from '../../src/sim/cache/cacheDir';
import { leaseEntry, OWN_LEASE_MS } from '../../src/sim/cache/cacheLease';
import { evictCache, trimCache } from '../../src/sim/cache/cacheSize';

const root = mkdtempSync(join(tmpdir(), 'chorus-own-lease-'));
after(() => rmSync(root, { recursive: true, force: true }));

const KiB = 1024;

function build(folder: string, name: string, ageMs: number): string {
  const dir = join(folder, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'stamp.json'), '{}');
  writeFileSync(join(dir, 'payload'), Buffer.alloc(100 * KiB));
  const t = new Date(Date.now() - ageMs);
  utimesSync(join(dir, 'stamp.json'), t, t);
  return dir;
}

function age(path: string, ms: number): void {
  const t = new Date(Date.now() - ms);
  utimesSync(path, t, t);
}

test("own leases protect a simulator for OWN_LEASE_MS after its last run; another process's for longer", async (t) => {
  const layout = cacheLayout(join(root, 'window'));
  const ranLongAgo = build(layout.builds, 'a', 60_000);
  await leaseEntry(ranLongAgo);
  age(`${ranLongAgo}.use-${process.pid}`, OWN_LEASE_MS + 5_000);
  const ranJustNow = build(layout.builds, 'b', 50_000);
  await leaseEntry(ranJustNow);
  const otherProcess = spawn('sleep', ['30']);
  t.after(() => otherProcess.kill());
  const leasedByOther = build(layout.builds, 'c', 40_000);
  writeFileSync(`${leasedByOther}.use-${otherProcess.pid}`, '');
  age(`${leasedByOther}.use-${otherProcess.pid}`, OWN_LEASE_MS + 5_000);

  await evictCache(layout, { maxBytes: 50 * KiB });
  assert.equal(existsSync(ranLongAgo), false, 'our lease, not renewed for longer than OWN_LEASE_MS: evicted');
  assert.equal(existsSync(ranJustNow), true, 'our lease, renewed just now: kept');
  assert.equal(existsSync(leasedByOther), true, "another live process's lease of the same age: kept");

  await trimCache({ cacheDir: layout.root, cacheMaxBytes: 50 * KiB });
  assert.equal(existsSync(ranJustNow), false, 'trimCache: this process is done with everything it leased');
  assert.equal(existsSync(leasedByOther), true, 'still in use by the other process');
});
