/**
 * Which cache entries are in use: a process that is about to run (or is running) a cached simulator, or is
 * compiling against cached runtime objects, holds a lease on that entry: an empty file `<entry>.use-<pid>`
 * beside it, renewed on every use. Eviction and `chorus cache clear` skip an entry with a lease whose process
 * lives and that was renewed recently; a lease of a dead process is ignored and removed.
 */
import { readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A lease not renewed for this long no longer protects its entry (a long-lived language server moves on). */
export const LEASE_MS = 15 * 60_000;
/**
 * This process's own lease on a simulator protects it only this long after its last run: a bench or a language
 * server holds leases on every simulator it built, and within one process "in use" means run just now or about
 * to run again (a search renews before and after each run of its candidate simulator).
 */
export const OWN_LEASE_MS = 5_000;
/** A build lock (proper-lockfile refreshes it every few seconds) older than this is a dead build's. */
const LOCK_FRESH_MS = 60_000;

const LEASE = /^(.+)\.use-(\d+)$/;

function leasePath(entry: string, pid = process.pid): string {
  return `${entry}.use-${pid}`;
}

/** Takes (or renews) this process's lease on an entry folder. */
export async function leaseEntry(entry: string): Promise<void> {
  const path = leasePath(entry);
  const now = new Date();
  await utimes(path, now, now).catch(() => writeFile(path, '').catch(() => undefined));
}

/** Renews this process's lease if it holds one (cheap: one utimes; for every simulation run). */
export async function renewLease(entry: string): Promise<void> {
  const now = new Date();
  await utimes(leasePath(entry), now, now).catch(() => undefined);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether any live process holds a recent lease on `entry`, or a build holds its lock. Dead leases are removed.
 * `ownLeaseMs`: how recent this process's own lease must be to count (simulators: OWN_LEASE_MS); default LEASE_MS.
 */
export async function entryInUse(entry: string, names?: string[], ownLeaseMs = LEASE_MS): Promise<boolean> {
  const folder = dirname(entry);
  const base = basename(entry);
  const now = Date.now();
  const lock = await stat(`${entry}.lock`).catch(() => undefined);
  if (lock && now - lock.mtimeMs < LOCK_FRESH_MS) return true;
  let used = false;
  for (const name of names ?? (await readdir(folder).catch(() => [] as string[]))) {
    const m = LEASE.exec(name);
    if (!m || m[1] !== base) continue;
    const path = join(folder, name);
    if (!alive(Number(m[2]))) {
      await rm(path, { force: true });
      continue;
    }
    const s = await stat(path).catch(() => undefined);
    const fresh = Number(m[2]) === process.pid ? ownLeaseMs : LEASE_MS;
    if (s && now - s.mtimeMs < fresh) used = true;
  }
  return used;
}

/** True for the names of lease files (not entries). */
export function isLease(name: string): boolean {
  return LEASE.test(name);
}
