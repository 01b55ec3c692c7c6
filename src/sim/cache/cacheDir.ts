/** Where the build cache lives, and its layout. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Bumped when the layout or the meaning of a cached entry changes. */
export const CACHE_LAYOUT = 'sim-v1';

export interface CacheLayout {
  root: string;
  /** One folder per content key: the simulator binary and its stamp. */
  builds: string;
  /** Verilator runtime objects, one folder per Verilator version and flags. */
  runtime: string;
  /** Builds in progress; renamed into place when complete. */
  tmp: string;
  /** ccache's own store, so a cold cache is truly cold and everything lives in one place. */
  ccache: string;
}

export function cacheRoot(cacheDir?: string): string {
  if (cacheDir) return resolve(cacheDir);
  if (process.env.CHORUS_CACHE_DIR) return resolve(process.env.CHORUS_CACHE_DIR);
  const xdg = process.env.XDG_CACHE_HOME;
  return xdg ? join(resolve(xdg), 'chorus') : join(homedir(), '.cache', 'chorus');
}

export function cacheLayout(cacheDir?: string): CacheLayout {
  const root = cacheRoot(cacheDir);
  const base = join(root, CACHE_LAYOUT);
  return {
    root,
    builds: join(base, 'builds'),
    runtime: join(base, 'runtime'),
    tmp: join(base, 'tmp'),
    ccache: join(root, 'ccache'),
  };
}
