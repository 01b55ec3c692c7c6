/**
 * Faults of the machine, not of the testbench: a full disk or quota, a read-only or unwritable folder. Each is a
 * ChorusError('infrastructure') (CLI exit 4), thrown where it is found (the build cache, a tool's output, the
 * simulation's folder), so no report calls it a compile or simulation error and no model is asked to fix its
 * testbench for it. A missing tool has its own kind, `missing_tool`.
 */
import { access, constants, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, relative, isAbsolute } from 'node:path';
import { ChorusError, isInfrastructureError } from '../../protocol';

export type FsFault = 'ENOSPC' | 'EDQUOT' | 'EROFS' | 'EACCES' | 'EPERM';

/** A folder CHORUS writes to, as messages name it, and how the user picks another. */
export interface WritePlace {
  /** `the build cache`, `the simulation folder`. */
  what: string;
  folder: string;
  /** The way to another folder: `set CHORUS_CACHE_DIR to one`. */
  elsewhere: string;
}

export function cachePlace(root: string): WritePlace {
  return { what: 'the build cache', folder: root, elsewhere: 'set CHORUS_CACHE_DIR to a writable folder with room' };
}

export function runPlace(folder: string): WritePlace {
  return { what: 'the simulation folder', folder, elsewhere: 'set TMPDIR to a writable folder with room' };
}

/** How tools (Verilator, g++, as, ccache, make) word these faults. */
const OUTPUT_FAULTS: readonly [RegExp, FsFault][] = [
  [/No space left on device/i, 'ENOSPC'],
  [/Disk quota exceeded/i, 'EDQUOT'],
  [/Read-only file system/i, 'EROFS'],
];

/** The fault a tool's output reports, if it reports one. */
export function faultInOutput(output: string): FsFault | undefined {
  return OUTPUT_FAULTS.find(([re]) => re.test(output))?.[1];
}

function inside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * The fault a file-system call failed with, if it is one. A full disk or a read-only one is always the machine's;
 * a permission error only inside `place` (elsewhere it is about a file of the user's, which is their input).
 */
export function faultOfError(err: unknown, place: WritePlace): FsFault | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  const code = e?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EROFS') return code;
  if ((code === 'EACCES' || code === 'EPERM') && (!e?.path || inside(e.path, place.folder))) return code;
  return undefined;
}

const WHAT_HAPPENED: Record<FsFault, string> = {
  ENOSPC: 'is on a disk with no space left (ENOSPC)',
  EDQUOT: 'is on a disk whose quota is used up (EDQUOT)',
  EROFS: 'is on a read-only file system (EROFS)',
  EACCES: 'is not writable (EACCES)',
  EPERM: 'is not writable (EPERM)',
};

/** The error the user gets: where, what, and what to do; it is the machine's, not the testbench's. */
export function infrastructureError(fault: FsFault, place: WritePlace, cause?: unknown): ChorusError {
  const fix =
    fault === 'ENOSPC' || fault === 'EDQUOT'
      ? 'Free space there'
      : fault === 'EROFS'
        ? 'Remount it writable'
        : 'Make it writable';
  return new ChorusError(
    'infrastructure',
    `${place.what[0].toUpperCase()}${place.what.slice(1)} (${place.folder}) ${WHAT_HAPPENED[fault]}: not a fault of the testbench. ${fix}, or ${place.elsewhere}, and run again.`,
    undefined,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Any error that is a fault of the machine, as its infrastructure error: one already classified, or a raw full or
 * read-only disk error from a write no guard saw (a temporary folder). Undefined for anything else. The adapters
 * and the model loop ask this, so such an error ends the work with exit 4 wherever it came from.
 */
export function machineFault(err: unknown): ChorusError | undefined {
  if (isInfrastructureError(err)) return err;
  const e = err as NodeJS.ErrnoException | undefined;
  const code = e?.code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT' && code !== 'EROFS') return undefined;
  const place = {
    what: 'a folder CHORUS writes to',
    folder: e?.path ?? tmpdir(),
    elsewhere: 'set TMPDIR and CHORUS_CACHE_DIR to writable folders with room',
  };
  return infrastructureError(code, place, err);
}

/** Runs `work`; a file-system fault in `place` comes out as its infrastructure error, anything else as it was. */
export async function guardWrites<T>(place: WritePlace, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const fault = faultOfError(err, place);
    throw fault ? infrastructureError(fault, place, err) : err;
  }
}

/**
 * Why a folder that could not be created is unusable. A recursive mkdir on a read-only disk says ENOENT (the
 * first missing folder), so the nearest folder that exists is asked whether it can be written.
 */
export async function unwritableFault(folder: string, err: unknown, place: WritePlace): Promise<FsFault | undefined> {
  const direct = faultOfError(err, place);
  if (direct) return direct;
  for (let dir = folder; ; dir = dirname(dir)) {
    const found = await access(dir).then(
      () => true,
      () => false,
    );
    if (found)
      return access(dir, constants.W_OK).then(
        () => undefined,
        (e: unknown) => faultOfError(e, { ...place, folder: dir }),
      );
    if (dirname(dir) === dir) return undefined;
  }
}

/** True when the disk holding `folder` has no block left for this process (what a write that stopped short leaves). */
export async function diskFull(folder: string): Promise<boolean> {
  const s = await statfs(folder).catch(() => undefined);
  if (!s || s.blocks === 0) return false;
  // Root may write into the blocks a file system keeps in reserve; others stop where those begin.
  return (process.getuid?.() === 0 ? s.bfree : s.bavail) === 0;
}

/**
 * Why a tool that writes into `folder` failed, when the machine is why: its output names the fault, or the disk is
 * full (Verilator 5.006 writes empty files on a full disk and exits 0; make then fails on them).
 */
export async function toolFault(output: string, folder: string): Promise<FsFault | undefined> {
  return faultInOutput(output) ?? ((await diskFull(folder)) ? 'ENOSPC' : undefined);
}
