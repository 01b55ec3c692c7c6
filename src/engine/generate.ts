/** The engine's entry: one closure run as an AsyncIterable of loop events, ending with `final`. */
import { rm } from 'node:fs/promises';
import type { LoopEvent } from '../protocol';
import { jailWarning, lintDesign } from '../sim';
import type { EngineResult, EngineServices, GenerateRequest } from './api';
import { channel, type Emit } from './channel';
import { prepareRun, type RunContext } from './context';
import type { DutSelection } from './plan';
import { generatorFor, runSettings } from './generators';

export { DEFAULT_ROUNDS, DEFAULT_STALL_ROUNDS } from './generators';

/** Runs the request's generator, looked up by engine name. */
async function run(
  req: GenerateRequest,
  services: EngineServices,
  ctx: RunContext,
  emit: Emit<LoopEvent>,
  startedAt: number,
): Promise<EngineResult> {
  const settings = { ...runSettings(req), startedAt };
  const outcome = await generatorFor(req.engine, settings).generate(ctx, services, emit);
  return { ...outcome.result, points: outcome.points };
}

/** One closure run as loop events; `final` carries the wire result. */
export function generate(req: GenerateRequest, services: EngineServices): AsyncIterable<LoopEvent> {
  return channel<LoopEvent>(async (emit) => {
    await generateRun(req, services, emit);
  });
}

/** Runs to the end and returns the engine's result (with its points), passing every event to `onEvent`. */
export async function generateToEnd(
  req: GenerateRequest,
  services: EngineServices,
  onEvent?: (e: LoopEvent) => void,
  planned?: DutSelection,
): Promise<EngineResult> {
  return generateRun(req, services, (e) => onEvent?.(e), planned);
}

async function generateRun(
  req: GenerateRequest,
  services: EngineServices,
  emit: Emit<LoopEvent>,
  planned?: DutSelection,
): Promise<EngineResult> {
  // The budget counts from here: the design check and the build are part of the run a user waits for.
  const startedAt = Date.now();
  // The DUT selection planRun made (its analysis) is used, not made again.
  const ctx = await prepareRun(req, planned);
  try {
    return await runAndReport(req, services, ctx, emit, startedAt);
  } finally {
    // A run folder the engine made for itself goes away with the run; the result carries the testbench text.
    if (!req.workDir) await rm(ctx.workDir, { recursive: true, force: true });
  }
}

async function runAndReport(
  req: GenerateRequest,
  services: EngineServices,
  ctx: RunContext,
  emit: Emit<LoopEvent>,
  startedAt: number,
): Promise<EngineResult> {
  // Lint is not failure: the design's own warnings are reported once, here; a construct Verilator cannot build
  // stops the run now, with its file and line, before minutes of model loading.
  const lint = await lintDesign(
    { files: ctx.rtlFiles, top: ctx.top.name, ...ctx.design },
    {
      verilatorPath: services.verilatorPath,
      logger: services.logger,
      signal: services.signal,
      memoryLimitBytes: services.memoryLimitBytes,
    },
  );
  const designWarnings = lint.warnings;
  // Loudly, once per run: without bubblewrap the testbenches this run simulates are not jailed.
  const unjailed = jailWarning();
  if (unjailed) services.logger.warn(unjailed);
  // Port widths as Verilator elaborates them: text analysis cannot see through macros from include files.
  for (const port of ctx.top.ports) {
    const width = lint.portWidths.get(port.name);
    if (width !== undefined && width !== port.width) {
      services.logger.debug(
        `Port ${port.name} of ${ctx.top.name}: ${width} bits as elaborated (analysis read ${port.width}).`,
      );
      port.width = width;
    }
  }
  // The model is opened once the DUT is known to be sound: a bad file fails before minutes of model loading.
  const backend =
    services.backend ?? (req.engine !== 'random' ? await services.models?.open(services.signal) : undefined);
  const withModel = { ...services, backend };
  emit({
    type: 'start',
    top: ctx.top.name,
    engine: req.engine,
    targets: ctx.targets,
    model: backend?.label,
    files: ctx.rtlFiles,
  });
  const result: EngineResult = { ...(await run(req, withModel, ctx, emit, startedAt)), designWarnings };
  const { points: _points, ...wire } = result;
  emit({ type: 'final', result: wire });
  return result;
}
