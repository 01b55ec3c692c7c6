/**
 * Which compute backend to try for a local model: the configured GPU (or node-llama-cpp's automatic pick: CUDA,
 * Vulkan, Metal), then the CPU when the GPU backend fails to load or to take the model.
 */
import type { Logger } from '../../protocol';

export type GpuSetting = 'auto' | 'cuda' | 'vulkan' | 'metal' | false;

/** The order of attempts for a setting: the GPU choice first, the CPU last. */
export function computeAttempts(setting: GpuSetting): GpuSetting[] {
  return setting === false ? [false] : [setting, false];
}

/** The name status events and logs use for a resolved compute backend. */
export function computeName(gpu: GpuSetting | string): string {
  return gpu === false ? 'cpu' : String(gpu);
}

/** Thrown by an attempt that already ran on the CPU: falling back to the CPU again would only repeat it. */
export class FinalAttemptError extends Error {
  constructor(override readonly cause: unknown) {
    super((cause as Error)?.message ?? String(cause));
  }
}

export interface FallbackResult<T> {
  value: T;
  /** The setting of the attempt that worked. */
  gpu: GpuSetting;
  /** What failed before it, in order. */
  failures: { gpu: GpuSetting; message: string }[];
}

/** Runs `attempt` for each setting in order until one works; rethrows the last failure when none does. */
export async function withComputeFallback<T>(
  setting: GpuSetting,
  attempt: (gpu: GpuSetting) => Promise<T>,
  logger: Logger,
  shouldStop: (err: unknown) => boolean = () => false,
): Promise<FallbackResult<T>> {
  const failures: FallbackResult<T>['failures'] = [];
  const attempts = computeAttempts(setting);
  for (const [i, gpu] of attempts.entries()) {
    try {
      return { value: await attempt(gpu), gpu, failures };
    } catch (err) {
      const final = err instanceof FinalAttemptError;
      const cause = final ? err.cause : err;
      if (final || shouldStop(cause) || i === attempts.length - 1) throw cause;
      const message = (cause as Error)?.message ?? String(cause);
      failures.push({ gpu, message });
      logger.warn(
        `The ${gpu === 'auto' ? 'automatically chosen GPU' : computeName(gpu)} backend failed (${message}); falling back to the CPU.`,
      );
    }
  }
  throw new Error('unreachable: no compute attempts');
}
