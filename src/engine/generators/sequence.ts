/**
 * Two generators in a row: the second continues from the first's outcome unless that already met the targets,
 * or all that keeps it from them is proven unreachable (nothing is left for the second to chase).
 */
import {
  isProven,
  OVERALL_KINDS,
  unmetTargets,
  type CoverageKind,
  type EngineName,
  type GenerateResult,
  type Targets,
} from '../../protocol';
import type { Generator, Outcome } from './types';

/** True when every hole of a kind whose target is unmet is proven unreachable. */
export function nothingLeftToChase(result: GenerateResult, targets: Targets): boolean {
  const unmet = unmetTargets(result.coverage, targets);
  if (!unmet.length) return true;
  const kinds = new Set<CoverageKind>(unmet.flatMap((m) => (m === 'overall' ? [...OVERALL_KINDS] : [m])));
  // A run with no measurement (a failed build) has no holes yet everything to chase.
  return result.holes.length > 0 && result.holes.every((h) => !kinds.has(h.kind) || isProven(h));
}

export function sequence(name: EngineName, first: Generator, next: (prior: Outcome) => Generator): Generator {
  return {
    name,
    async generate(ctx, services, emit) {
      const prior = await first.generate(ctx, services, emit);
      const done =
        prior.result.pass ||
        services.signal.aborted ||
        (prior.report !== null && nothingLeftToChase(prior.result, ctx.targets));
      const outcome = done ? prior : await next(prior).generate(ctx, services, emit);
      return { ...outcome, result: { ...outcome.result, engine: name } };
    },
  };
}
