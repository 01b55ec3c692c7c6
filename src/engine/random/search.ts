/**
 * The model-free engine: build the vector harness once, run many candidate stimuli through the same binary, keep
 * those that reach new points, mutate them, stop at the targets, a stall or the budget, then emit and re-simulate
 * one readable testbench whose measured coverage is what gets reported.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { literalsOf, unreachableDefaults } from '../../hdl';
import { buildSimulation, lineCoverage, mergePoints, readCoverageFile, runSimulation, summarize, type SimOptions } from '../../sim';
import {
  ChorusError,
  type CoveragePoint,
  type CoverageReport,
  type GenerateResult,
  type LoopEvent,
  type RoundSummary,
} from '../../protocol';
import type { EngineServices } from '../api';
import type { Emit } from '../channel';
import type { RunContext } from '../context';
import { evaluateTestbench } from '../evaluate';
import { writeFileAtomic } from '../fs';
import { meetsTargets } from '../targets';
import { emitTestbench, type KeptSequence } from './emit';
import { harnessSource, planHarness } from './harness';
import { Rng } from './rng';
import { StimulusGenerator, stimulusText, type Candidate } from './stimulus';

export interface RandomOptions {
  seed: number;
  budgetMs: number;
  /** Upper bound on candidate runs. */
  maxRuns: number;
  /** Stop after this many runs in a row without a new point. */
  stallRuns: number;
  simTimeoutMs: number;
  /** Candidates per reported round. */
  roundSize: number;
}

export const DEFAULT_RANDOM: RandomOptions = {
  seed: 1,
  budgetMs: 60_000,
  maxRuns: 5_000,
  stallRuns: 400,
  simTimeoutMs: 20_000,
  roundSize: 50,
};

const pointKey = (p: CoveragePoint) => `${p.file}\u0001${p.line}\u0001${p.column}\u0001${p.kind}\u0001${p.comment}\u0001${p.hierarchy}`;

interface Kept extends KeptSequence {
  covered: Set<string>;
}

interface Chosen {
  kept: Kept;
  /** The points this sequence was chosen for: no sequence before it covers them. */
  gain: Set<string>;
}

/** Keeps the fewest sequences that still cover every point the search reached (greedy set cover). */
function minimize(kept: Kept[]): Chosen[] {
  const left = new Set<string>();
  for (const k of kept) for (const p of k.covered) left.add(p);
  const chosen: Chosen[] = [];
  const pool = [...kept];
  while (left.size && pool.length) {
    let bestIdx = 0;
    let bestGain = -1;
    pool.forEach((k, i) => {
      let g = 0;
      for (const p of k.covered) if (left.has(p)) g++;
      if (g > bestGain) {
        bestGain = g;
        bestIdx = i;
      }
    });
    if (bestGain <= 0) break;
    const [k] = pool.splice(bestIdx, 1);
    const gain = new Set<string>();
    for (const p of k.covered) if (left.delete(p)) gain.add(p);
    chosen.push({ kept: k, gain });
  }
  // Found order reads better than gain order; every sequence starts from reset, so order does not change coverage.
  if (!chosen.length && kept.length) chosen.push({ kept: kept[0], gain: new Set() });
  return chosen.sort((a, b) => kept.indexOf(a.kept) - kept.indexOf(b.kept));
}

export interface RandomOutcome {
  result: GenerateResult;
  report: CoverageReport;
  points: CoveragePoint[];
  filename: string;
}

