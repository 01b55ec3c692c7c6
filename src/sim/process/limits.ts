/**
 * The resource limits of every child process that reads untrusted text (preprocessor, Verilator, the C++
 * compile of its output, the simulator), and how a limit hit reads. The memory limit bounds CHORUS and the
 * tool it runs together; the tool's share is bounded twice: per process by the address space (RLIMIT_AS, set
 * by prlimit) and by the resident memory of its whole process tree (sampled from /proc by runGroup), since
 * make runs several compilers at once.
 */
import { formatBytes, parseByteSize } from '../../protocol';

/** Memory of one tool's process tree (and address space of each process): fits a 16 GiB laptop beside the editor. */
export const DEFAULT_MEMORY_LIMIT_BYTES = 4 * 1024 ** 3;
/** The build cache (simulators, runtime objects, precompiled headers, ccache) is kept under this many bytes. */
export const DEFAULT_CACHE_MAX_BYTES = 2 * 1024 ** 3;
/** Processes one tool's tree may hold at once (make -j8 with ccache and the compiler's stages is about 30). */
export const MAX_TREE_PROCESSES = 128;
/** Largest file a build step may write (RLIMIT_FSIZE): generated C++ of a huge model stays far below it. */
export const BUILD_FILE_BYTES = 2 * 1024 ** 3;

/** Which bound ended a step. */
export type LimitResource = 'memory' | 'cpu' | 'processes' | 'file-size';

export interface LimitHit {
  resource: LimitResource;
  /** Peak resident memory of the tree seen by the sampler, when it was the one that stopped it. */
  peakBytes?: number;
}

/** The memory limit: the option, else CHORUS_MEMORY_LIMIT (`4G`, `2048M`), else 4 GiB. */
export function memoryLimitBytes(option?: number): number {
  if (option !== undefined && option > 0) return Math.floor(option);
  const env = process.env.CHORUS_MEMORY_LIMIT;
  const parsed = env ? parseByteSize(env) : undefined;
  return parsed ?? DEFAULT_MEMORY_LIMIT_BYTES;
}

/**
 * What one tool's tree may use so that CHORUS and the tool together stay under `limit`: the limit less
 * CHORUS's own resident memory and a tenth kept for the sampling interval, but never under a quarter of it
 * (a language server holding a loaded model would otherwise leave the tools nothing).
 */
export function toolMemoryBytes(limit: number): number {
  return Math.floor(Math.max(limit / 4, limit - process.memoryUsage.rss() - limit / 10));
}

/** The cache cap: the option, else CHORUS_CACHE_MAX (`2G`, `500M`), else 2 GiB. */
export function cacheMaxBytes(option?: number): number {
  if (option !== undefined && option > 0) return Math.floor(option);
  const env = process.env.CHORUS_CACHE_MAX;
  const parsed = env ? parseByteSize(env) : undefined;
  return parsed ?? DEFAULT_CACHE_MAX_BYTES;
}

// The parser lives in the protocol, where the settings read it too; the CLI and the engine import it from here.
export { formatBytes, parseByteSize };

/** Messages of tools that ran out of address space (std::bad_alloc, GCC's and glibc's texts). */
const OUT_OF_MEMORY = /std::bad_alloc|virtual memory exhausted|out of memory|Cannot allocate memory|memory exhausted/i;

/**
 * Reads a finished step's end: which limit stopped it, if one did. `sampled` is the sampler's verdict; the
 * rest is how a process reports hitting an rlimit itself (Verilator's wrapper says "threw signal N").
 */
export function limitFromExit(run: {
  signal: NodeJS.Signals | null;
  code: number | null;
  output: string;
  limit?: LimitHit | undefined;
}): LimitHit | undefined {
  if (run.limit) return run.limit;
  const thrown = /Verilator threw signal (\d+)/.exec(run.output);
  const signal = run.signal ?? (thrown ? signalName(Number(thrown[1])) : null);
  if (signal === 'SIGXCPU') return { resource: 'cpu' };
  if (signal === 'SIGXFSZ') return { resource: 'file-size' };
  if (run.code !== 0 && OUT_OF_MEMORY.test(run.output)) return { resource: 'memory' };
  return undefined;
}

/** The signal that ended a step from outside (SIGKILL by the kernel's out-of-memory killer, say), if any. */
export function killedBy(run: { signal: NodeJS.Signals | null; output: string }): string | undefined {
  if (run.signal) return run.signal;
  const thrown = /Verilator threw signal (\d+)/.exec(run.output);
  return thrown ? (signalName(Number(thrown[1])) ?? `signal ${thrown[1]}`) : undefined;
}

function signalName(n: number): NodeJS.Signals | null {
  const names: Record<number, NodeJS.Signals> = {
    6: 'SIGABRT',
    9: 'SIGKILL',
    11: 'SIGSEGV',
    15: 'SIGTERM',
    24: 'SIGXCPU',
    25: 'SIGXFSZ',
  };
  return names[n] ?? null;
}

/** "needs more than 4 GiB of memory", "ran past its CPU-time limit (600 s)", … */
export function limitPhrase(
  hit: LimitHit,
  limits: { memoryBytes: number; cpuSeconds?: number; fileBytes?: number },
): string {
  switch (hit.resource) {
    case 'memory':
      return `needs more memory than the ${formatBytes(limits.memoryBytes)} limit allows`;
    case 'cpu':
      return `ran past its CPU-time limit${limits.cpuSeconds ? ` (${limits.cpuSeconds} s)` : ''}`;
    case 'processes':
      return `started more than ${MAX_TREE_PROCESSES} processes`;
    default:
      return `wrote a file larger than ${formatBytes(limits.fileBytes ?? BUILD_FILE_BYTES)}`;
  }
}
