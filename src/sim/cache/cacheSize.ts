/**
 * The build cache's size in bytes, kept under a cap: least recently used simulators and runtime entries
 * (objects and precompiled headers) go first, never one in use by any process (cacheLease) or being built
 * (its lock); leftovers of crashed builds go after a day. ccache keeps itself under a quarter of the cap.
 * Also what `chorus cache info` and `chorus cache clear` do.
 */
import { lstat, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { removeDir } from './buildEntry';
import { cacheLayout, type CacheLayout } from './cacheDir';
import { entryInUse, isLease, OWN_LEASE_MS } from './cacheLease';
import { cacheMaxBytes } from '../process/limits';

/** Leftovers of crashed builds older than this are removed. */
const STALE_TMP_MS = 24 * 3600_000;
const LEFTOVER = /\.(tmp|old)-[0-9a-f]+$/;

/** Bytes of the files under `path` (apparent sizes; links not followed). */
export async function folderBytes(path: string): Promise<number> {
  const s = await lstat(path).catch(() => undefined);
  if (!s) return 0;
  if (!s.isDirectory()) return s.size;
  let total = 0;
  for (const name of await readdir(path).catch(() => [] as string[])) total += await folderBytes(join(path, name));
  return total;
}

interface Entry {
  kind: 'build' | 'runtime';
  dir: string;
  bytes: number;
  /** Last use (the stamp's mtime, renewed on every hit). */
  used: number;
}

async function entries(
  folder: string,
  kind: Entry['kind'],
  stampName: string,
): Promise<{ list: Entry[]; names: string[] }> {
  const names = await readdir(folder).catch(() => [] as string[]);
  const list: Entry[] = [];
  for (const name of names) {
    if (LEFTOVER.test(name) || isLease(name) || name.endsWith('.lock')) continue;
    const dir = join(folder, name);
    const s = await stat(dir).catch(() => undefined);
    if (!s?.isDirectory()) continue;
    const stampStat = await stat(join(dir, stampName)).catch(() => undefined);
    list.push({ kind, dir, bytes: await folderBytes(dir), used: stampStat?.mtimeMs ?? 0 });
  }
  return { list, names };
}

/** ccache's own cap, as CCACHE_MAXSIZE: a quarter of the cache cap (at least 1 MiB). */
export function ccacheMaxSize(capBytes: number): string {
  return `${Math.max(1, Math.floor(capBytes / 4 / 1024 ** 2))}Mi`;
}

export interface CacheInfo {
  root: string;
  capBytes: number;
  totalBytes: number;
  builds: { count: number; bytes: number };
  /** Verilator runtime objects and precompiled headers. */
  runtime: { count: number; bytes: number; precompiledHeaders: number };
  ccacheBytes: number;
  /** Builds in progress and leftovers of crashed ones. */
  tmpBytes: number;
}

export async function cacheInfo(
  opts: { cacheDir?: string | undefined; cacheMaxBytes?: number | undefined } = {},
): Promise<CacheInfo> {
  const layout = cacheLayout(opts.cacheDir);
  const builds = (await entries(layout.builds, 'build', 'stamp.json')).list;
  const runtime = (await entries(layout.runtime, 'runtime', 'runtime.json')).list;
  let precompiledHeaders = 0;
  for (const r of runtime) if (await stat(join(r.dir, 'chorus_pch.h.gch')).catch(() => undefined)) precompiledHeaders++;
  const sum = (list: Entry[]): number => list.reduce((n, e) => n + e.bytes, 0);
  return {
    root: layout.root,
    capBytes: cacheMaxBytes(opts.cacheMaxBytes),
    // Everything under the root, lease and lock files included.
    totalBytes: await folderBytes(layout.root),
    builds: { count: builds.length, bytes: sum(builds) },
    runtime: { count: runtime.length, bytes: sum(runtime), precompiledHeaders },
    ccacheBytes: await folderBytes(layout.ccache),
    tmpBytes: await folderBytes(layout.tmp),
  };
}

/** Removes leftovers of crashed builds older than a day, in the builds, runtime and tmp folders. */
async function removeLeftovers(layout: CacheLayout, now: number): Promise<number> {
  let removed = 0;
  for (const [folder, pattern] of [
    [layout.builds, LEFTOVER],
    [layout.runtime, LEFTOVER],
    [layout.tmp, /./],
  ] as const) {
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      if (!pattern.test(name)) continue;
      const s = await stat(join(folder, name)).catch(() => undefined);
      if (s && now - s.mtimeMs > STALE_TMP_MS) {
        await rm(join(folder, name), { recursive: true, force: true });
        removed++;
      }
    }
  }
  return removed;
}

