/** Every generator by engine name: the engine's one place that knows which engines exist. */
import { ChorusError, type EngineName, type WaiverReport } from '../../protocol';
import type { EngineServices } from '../api';
import type { RunContext } from '../context';
import { explainHoles, formalRan } from '../evaluate';
import { formalBounds, hasStructuralHoles, proveSearchHoles } from '../search/formal';
import { judge } from '../verdict';
import { applyWaiverFile } from '../waivers/run';
import { hybridGenerator } from './hybrid';
import { llmGenerator } from './llm';
import { searchGenerator } from './search';
import type { Generator, Outcome, RunSettings } from './types';

export type { Generator, Outcome, RunSettings } from './types';
export { runSettings, DEFAULT_ROUNDS, DEFAULT_STALL_ROUNDS } from './settings';

const GENERATORS: Record<EngineName, (settings: RunSettings) => Generator> = {
  random: searchGenerator,
  llm: (settings) => llmGenerator(settings),
  hybrid: hybridGenerator,
};

export function generatorFor(engine: EngineName, settings: RunSettings): Generator {
  const make = Object.hasOwn(GENERATORS, engine) ? GENERATORS[engine] : undefined;
  if (!make) throw new ChorusError('bad_input', `Unknown engine '${String(engine)}': use random, llm or hybrid.`);
  return withClosure(make(settings), settings);
}

/**
 * Every engine's result carries its verdict (met, closed, exit code: `judge`, the one rule) and what the formal
 * engine did. The model alone never met the formal engine: its holes are handed
 * to it once at the end (proofs only; a witness there is not replayed).
 */
function withClosure(inner: Generator, settings: RunSettings): Generator {
  return {
    name: inner.name,
    async generate(ctx, services, emit) {
      const outcome = await inner.generate(ctx, services, emit);
      if (inner.name === 'llm' && settings.formal) await proveAtEnd(ctx, services, outcome, settings);
      const { result, report } = outcome;
      let waivers: WaiverReport | undefined;
      if (settings.waivers && report?.status === 'ok') {
        const checked = await applyWaiverFile(
          { ...settings.waivers, inputs: [...ctx.rtlFiles, ...ctx.specFiles] },
          ctx,
          services,
          { points: outcome.points, holes: result.holes },
        );
        result.holes = checked.holes;
        report.holes = checked.holes;
        waivers = checked.report;
      }
      const verdict = judge({
        coverage: result.coverage,
        holes: result.holes,
        targets: ctx.targets,
        ran: report?.status === 'ok',
        cancelled: result.stopReason === 'cancelled',
        requireRaw: settings.requireRaw,
      });
      const formal = formalRan(ctx) ? ctx.formal.summary(outcome.points, result.holes, ctx.targets) : undefined;
      return {
        ...outcome,
        result: {
          ...result,
          pass: verdict.met,
          closed: verdict.closed,
          verdict,
          ...(formal ? { formal } : {}),
          ...(waivers ? { waivers } : {}),
        },
      };
    },
  };
}

async function proveAtEnd(
  ctx: RunContext,
  services: EngineServices,
  outcome: Outcome,
  settings: RunSettings,
): Promise<void> {
  if (
    formalRan(ctx) ||
    outcome.report?.status !== 'ok' ||
    !hasStructuralHoles(outcome.points, ctx.targets) ||
    services.signal.aborted
  )
    return;
  await proveSearchHoles(ctx, services, outcome.points, formalBounds(settings.budgetMs ?? 60_000));
  ctx.formal.takeWitnesses();
  outcome.result.holes = explainHoles(ctx, outcome.result.holes, outcome.points);
  if (outcome.report) outcome.report.holes = outcome.result.holes;
}
