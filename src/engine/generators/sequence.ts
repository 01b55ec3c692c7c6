/** Two generators in a row: the second continues from the first's outcome unless that already met the targets. */
import type { EngineName } from '../../protocol';
import type { Generator, Outcome } from './types';

export function sequence(name: EngineName, first: Generator, next: (prior: Outcome) => Generator): Generator {
  return {
    name,
    async generate(ctx, services, emit) {
      const prior = await first.generate(ctx, services, emit);
      const outcome = prior.result.pass || services.signal.aborted ? prior : await next(prior).generate(ctx, services, emit);
      return { ...outcome, result: { ...outcome.result, engine: name } };
    },
  };
}
