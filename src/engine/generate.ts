/** The engine's entry: one closure run as an AsyncIterable of loop events, ending with `final`. */
import { rm } from 'node:fs/promises';
import { ChorusError, type GenerateResult, type LoopEvent } from '../protocol';
import type { EngineServices, GenerateRequest } from './api';
import { channel, type Emit } from './channel';
import { prepareRun, type RunContext } from './context';
import { runLlmLoop } from './llm/loop';
import { runRandomSearch } from './random/search';

export const DEFAULT_ROUNDS = 3;
export const DEFAULT_STALL_ROUNDS = 2;

async function run(req: GenerateRequest, services: EngineServices, ctx: RunContext, emit: Emit<LoopEvent>): Promise<GenerateResult> {
  const budgetMs = req.budgetSeconds !== undefined ? req.budgetSeconds * 1000 : undefined;
  const simTimeoutMs = (req.simTimeoutSeconds ?? 30) * 1000;
  const llmOptions = {
    rounds: req.rounds ?? DEFAULT_ROUNDS,
    stallRounds: req.stallRounds ?? DEFAULT_STALL_ROUNDS,
    budgetMs,
    simTimeoutMs,
  };
  switch (req.engine) {
    case 'random': {
      const out = await runRandomSearch(ctx, services, { seed: req.seed ?? 1, ...(budgetMs ? { budgetMs } : {}), simTimeoutMs }, emit);
      return out.result;
    }
    case 'llm':
      return runLlmLoop(ctx, services, { ...llmOptions, engineName: 'llm' }, emit);
    case 'hybrid': {
      // The model-free search closes the easy points; the model gets its testbench and only the remaining holes.
      const searchBudget = budgetMs ? Math.max(5_000, Math.floor(budgetMs / 3)) : 30_000;
      const first = await runRandomSearch(ctx, services, { seed: req.seed ?? 1, budgetMs: searchBudget, simTimeoutMs }, emit);
      if (first.result.pass || services.signal.aborted) return { ...first.result, engine: 'hybrid' };
      return runLlmLoop(
        ctx,
        services,
        {
          ...llmOptions,
          engineName: 'hybrid',
          priorRounds: first.result.rounds,
          seed: { testbench: first.result.testbench, report: first.report, points: first.points, filename: first.filename },
        },
        emit,
      );
    }
    default:
      throw new ChorusError('bad_input', `Unknown engine '${String(req.engine)}': use random, llm or hybrid.`);
  }
}

export function generate(req: GenerateRequest, services: EngineServices): AsyncIterable<LoopEvent> {
  return channel<LoopEvent>(async (emit) => {
    const ctx = await prepareRun(req);
    try {
      await runAndReport(req, services, ctx, emit);
    } finally {
      // A run folder the engine made for itself goes away with the run; the result carries the testbench text.
      if (!req.workDir) await rm(ctx.workDir, { recursive: true, force: true });
    }
  });
}

async function runAndReport(req: GenerateRequest, services: EngineServices, ctx: RunContext, emit: Emit<LoopEvent>): Promise<void> {
  emit({ type: 'start', top: ctx.top.name, engine: req.engine, targets: ctx.targets, model: services.backend?.label, files: ctx.rtlFiles });
  const result = await run(req, services, ctx, emit);
  emit({ type: 'final', result });
}

/** Runs to the end and returns the final result, passing every event to `onEvent`. */
export async function generateToEnd(
  req: GenerateRequest,
  services: EngineServices,
  onEvent?: (e: LoopEvent) => void,
): Promise<GenerateResult> {
  let result: GenerateResult | undefined;
  for await (const e of generate(req, services)) {
    onEvent?.(e);
    if (e.type === 'final') result = e.result;
  }
  if (!result) throw new ChorusError('failed', 'The engine ended without a result.');
  return result;
}
