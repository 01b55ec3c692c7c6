/**
 * Two generators in a row: the second continues from the first's outcome unless that already met the targets,
 * or all that keeps it from them is proven unreachable or waived (nothing is left for the second to chase: the
 * verdict's own exclusions, src/engine/standing.ts).
 */
import type { EngineName } from '../../protocol';
import { leftToChase } from '../standing';
import type { Generator, Outcome } from './types';

/** `requireRaw`: the verdict judges raw counts, so only a proof or a waiver leaves a hole nothing to chase. */
export function sequence(
  name: EngineName,
  first: Generator,
  next: (prior: Outcome) => Generator,
  requireRaw = false,
): Generator {
  return {
    name,
    async generate(ctx, services, emit) {
      const prior = await first.generate(ctx, services, emit);
      const done =
        prior.result.pass ||
        services.signal.aborted ||
        (prior.report !== null && !leftToChase(ctx, prior.points, requireRaw));
      const outcome = done ? prior : await next(prior).generate(ctx, services, emit);
      return { ...outcome, result: { ...outcome.result, engine: name } };
    },
  };
}
