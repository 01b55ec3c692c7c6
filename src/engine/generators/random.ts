/** The model-free search as a generator: an adapter over `runRandomSearch`, whose outcome already has this shape. */
import { formalBounds } from '../random/formal';
import { DEFAULT_RANDOM, runRandomSearch } from '../random/search';
import type { Generator, RunSettings } from './types';

export function randomGenerator(settings: RunSettings): Generator {
  return {
    name: 'random',
    generate: (ctx, services, emit) =>
      runRandomSearch(
        ctx,
        services,
        {
          seed: settings.seed,
          ...(settings.budgetMs ? { budgetMs: settings.budgetMs } : {}),
          ...(settings.startedAt !== undefined ? { startedAt: settings.startedAt } : {}),
          simTimeoutMs: settings.simTimeoutMs,
          formal: settings.formal ? formalBounds(settings.budgetMs ?? DEFAULT_RANDOM.budgetMs) : null,
        },
        emit,
      ),
  };
}