export interface EvictOptions {
  /** Byte cap of the whole cache root. */
  maxBytes: number;
  /** Most simulators kept, whatever their size (CHORUS_CACHE_MAX_BUILDS, default 200). */
  maxBuilds?: number;
  /** This process is done with every entry it leased (the end of a bench run): its own leases protect nothing. */
  releaseOwn?: boolean;
}

/**
 * Keeps the cache under `maxBytes` and `maxBuilds`, dropping the least recently used simulators and runtime
 * entries first, never one in use. Returns how many folders were removed.
 */
export async function evictCache(layout: CacheLayout, opts: EvictOptions): Promise<number> {
  const now = Date.now();
  let removed = await removeLeftovers(layout, now);
  const builds = await entries(layout.builds, 'build', 'stamp.json');
  const runtime = await entries(layout.runtime, 'runtime', 'runtime.json');
  let total = await folderBytes(layout.root);
  let buildCount = builds.list.length;
  const maxBuilds = opts.maxBuilds ?? 200;
  const candidates = [...builds.list, ...runtime.list].sort((a, b) => a.used - b.used);
  for (const e of candidates) {
    const overBuilds = e.kind === 'build' && buildCount > maxBuilds;
    if (total <= opts.maxBytes && !overBuilds) continue;
    // Runtime objects stay leased for a whole compile (minutes): only simulators use the short own-lease window.
    const ownLeaseMs = opts.releaseOwn ? 0 : e.kind === 'build' ? OWN_LEASE_MS : undefined;
    const inUse = await entryInUse(e.dir, e.kind === 'build' ? builds.names : runtime.names, ownLeaseMs);
    if (inUse) continue;
    await removeDir(e.dir);
    removed++;
    total -= e.bytes;
    if (e.kind === 'build') buildCount--;
  }
  return removed;
}

/**
 * Brings the cache under its cap once a caller is done with everything it built (a bench run: eviction after
 * each build spares the simulators this process ran moments ago). Returns how many folders were removed.
 */
export async function trimCache(
  opts: { cacheDir?: string | undefined; cacheMaxBytes?: number | undefined } = {},
): Promise<number> {
  const maxBuilds = Number(process.env.CHORUS_CACHE_MAX_BUILDS) || 200;
  return evictCache(cacheLayout(opts.cacheDir), {
    maxBytes: cacheMaxBytes(opts.cacheMaxBytes),
    maxBuilds,
    releaseOwn: true,
  });
}

/** Everything not in use: simulators, runtime entries, ccache's store, leftovers. Returns the bytes freed. */
export async function clearCache(
  opts: { cacheDir?: string | undefined } = {},
): Promise<{ freedBytes: number; keptInUse: number }> {
  const layout = cacheLayout(opts.cacheDir);
  const before = await folderBytes(layout.root);
  let keptInUse = 0;
  for (const [folder, kind, stampName] of [
    [layout.builds, 'build', 'stamp.json'],
    [layout.runtime, 'runtime', 'runtime.json'],
  ] as const) {
    const found = await entries(folder, kind, stampName);
    for (const e of found.list) {
      if (await entryInUse(e.dir, found.names)) keptInUse++;
      else await removeDir(e.dir);
    }
  }
  // Builds in progress live in tmp for minutes at most; older folders there are leftovers.
  const now = Date.now();
  for (const name of await readdir(layout.tmp).catch(() => [] as string[])) {
    const s = await stat(join(layout.tmp, name)).catch(() => undefined);
    if (s && now - s.mtimeMs > 15 * 60_000) await rm(join(layout.tmp, name), { recursive: true, force: true });
  }
  for (const folder of [layout.builds, layout.runtime]) {
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      if (LEFTOVER.test(name)) await rm(join(folder, name), { recursive: true, force: true });
    }
  }
  // ccache's store: results only, a concurrent build that misses one just compiles.
  for (const name of await readdir(layout.ccache).catch(() => [] as string[]))
    await rm(join(layout.ccache, name), { recursive: true, force: true });
  return { freedBytes: Math.max(0, before - (await folderBytes(layout.root))), keptInUse };
}
