/**
 * Hybrid: the model-free search closes the easy points in part of the budget; the model then starts from its
 * testbench and sees only the remaining holes.
 */
import { llmGenerator } from './llm';
import { searchGenerator } from './search';
import { sequence } from './sequence';
import type { Generator, RunSettings } from './types';

/** The search's share: a third of the run's budget (at least 5 s), or 30 s when the run has none. */
function searchBudgetMs(budgetMs: number | undefined): number {
  return budgetMs ? Math.max(5_000, Math.floor(budgetMs / 3)) : 30_000;
}

export function hybridGenerator(settings: RunSettings): Generator {
  const search = searchGenerator({ ...settings, budgetMs: searchBudgetMs(settings.budgetMs) });
  const created = Date.now();
  // The model gets what the search left of the run's budget (at least a second to say why it stopped).
  const modelBudget = () =>
    settings.budgetMs === undefined ? undefined : Math.max(1_000, settings.budgetMs - (Date.now() - created));
  return sequence(
    'hybrid',
    search,
    (prior) => llmGenerator({ ...settings, budgetMs: modelBudget() }, prior),
    Boolean(settings.requireRaw),
  );
}
