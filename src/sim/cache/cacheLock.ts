/**
 * One build per cache key at a time, across processes: proper-lockfile's lock folder, refreshed while held
 * and taken over when its holder died (stale). Waiting honours the caller's AbortSignal and a deadline.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { ChorusError, type Logger } from '../../protocol';

const STALE_MS = 20_000;
const POLL_MS = 150;

export async function withCacheLock<T>(
  path: string,
  opts: { signal?: AbortSignal | undefined; timeoutMs: number; logger?: Logger },
  fn: () => Promise<T>,
): Promise<T> {
  await mkdir(dirname(path), { recursive: true });
  const deadline = Date.now() + opts.timeoutMs;
  let release: (() => Promise<void>) | undefined;
  let waited = false;
  while (!release) {
    if (opts.signal?.aborted) throw new ChorusError('cancelled', 'Cancelled.');
    try {
      release = await lockfile.lock(path, {
        realpath: false,
        stale: STALE_MS,
        retries: 0,
        onCompromised: (err) =>
          opts.logger?.warn(`Build cache lock ${path}.lock was lost (${err.message}); continuing.`),
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      if (!waited) opts.logger?.debug(`Waiting for another build of the same sources (${path}).`);
      waited = true;
      if (Date.now() > deadline) {
        throw new ChorusError(
          'failed',
          `Timed out waiting for another build to release ${path}.lock: retry, or delete that folder if no build is running.`,
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
