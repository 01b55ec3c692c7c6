/** The server's `chorus/*` requests as one table: each descriptor of `Requests` to its handler. */
import type { RequestHandlers } from '../rpc';
import type { RequestContext } from './context';
import { filelistsFor, tops } from './design';
import { ask, listModels } from './model';
import { exportWaivers } from './exports';
import { coverage, exportLcov } from './results';
import { generate, steer } from './runs';

export type { RequestContext } from './context';

export function requestHandlers(ctx: RequestContext): RequestHandlers {
  return {
    generate: (p, token) => generate(ctx, p, token),
    coverage: (p) => coverage(ctx, p),
    steer: (p) => steer(ctx, p),
    ask: (p, token) => ask(ctx, p, token),
    listModels: (p) => listModels(ctx, p),
    exportLcov: (p) => exportLcov(ctx, p),
    exportWaivers: (p) => exportWaivers(ctx, p),
    tops: (p) => tops(ctx, p),
    filelistsFor: (p) => filelistsFor(ctx, p),
  };
}