export async function runRandomSearch(
  ctx: RunContext,
  services: EngineServices,
  options: Partial<RandomOptions>,
  emit: Emit<LoopEvent>,
): Promise<RandomOutcome> {
  const opts = { ...DEFAULT_RANDOM, ...options };
  const sim: SimOptions = {
    verilatorPath: services.verilatorPath,
    cacheDir: services.cacheDir,
    logger: services.logger,
    signal: services.signal,
    workspaceRoot: ctx.workDir,
  };
  const plan = planHarness(ctx.top, ctx.instance);
  const rng = new Rng(opts.seed);
  const literals = literalsOf(ctx.analysis, ctx.top.name);
  const gen = new StimulusGenerator(plan.inputs, rng, literals, Boolean(plan.clock));

  // Build once.
  const harnessPath = join(ctx.workDir, 'chorus_vector_harness.sv');
  await writeFileAtomic(harnessPath, harnessSource(plan));
  emit({ type: 'roundStart', round: 1 });
  const build = await buildSimulation({ dutFiles: ctx.rtlFiles, testbench: harnessPath, tbTop: 'chorus_vector_harness' }, sim);
  emit({ type: 'build', round: 1, status: build.status, ms: build.ms, diagnostics: build.diagnostics });
  if (build.status !== 'ok' || !build.binary) {
    const d = build.diagnostics[0];
    throw new ChorusError(
      build.status === 'rejected' ? 'rejected' : 'bad_input',
      `The DUT does not build with Verilator${d ? `: ${d.message}` : ''}`,
      d ? { file: d.file, line: d.line, column: d.column } : undefined,
    );
  }

  const started = Date.now();
  const covered = new Set<string>();
  let merged: CoveragePoint[] = [];
  const kept: Kept[] = [];
  const rounds: RoundSummary[] = [];
  let runs = 0;
  let sinceNew = 0;
  let simMs = 0;
  let roundSim = 0;
  let roundRuns = 0;
  let stopReason = 'budget';
  // Line/branch targets stop early once only points analysis marks unreachable are left.
  const unreachable = new Set(unreachableDefaults(ctx.analysis).map((u) => `${u.file}:${u.line}`));
  const structuralTargets = Object.keys(ctx.targets).every((k) => k === 'line' || k === 'branch');
  const onlyReachableLeft = (pts: CoveragePoint[]) =>
    structuralTargets &&
    unreachable.size > 0 &&
    pts.every((p) => p.count > 0 || (p.kind !== 'line' && p.kind !== 'branch') || unreachable.has(`${p.file}:${p.line}`));
  // Toggle points count as new too: a testbench is judged on toggles as well, and the shrinker keeps sequences short.
  const wantToggles = true;
  const hitKeys = (pts: CoveragePoint[]) => new Set(pts.filter((p) => p.count > 0 && (wantToggles || p.kind !== 'toggle')).map(pointKey));
  const stimPath = join(ctx.workDir, 'stimulus.hex');
  const covPath = join(ctx.workDir, 'candidate.dat');

  /** Runs one candidate through the harness; the points it hit, or null when it wrote no coverage. */
  const runCandidate = async (candidate: Candidate): Promise<CoveragePoint[] | null> => {
    await writeFile(stimPath, stimulusText(candidate));
    await rm(covPath, { force: true });
    const run = await runSimulation(
      { binary: build.binary!, coverageFile: covPath, plusargs: [`+stim=${stimPath}`], timeoutMs: opts.simTimeoutMs, cwd: ctx.workDir, trusted: true },
      sim,
    );
    runs++;
    roundRuns++;
    simMs += run.ms;
    roundSim += run.ms;
    if (!run.coverageWritten) {
      services.logger.debug(`candidate ${runs}: ${run.status}, no coverage written`);
      return null;
    }
    return readCoverageFile(covPath, ctx.rtlFiles);
  };

  const reaches = async (cycles: Candidate['cycles'], gain: Set<string>): Promise<boolean> => {
    const hit = hitKeys((await runCandidate({ cycles, origin: '' })) ?? []);
    for (const k of gain) if (!hit.has(k)) return false;
    return true;
  };

  /**
   * Shrinks a kept sequence while it still reaches the points it was chosen for: the shortest prefix (binary
   * search), then chunks deleted from the middle, halving the chunk size, within a run budget.
   */
  const shorten = async (c: Chosen, budgetRuns = 60): Promise<Candidate> => {
    const cand = c.kept.candidate;
    const start = runs;
    let cycles = cand.cycles;
    let lo = gen.prologue + 1;
    let hi = cycles.length;
    while (lo < hi && !services.signal.aborted) {
      const mid = Math.floor((lo + hi) / 2);
      if (await reaches(cycles.slice(0, mid), c.gain)) hi = mid;
      else lo = mid + 1;
    }
    cycles = cycles.slice(0, hi);
    for (let chunk = Math.floor((cycles.length - gen.prologue) / 2); chunk >= 1; chunk = Math.floor(chunk / 2)) {
      let i = gen.prologue;
      while (i < cycles.length && runs - start < budgetRuns && !services.signal.aborted) {
        const without = [...cycles.slice(0, i), ...cycles.slice(i + chunk)];
        if (without.length > gen.prologue && (await reaches(without, c.gain))) cycles = without;
        else i += chunk;
      }
      if (runs - start >= budgetRuns) break;
    }
    return { cycles, origin: cand.origin };
  };

  const closeRound = () => {
    const summary: RoundSummary = {
      index: rounds.length + 1,
      status: 'ok',
      coverage: summarize(merged),
      ms: { generate: 0, build: rounds.length === 0 ? build.ms : 0, sim: roundSim },
      candidates: roundRuns,
    };
    rounds.push(summary);
    emit({ type: 'coverage', round: summary.index, coverage: summary.coverage, holes: [], status: 'ok' });
    emit({ type: 'roundEnd', round: summary });
    roundSim = 0;
    roundRuns = 0;
  };

  for (;;) {
    if (services.signal.aborted) {
      stopReason = 'cancelled';
      break;
    }
    if (Date.now() - started > opts.budgetMs) {
      stopReason = 'budget';
      break;
    }
    if (runs >= opts.maxRuns) {
      stopReason = 'runs';
      break;
    }
    if (runs > 0 && sinceNew >= opts.stallRuns) {
      stopReason = 'stalled';
      break;
    }
    if (merged.length && meetsTargets(summarize(merged), ctx.targets)) {
      stopReason = 'targets met';
      break;
    }
    const explore = !kept.length || rng.chance(0.35);
    const candidate: Candidate = explore ? gen.fresh() : gen.mutate(rng.pick(kept).candidate, rng.pick(kept).candidate);
    const pts = await runCandidate(candidate);
    if (services.signal.aborted) {
      stopReason = 'cancelled';
      break;
    }
    if (!pts) {
      sinceNew++;
    } else {
      const hit = hitKeys(pts);
      let fresh = 0;
      for (const k of hit) if (!covered.has(k)) fresh++;
      if (fresh > 0) {
        for (const k of hit) covered.add(k);
        kept.push({ candidate, newPoints: fresh, covered: hit });
        sinceNew = 0;
      } else {
        sinceNew++;
      }
      merged = mergePoints(merged, pts);
      if (onlyReachableLeft(merged)) {
        stopReason = 'all reachable points covered';
        break;
      }
    }
    if (roundRuns >= opts.roundSize) {
      closeRound();
      emit({ type: 'roundStart', round: rounds.length + 1 });
    }
  }
  if (stopReason === 'cancelled') throw new ChorusError('cancelled', 'Cancelled.');
  if (roundRuns > 0 || rounds.length === 0) closeRound();
  if (!kept.length) {
    if (!merged.length) {
      throw new ChorusError('failed', `No candidate stimulus produced coverage in ${runs} run(s): check the simulation log with CHORUS_LOG=debug.`);
    }
    // Nothing a stimulus can reach (a design with constant outputs): keep one short sequence so the testbench exists.
    const c = gen.fresh();
    kept.push({ candidate: { cycles: c.cycles.slice(0, gen.prologue + 4), origin: 'minimal' }, newPoints: 0, covered: new Set() });
  }

  // Emit and re-simulate: the reported coverage is the testbench's own.
  const chosen = minimize(kept);
  const sequences: KeptSequence[] = [];
  for (const c of chosen) sequences.push({ candidate: await shorten(c), newPoints: c.gain.size });
  if (services.signal.aborted) throw new ChorusError('cancelled', 'Cancelled.');
  const tbName = `tb_${ctx.top.name}`;
  const filename = `${tbName}.sv`;
  const testbench = emitTestbench(plan, sequences, { seed: opts.seed, tbName });
  const cycles = sequences.reduce((a, q) => a + q.candidate.cycles.length, 0);
  emit({ type: 'parsed', round: rounds.length, outcome: `testbench with ${sequences.length} of ${kept.length} kept sequence(s), ${cycles} cycles`, testbench });
  const ev = await evaluateTestbench(ctx, testbench, {
    filename,
    sim,
    timeoutMs: Math.max(opts.simTimeoutMs, 60_000),
  });
  const searchCov = summarize(merged);
  for (const k of ['line', 'branch'] as const) {
    if (ev.report.coverage[k].covered < searchCov[k].covered) {
      services.logger.warn(
        `The emitted testbench reaches ${ev.report.coverage[k].covered} ${k} points, the search reached ${searchCov[k].covered}; reporting the testbench's own figure.`,
      );
    }
  }
  const last = rounds[rounds.length - 1];
  last.coverage = ev.report.coverage;
  last.status = ev.report.status;
  last.ms.build += ev.report.ms.build;
  last.ms.sim += ev.report.ms.sim;
  emit({ type: 'build', round: last.index, status: ev.report.status, ms: ev.report.ms.build, diagnostics: ev.report.diagnostics });
  emit({ type: 'coverage', round: last.index, coverage: ev.report.coverage, holes: ev.report.holes, status: ev.report.status, lines: lineCoverage(ev.points) });
  services.logger.debug(`random search: ${runs} runs in ${Date.now() - started} ms (${simMs} ms simulating), ${kept.length} kept, stop: ${stopReason}`);

  const result: GenerateResult = {
    top: ctx.top.name,
    engine: 'random',
    pass: ev.report.status === 'ok' && meetsTargets(ev.report.coverage, ctx.targets),
    targets: ctx.targets,
    coverage: ev.report.coverage,
    holes: ev.report.holes,
    rounds,
    testbench,
    stopReason,
    diagnostics: ev.report.diagnostics,
    lines: lineCoverage(ev.points),
    points: ev.points,
  };
  return { result, report: ev.report, points: ev.points, filename };
}
