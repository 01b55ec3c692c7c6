/** Measures one testbench against the DUT: write it, check it, build, run, read coverage, explain the holes. */
import { basename, join } from 'node:path';
import { findSite, fsmModels, unreachableDefaults } from '../hdl';
import { holesFeedback, measureCoverage, type SimOptions } from '../sim';
import type { CoveragePoint, CoverageReport, Hole } from '../protocol';
import { writeFileAtomic } from './fs';
import { holeOf, holeWaiver } from './waivers/check';
import type { RunContext } from './context';

export interface Evaluation {
  report: CoverageReport;
  points: CoveragePoint[];
  testbenchPath: string;
}

export interface EvaluateOptions {
  sim: SimOptions;
  timeoutMs?: number | undefined;
  maxSimTime?: number;
  /** File name to write the testbench under in the run folder. */
  filename: string;
}

/** A testbench that never instantiates the DUT measures nothing: say so before building. */
export function instantiationProblem(testbench: string, top: string, instance: string): string | null {
  const code = testbench.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
  const inst = new RegExp(`\\b${top}\\b\\s*(#\\s*\\([\\s\\S]*?\\)\\s*)?(\\w+)\\s*\\(`, 'g');
  const names = [...code.matchAll(inst)].map((m) => m[2]);
  if (!names.length) return `the testbench does not instantiate the DUT module '${top}'`;
  if (!names.includes(instance))
    return `the DUT '${top}' is instantiated as '${names[0]}', but it must be named '${instance}'`;
  return null;
}

/** Whether the formal engine has run in this run (its verdicts label the holes). */
export function formalRan(ctx: RunContext): boolean {
  return ctx.formal.runs > 0;
}

/**
 * Adds what analysis and the formal engine know to each hole: the source site it stands for, and the proof that
 * it cannot be reached (k-induction first, else the state-register/enum rule) or why the formal engine could not
 * decide it; and, given the holes' points, the waiver entry that stands for one not proven (`ctx.waiverOf`), so a
 * waived hole reads as waived in every round, as the verdict counts it.
 */
export function explainHoles(ctx: RunContext, holes: Hole[], points: readonly CoveragePoint[] = []): Hole[] {
  const unreachable = unreachableDefaults(ctx.analysis);
  const explained = holes.map((h) => {
    const site = findSite(ctx.analysis, h.file, h.line);
    const why = unreachable.find((u) => u.line === h.line && u.file === h.file);
    let out: Hole = { ...h };
    if (site && !h.detail.includes(site.label)) out.detail = `${h.detail} — ${site.label}`;
    out = ctx.formal.annotate(out);
    if (why && h.kind !== 'toggle' && !out.proof) {
      const { formal: _formal, ...rest } = out;
      out = { ...rest, unreachable: why.reason, proof: { method: 'analysis' } };
    }
    return out;
  });
  for (const p of points) {
    const entry = ctx.waiverOf(p);
    if (!entry) continue;
    const hole = explained.find((h) => !h.proof && holeOf(h, p));
    if (hole) hole.waiver = holeWaiver(entry);
  }
  return explained;
}

export async function evaluateTestbench(
  ctx: RunContext,
  testbench: string,
  opts: EvaluateOptions,
): Promise<Evaluation> {
  const testbenchPath = join(ctx.workDir, opts.filename);
  await writeFileAtomic(testbenchPath, testbench);
  const measured = await measureCoverage(
    {
      dutFiles: ctx.rtlFiles,
      testbench: testbenchPath,
      timeoutMs: opts.timeoutMs,
      maxSimTime: opts.maxSimTime,
      dutTop: ctx.top.name,
      // FSM state and arc coverage from CHORUS's own FSM analysis (src/hdl/fsm.ts).
      fsms: fsmModels(ctx.rtlFiles.map((f) => ({ name: f, content: ctx.sources.get(f) ?? '' }))),
    },
    opts.sim,
  );
  const { points, ...report } = measured;
  report.holes = explainHoles(ctx, report.holes, points);
  return { report, points, testbenchPath };
}

/**
 * The holes worth reaching, for the model: proven-unreachable and waived ones are counted, never listed (the model
 * is not to chase them). `name` renders a file (the run's `displayName`; default: the base name).
 */
export function holesForModel(holes: Hole[], maxLines = 40, name: (file: string) => string = basename): string {
  const reachable = holes.filter((h) => !h.unreachable && !h.waiver);
  const proven = holes.filter((h) => h.unreachable).length;
  const waived = holes.length - reachable.length - proven;
  const excluded = waived ? `${proven ? `proven unreachable or ` : ''}waived` : 'proven unreachable';
  if (!reachable.length)
    return `No coverage holes left to reach: the ${holes.length} uncovered point(s) are ${excluded}.`;
  let text = holesFeedback(reachable, maxLines, name);
  if (holes.length > reachable.length)
    text += `\n(${holes.length - reachable.length} more point(s) are ${excluded} and left out.)`;
  return text;
}
