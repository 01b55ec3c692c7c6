/**
 * The plain random baseline: fresh uniform random values on every input every cycle for 2,000 cycles, after the
 * same reset prologue the model-free engine uses, written as one testbench (the engine's own table emitter) and
 * measured with one Verilator build (the same flags as every CHORUS build). No search, no feedback.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareRun } from '../src/engine/context';
import { emitTestbench } from '../src/engine/search/emit';
import { planHarness } from '../src/engine/search/harness';
import { Rng } from '../src/engine/search/rng';
import { StimulusGenerator, totalCycles } from '../src/engine/search/stimulus';
import { meetsTargets } from '../src/engine/targets';
import { writeFileAtomic } from '../src/engine/fs';
import { measureCoverage, type SimOptions } from '../src/sim';
import type { CoverageSummary, Targets } from '../src/protocol';

export const PLAIN_CYCLES = 2_000;

export interface PlainOutcome {
  pass: boolean;
  status: string;
  coverage: CoverageSummary;
  cycles: number;
  ms: { build: number; sim: number };
}

export async function plainRandom(
  req: { rtlFiles: string[]; top?: string | undefined; targets: Targets; seed: number },
  sim: SimOptions,
): Promise<PlainOutcome> {
  const workDir = await mkdtemp(join(tmpdir(), 'chorus-plain-'));
  const ctx = await prepareRun({
    rtlFiles: req.rtlFiles,
    top: req.top,
    engine: 'random',
    targets: req.targets,
    workDir,
  });
  const plan = planHarness(ctx.top, ctx.instance);
  // Literals are not used by `plain`: every value is uniform.
  const gen = new StimulusGenerator(plan.inputs, new Rng(req.seed), [], Boolean(plan.clock));
  const candidate = gen.plain(PLAIN_CYCLES);
  const tbName = `tb_${ctx.top.name}`;
  const tb = join(workDir, `${tbName}.sv`);
  await writeFileAtomic(tb, emitTestbench(plan, [{ candidate, newPoints: 0 }], { seed: req.seed, tbName }));
  const m = await measureCoverage(
    { dutFiles: ctx.rtlFiles, testbench: tb, dutTop: ctx.top.name },
    { ...sim, workspaceRoot: workDir },
  );
  return {
    pass: m.status === 'ok' && meetsTargets(m.coverage, ctx.targets),
    status: m.status,
    coverage: m.coverage,
    cycles: totalCycles(candidate.rows),
    ms: m.ms,
  };
}
