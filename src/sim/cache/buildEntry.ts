/**
 * A finished build in the cache: `<builds>/<key>/chorus_sim` plus `stamp.json`. An entry is trusted only when
 * its stamp matches the key, the binary's size and hash match the stamp, and every source Verilator read
 * (includes too) still has the content it had. Entries appear by rename, so readers never see half of one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Diagnostic } from '../../protocol';
import { SIM_BINARY } from '../verilator/simMain';

export interface EntryStamp {
  schema: 1;
  key: string;
  binarySize: number;
  binarySha256: string;
  /** Every source file Verilator read, with its content hash at build time. */
  deps: { path: string; sha256: string }[];
  /** Warnings of the build, replayed on a cache hit. */
  diagnostics: Diagnostic[];
  notes: string[];
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function entryDir(builds: string, key: string): string {
  return join(builds, key);
}

/** The stamp of a valid entry, or undefined (absent, damaged or stale). */
export async function readValidEntry(
  builds: string,
  key: string,
): Promise<{ stamp: EntryStamp; binary: string } | undefined> {
  const dir = entryDir(builds, key);
  let stamp: EntryStamp;
  try {
    stamp = JSON.parse(await readFile(join(dir, 'stamp.json'), 'utf8')) as EntryStamp;
  } catch {
    return undefined;
  }
  if (stamp.schema !== 1 || stamp.key !== key) return undefined;
  const binary = join(dir, SIM_BINARY);
  const s = await stat(binary).catch(() => undefined);
  if (!s || !s.isFile() || s.size !== stamp.binarySize) return undefined;
  if ((await fileSha256(binary).catch(() => '')) !== stamp.binarySha256) return undefined;
  for (const dep of stamp.deps) {
    if ((await fileSha256(dep.path).catch(() => '')) !== dep.sha256) return undefined;
  }
  // Recency for eviction.
  const now = new Date();
  await utimes(join(dir, 'stamp.json'), now, now).catch(() => undefined);
  return { stamp, binary };
}

/** Moves a built binary into the cache under `key`, replacing a damaged entry. Returns the cached binary path. */
export async function commitEntry(
  builds: string,
  key: string,
  builtBinary: string,
  stamp: Omit<EntryStamp, 'binarySize' | 'binarySha256' | 'schema' | 'key'>,
): Promise<string> {
  const dir = entryDir(builds, key);
  const staging = `${dir}.tmp-${randomBytes(4).toString('hex')}`;
  await mkdir(staging, { recursive: true });
  try {
    const target = join(staging, SIM_BINARY);
    await copyFile(builtBinary, target);
    await chmod(target, 0o755);
    const s = await stat(target);
    const full: EntryStamp = { schema: 1, key, binarySize: s.size, binarySha256: await fileSha256(target), ...stamp };
    await writeFile(join(staging, 'stamp.json'), JSON.stringify(full, null, 1));
    // Callers hold the key's lock, so only a damaged or stale entry can be in the way.
    await removeDir(dir);
    await rename(staging, dir);
    return join(dir, SIM_BINARY);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Renames a folder aside before deleting it, so it disappears at once. */
export async function removeDir(dir: string): Promise<void> {
  const doomed = `${dir}.old-${randomBytes(4).toString('hex')}`;
  try {
    await rename(dir, doomed);
  } catch {
    return;
  }
  await rm(doomed, { recursive: true, force: true });
}
