/** Small helpers the side-by-side benches share: a timed call that keeps its error, and a covered/total cell. */
import type { CoverageSummary } from '../src/protocol';

/** Runs `fn`, timing it; an error is kept (its message, cut) instead of ending the bench. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value?: T; error?: string }> {
  const t0 = performance.now();
  try {
    const value = await fn();
    return { ms: Math.round(performance.now() - t0), value };
  } catch (err) {
    return {
      ms: Math.round(performance.now() - t0),
      error: err instanceof Error ? err.message.slice(0, 400) : String(err),
    };
  }
}

/** `covered/total` of one metric, or `-` when the side has no coverage. */
export const coverageCell = (c: CoverageSummary | undefined, k: 'line' | 'branch' | 'toggle') =>
  c ? `${c[k].covered}/${c[k].total}` : '-';
