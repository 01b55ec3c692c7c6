/** The model-free search as a generator: an adapter over `runSearch`, whose outcome already has this shape. */
import { formalBounds } from '../search/formal';
import { DEFAULT_SEARCH, runSearch } from '../search/search';
import type { Generator, RunSettings } from './types';

export function searchGenerator(settings: RunSettings): Generator {
  return {
    name: 'random',
    generate: (ctx, services, emit) =>
      runSearch(
        ctx,
        services,
        {
          seed: settings.seed,
          ...(settings.budgetMs ? { budgetMs: settings.budgetMs } : {}),
          ...(settings.startedAt !== undefined ? { startedAt: settings.startedAt } : {}),
          simTimeoutMs: settings.simTimeoutMs,
          requireRaw: Boolean(settings.requireRaw),
          formal: settings.formal ? formalBounds(settings.budgetMs ?? DEFAULT_SEARCH.budgetMs) : null,
        },
        emit,
      ),
  };
}
