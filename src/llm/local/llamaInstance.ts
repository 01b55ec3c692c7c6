/**
 * One llama.cpp runtime per compute setting for the whole process: loading the native binding is the slow part,
 * and models come and go on top of it.
 */
import type { Llama } from 'node-llama-cpp' with { 'resolution-mode': 'import' };
import type { Logger } from '../../protocol';
import type { GpuSetting } from './compute';
import type { NodeLlamaCpp } from './nodeLlamaCpp';

const runtimes = new Map<string, Promise<Llama>>();

/**
 * The runtime for a GPU setting. `build: 'never'`: only the prebuilt binaries shipped with node-llama-cpp are used
 * (no compiler at run time); a GPU whose binary or driver is missing fails here, and the caller falls back.
 */
export function getLlamaFor(mod: NodeLlamaCpp, gpu: GpuSetting, logger: Logger): Promise<Llama> {
  const key = String(gpu);
  let runtime = runtimes.get(key);
  if (!runtime) {
    runtime = mod
      .getLlama({
        gpu,
        build: 'never',
        progressLogs: false,
        logLevel: mod.LlamaLogLevel.warn,
        logger: (level, message) => logger.debug(`llama.cpp ${level}: ${message.trim()}`),
      })
      .catch((err: unknown) => {
        runtimes.delete(key);
        throw err;
      });
    runtimes.set(key, runtime);
  }
  return runtime.then((llama) => {
    // node-llama-cpp's CPU default is max(math cores, 4) threads; on a 2-core machine 4 spinning threads made
    // generation ~100× slower, so never ask for more threads than cores.
    if (llama.gpu === false) llama.maxThreads = Math.min(llama.maxThreads || llama.cpuMathCores, llama.cpuMathCores);
    return llama;
  });
}

/**
 * CPU threads per evaluation: the option, else $CHORUS_THREADS, else node-llama-cpp's choice (capped above).
 * llama.cpp's threads spin at each step: on a busy machine (tests sharing two cores) one thread can be an order of
 * magnitude faster than two, hence the override.
 */
export function threadsSetting(threads?: number): number | undefined {
  if (threads !== undefined) return threads;
  const env = Number(process.env.CHORUS_THREADS);
  return Number.isInteger(env) && env > 0 ? env : undefined;
}
