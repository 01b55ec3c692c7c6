/** The model's closure loop as a generator, optionally continuing from an earlier generator's outcome. */
import { runLlmLoop } from '../llm/loop';
import type { Generator, Outcome, RunSettings } from './types';

export function llmGenerator(settings: RunSettings, from?: Outcome): Generator {
  return {
    name: 'llm',
    generate: (ctx, services, emit) =>
      runLlmLoop(
        ctx,
        services,
        {
          rounds: settings.rounds,
          stallRounds: settings.stallRounds,
          budgetMs: settings.budgetMs,
          simTimeoutMs: settings.simTimeoutMs,
          from,
          seed: settings.samplingSeed,
          instruction: settings.instruction,
          promptTemplates: settings.promptTemplates,
          parseRetries: settings.parseRetries,
          candidates: settings.candidates,
          contextSize: settings.contextSize,
          sampling: settings.sampling,
          requireRaw: settings.requireRaw,
        },
        emit,
      ),
  };
}
