/**
 * Formal closure for adapters: the holes of a design (measured with a given testbench, or left by the model-free
 * search) handed to the formal engine, which proves each unreachable, finds a witness trace, or says why not.
 */
import { resolve } from 'node:path';
import { prove, type FormalTarget, type ProveResult, type TargetVerdict } from '../formal';
import { readSourceText } from '../hdl';
import { ChorusError, DEFAULT_TARGETS, type CoveragePoint, type CoverageSummary, type Logger } from '../protocol';
import { generateToEnd } from './generate';
import { measure } from './measure';
import { analyzeDesign } from './designAnalysis';
import { findTop } from './plan';
import { isFormalKind } from './formalLedger';

export type { FormalTarget, ProveResult, TargetVerdict, Witness, StimulusRow, Verdict } from '../formal';

export interface FormalOptions {
  includeDirs?: string[];
  defines?: Record<string, string>;
  /** Top-level parameter overrides (Verilog constant text). */
  parameters?: Record<string, string>;
  /** Wall-clock bound of the whole formal run, seconds (default 120). */
  timeoutSeconds?: number;
  /** Bound of one point's SAT problem, seconds (default 10). */
  pointTimeoutSeconds?: number;
  /** Longest induction and witness search, cycles (default 24). */
  maxDepth?: number;
}

export interface FormalServices {
  logger: Logger;
  signal: AbortSignal;
}

export interface ProvePointsResult extends ProveResult {
  /** The uncovered point each verdict is for (one per source site and instance), in the verdicts' order. */
  points: CoveragePoint[];
}

/** A point's place in the source (every instance of a module shares it). */
const siteKey = (p: { file: string; line: number; column: number; kind: string; comment: string }) =>
  `${resolve(p.file)}\u0000${p.line}\u0000${p.column}\u0000${p.kind}\u0000${p.comment}`;

/**
 * Verdicts for the uncovered line and branch points of a measurement (`points` as `measure` or a run returns
 * them). A point any simulation hit is never labelled unreachable: such a verdict becomes `unknown`.
 */
export async function provePoints(
  points: CoveragePoint[],
  design: { rtlFiles: string[]; top: string },
  opts: FormalOptions,
  services: FormalServices,
): Promise<ProvePointsResult> {
  // Instances that hit each source point: a proof about one of them must not contradict a simulation.
  const hitBy = new Map<string, Set<string>>();
  for (const p of points.filter((x) => x.count > 0))
    hitBy.set(siteKey(p), (hitBy.get(siteKey(p)) ?? new Set()).add(p.hierarchy));
  // The DUT's own instance path (`TOP.tb.uut`): what a point's hierarchy starts with.
  const root = points.find((p) => p.module === design.top)?.hierarchy;
  const seen = new Set<string>();
  const targets: FormalTarget[] = [];
  const of: CoveragePoint[] = [];
  for (const p of points) {
    if (p.count > 0 || !isFormalKind(p.kind)) continue;
    const key = `${siteKey(p)}\u0000${p.hierarchy}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const t: FormalTarget = { file: resolve(p.file), line: p.line, column: p.column, kind: p.kind, comment: p.comment };
    if (root !== undefined && (p.hierarchy === root || p.hierarchy.startsWith(`${root}.`)))
      t.instance = p.hierarchy.slice(root.length + 1);
    targets.push(t);
    of.push(p);
  }
  const files = [...new Set(design.rtlFiles.map((f) => resolve(f)))];
  const sources = await Promise.all(files.map(async (file) => ({ file, content: await readSourceText(file) })));
  const result = await prove(
    {
      sources,
      top: design.top,
      targets,
      defines: opts.defines,
      includeDirs: opts.includeDirs,
      parameters: opts.parameters,
      runTimeoutSeconds: opts.timeoutSeconds,
      pointTimeoutSeconds: opts.pointTimeoutSeconds,
      maxDepth: opts.maxDepth,
    },
    services,
  );
  const guarded = result.verdicts.map((v): TargetVerdict => {
    if (v.verdict.status !== 'unreachable') return v;
    const hierarchies = hitBy.get(siteKey(v.target));
    const path =
      v.target.instance === undefined || root === undefined
        ? undefined
        : v.target.instance
          ? `${root}.${v.target.instance}`
          : root;
    const contradicted = hierarchies !== undefined && (path === undefined || hierarchies.has(path));
    return contradicted
      ? { ...v, verdict: { status: 'unknown', reason: 'a simulation reached this point: the proof is not trusted' } }
      : v;
  });
  return { ...result, verdicts: guarded, points: of };
}

export interface ProveHolesRequest extends FormalOptions {
  rtlFiles: string[];
  top?: string;
  /** Measure this testbench for the holes; without it the model-free search finds them. */
  testbench?: string;
  /** Model-free search budget, seconds (default 20). */
  budgetSeconds?: number;
  seed?: number;
}

export interface ProveHolesReport {
  top: string;
  /** How the holes were found. */
  holesFrom: 'testbench' | 'search';
  coverage: CoverageSummary;
  verdicts: TargetVerdict[];
  /** Time in Yosys and in finding the holes, ms. */
  yosysMs: number;
  searchMs: number;
  failure?: string;
}

/** `chorus prove`: find the holes a user would see, then decide each with the formal engine. */
export async function proveHoles(
  req: ProveHolesRequest,
  services: FormalServices & { verilatorPath?: string; cacheDir?: string },
): Promise<ProveHolesReport> {
  const rtlFiles = req.rtlFiles.map((f) => resolve(f));
  // The holes are found on the design as it is built: its include folders, macros and top parameters.
  const design = { includeDirs: req.includeDirs, defines: req.defines, parameters: req.parameters };
  const analysis = await analyzeDesign(rtlFiles, {
    top: req.top,
    design,
    verilatorPath: services.verilatorPath,
    signal: services.signal,
  });
  const top = findTop(analysis, rtlFiles, req.top).name;
  const started = Date.now();
  let points: CoveragePoint[];
  let coverage: CoverageSummary;
  if (req.testbench) {
    const m = await measure(
      { rtlFiles, testbench: resolve(req.testbench), top, ...design },
      { logger: services.logger, signal: services.signal, verilatorPath: services.verilatorPath },
    );
    if (m.status !== 'ok')
      throw new ChorusError(
        'failed',
        `The testbench did not run (${m.status}): run \`chorus coverage\` on it to see why.`,
      );
    points = m.points;
    coverage = m.coverage;
  } else {
    const r = await generateToEnd(
      // The search's own formal stage is off: every hole it leaves is decided below, with this command's bounds.
      {
        rtlFiles,
        top,
        ...design,
        engine: 'random',
        targets: DEFAULT_TARGETS,
        budgetSeconds: req.budgetSeconds ?? 20,
        seed: req.seed,
        formal: false,
      },
      {
        logger: services.logger,
        signal: services.signal,
        verilatorPath: services.verilatorPath,
        cacheDir: services.cacheDir,
      },
    );
    points = r.points;
    coverage = r.coverage;
  }
  const searchMs = Date.now() - started;
  const result = await provePoints(points, { rtlFiles, top }, req, services);
  return {
    top,
    holesFrom: req.testbench ? 'testbench' : 'search',
    coverage,
    verdicts: result.verdicts,
    yosysMs: result.yosysMs,
    searchMs,
    ...(result.failure ? { failure: result.failure } : {}),
  };
}
