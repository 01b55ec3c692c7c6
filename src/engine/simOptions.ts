/** The simulator's options for one run, assembled in one place for every generator. */
import type { SimOptions } from '../sim';
import type { EngineServices } from './api';
import type { RunContext } from './context';

export function simOptionsFor(ctx: RunContext, services: EngineServices): SimOptions {
  return {
    verilatorPath: services.verilatorPath,
    cacheDir: services.cacheDir,
    memoryLimitBytes: services.memoryLimitBytes,
    cacheMaxBytes: services.cacheMaxBytes,
    logger: services.logger,
    signal: services.signal,
    workspaceRoot: ctx.workDir,
    design: ctx.design,
  };
}
