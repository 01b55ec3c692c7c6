/** `chorus bench`: every item of an ECov-schema dataset through the engine, with Pass@k, Cov@1 and times. */
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  coverageByInstance,
  generateToEnd,
  libraryFilesNeeded,
  readFilelist,
  readSourceText,
  trimCache,
  type EngineResult,
  type EngineServices,
  type GenerateRequest,
} from '../../engine';
import {
  emptySummary,
  isAbortError,
  isInfrastructureError,
  metricPct,
  type CoverageSummary,
  type EngineName,
  type FormalSummary,
  type TargetMetric,
  type Targets,
} from '../../protocol';
import { sampleExperts, type SampleExperts } from './experts';
import { mapMetric, mean, passAtK, round4, sumFormal } from './metrics';
import type { BenchDesign, BenchItem, ParsedLine } from './schema';

export interface BenchOptions {
  engine: EngineName;
  samples: number;
  rounds?: number | undefined;
  concurrency: number;
  budgetSeconds?: number | undefined;
  simTimeoutSeconds?: number | undefined;
  seed: number;
  /** Items are laid out under this folder, one subfolder per item and sample. */
  workDir: string;
  /** Keep the laid-out folders (default: removed after each sample). */
  keep?: boolean;
  /** Candidate testbenches per LLM round. */
  candidates?: number | undefined;
  /** Top parameter overrides for every item (`-G`), over an item's own. */
  parameters?: Record<string, string>;
  /** The formal engine on the search's holes (default on; `--no-formal`). */
  formal?: boolean;
}

export interface TargetCheck {
  inst_name: string;
  metric: string;
  mapped: TargetMetric | null;
  target: number;
  value: number | null;
  met: boolean;
  note?: string;
}

export interface SampleMs {
  generate: number;
  build: number;
  sim: number;
  total: number;
}

export interface SampleResult {
  pass: boolean;
  /** Every line and branch point covered or proven unreachable. */
  closed: boolean;
  /** What the formal engine did, when it ran. */
  formal?: FormalSummary;
  /** The first line/branch points neither covered nor proven, with why (`file:line detail: reason`). */
  open?: string[];
  /** How many line/branch points are neither covered nor proven unreachable. */
  openPoints: number;
  /** Not passed, but every line/branch hole left is one analysis marks unreachable. */
  unreachableOnly: boolean;
  compiled: boolean;
  coverage: CoverageSummary;
  overall: number;
  ms: SampleMs;
  rounds: number;
  tokens: number;
  targets: TargetCheck[];
  error?: string | undefined;
  /** Which expert's candidates were kept and which closed the item (several candidates per round). */
  experts?: SampleExperts;
}

export interface ItemResult {
  id: string;
  /** Sample 1's outcome. */
  pass: boolean;
  /** Sample 1 closed: every line and branch point covered or proven unreachable. */
  closed: boolean;
  /** Sample 1's formal figures, when the formal engine ran. */
  formal?: FormalSummary;
  /** Sample 1's first line/branch points neither covered nor proven, with why. */
  open?: string[];
  /** Sample 1's count of line/branch points neither covered nor proven unreachable. */
  open_points: number;
  /** Sample 1 failed only on points analysis marks unreachable. */
  unreachable_only: boolean;
  passes: number;
  samples: number;
  coverage: CoverageSummary & { overall: number };
  ms: SampleMs;
  rounds: number;
  tokens: number;
  targets: TargetCheck[];
  error?: string | undefined;
  /** Overall coverage of every sample, in order. */
  overall_samples: number[];
  /** Sample 1's expert record. */
  experts?: SampleExperts;
  all: SampleResult[];
}

export interface BenchReport {
  items: number;
  engine: EngineName;
  samples: number;
  k: number;
  pass_at_1: number;
  pass_at_k: number;
  /** Share of samples closed (every line and branch point covered or proven unreachable). */
  closed_at_1: number;
  /** The formal engine over all samples: proofs, witnesses Verilator hit, undecided points, time in Yosys. */
  formal: FormalSummary;
  cov_at_1: number;
  compile_rate: number;
  /** Metric names seen in the dataset and what they were evaluated as. */
  mapping: Record<string, string>;
  total_ms: number;
  tokens: number;
  tokens_per_second: number | null;
  results: ItemResult[];
}

export type BenchEvent =
  { type: 'itemStart'; id: string } | { type: 'itemEnd'; result: ItemResult; done: number; total: number };

function safe(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 80);
}

function evaluateTargets(item: BenchItem, result: EngineResult | null): TargetCheck[] {
  const instances = result?.points ? coverageByInstance(result.points) : {};
  return item.targets.map((t) => {
    const mapped = mapMetric(t.metric);
    const inst = t.inst_name ?? item.dut_instance_name;
    const base: TargetCheck = {
      inst_name: inst,
      metric: t.metric,
      mapped,
      target: t.target_percentage,
      value: null,
      met: false,
    };
    if (!mapped) return { ...base, note: `metric '${t.metric}' has no Verilator equivalent` };
    if (!result) return base;
    let summary: CoverageSummary | undefined = result.coverage;
    if (inst !== item.dut_instance_name) {
      const path = Object.keys(instances).find(
        (p) => p.endsWith(`.${item.dut_instance_name}.${inst}`) || p.endsWith(`.${inst}`),
      );
      summary = path ? instances[path] : undefined;
      if (!summary) return { ...base, note: `instance '${inst}' not found in the hierarchy` };
    }
    const value = metricPct(summary, mapped);
    return { ...base, value, met: value + 1e-9 >= t.target_percentage };
  });
}

/** Targets the engine aims at: the whole-DUT ones it can measure. */
function engineTargets(item: BenchItem): Targets {
  const out: Targets = {};
  for (const t of item.targets) {
    const m = mapMetric(t.metric);
    if (m && (t.inst_name ?? item.dut_instance_name) === item.dut_instance_name)
      out[m] = Math.max(out[m] ?? 0, t.target_percentage);
  }
  if (Object.keys(out).length) return out;
  // Real IP has no targets: the most coverage reached in the budget, toggles included.
  return item.design ? { line: 100, branch: 100, toggle: 100 } : { line: 100, branch: 100 };
}

/** A real-IP item's sources, include folders, macros and parameters, read from its filelist (in place: never copied). */
export async function itemDesign(
  design: BenchDesign,
  opts: Pick<BenchOptions, 'parameters'> = {},
): Promise<Pick<GenerateRequest, 'rtlFiles' | 'includeDirs' | 'defines' | 'parameters'>> {
  const list = await readFilelist(design.filelist, { cwd: design.root });
  const libraries = { files: list.libraryFiles, dirs: list.libraryDirs, extensions: list.libraryExtensions };
  const needed = await libraryFilesNeeded(list.files, libraries, readSourceText, (f) =>
    stat(f).then(
      (st) => st.isFile(),
      () => false,
    ),
  );
  return {
    rtlFiles: [...list.files, ...needed.files],
    includeDirs: list.includeDirs,
    defines: list.defines,
    parameters: { ...design.parameters, ...opts.parameters },
  };
}

async function runSample(
  item: BenchItem,
  k: number,
  opts: BenchOptions,
  services: EngineServices,
): Promise<SampleResult> {
  const dir = join(opts.workDir, safe(item.id), `s${k}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const started = Date.now();
  const rtlFiles: string[] = [];
  const specFiles: string[] = [];
  try {
    for (const f of item.rtl_files) {
      const p = join(dir, basename(f.name));
      await writeFile(p, f.content);
      rtlFiles.push(p);
    }
    // Spec files keep their names (the model sees them): in their own folder, apart from the RTL.
    if (item.spec_files.length) await mkdir(join(dir, 'specs'), { recursive: true });
    for (const f of item.spec_files) {
      const p = join(dir, 'specs', basename(f.name));
      await writeFile(p, f.content);
      specFiles.push(p);
    }
    let result: EngineResult | null = null;
    let error: string | undefined;
    try {
      const design = item.design ? await itemDesign(item.design, opts) : { rtlFiles, parameters: opts.parameters };
      result = await generateToEnd(
        {
          ...design,
          specFiles,
          top: item.dut_module_name,
          instanceName: item.dut_instance_name,
          engine: opts.engine,
          targets: engineTargets(item),
          rounds: opts.rounds,
          ...(item.instruction ? { instruction: item.instruction } : {}),
          seed: opts.seed + k,
          ...(opts.candidates !== undefined ? { candidates: opts.candidates } : {}),
          budgetSeconds: opts.budgetSeconds,
          simTimeoutSeconds: opts.simTimeoutSeconds,
          workDir: join(dir, 'work'),
          formal: opts.formal ?? true,
        },
        services,
      );
    } catch (err) {
      // A full or read-only disk would fail every later item too, and says nothing of the model: the bench stops.
      if (isAbortError(err) || services.signal.aborted || isInfrastructureError(err)) throw err;
      error =
        err instanceof Error ? ((err as Error & { describe?: () => string }).describe?.() ?? err.message) : String(err);
    }
    const targets = evaluateTargets(item, result);
    const experts = sampleExperts(result, engineTargets(item));
    const ms = { generate: 0, build: 0, sim: 0, total: Date.now() - started };
    for (const r of result?.rounds ?? []) {
      ms.generate += r.ms.generate;
      ms.build += r.ms.build;
      ms.sim += r.ms.sim;
    }
    const coverage = result?.coverage ?? emptySummary();
    const compiled = Boolean(result && result.rounds.some((r) => r.status === 'ok'));
    // An item without targets (real IP) reports the coverage reached; it has nothing to pass.
    const pass = Boolean(result) && targets.length > 0 && targets.every((t) => t.met);
    const structural = (result?.holes ?? []).filter((h) => h.kind === 'line' || h.kind === 'branch');
    return {
      pass,
      closed: result?.closed === true,
      ...(result?.formal ? { formal: result.formal } : {}),
      ...(structural.some((h) => !h.proof)
        ? {
            open: structural
              .filter((h) => !h.proof)
              .slice(0, 5)
              .map((h) => `${basename(h.file)}:${h.line} ${h.detail}${h.formal ? `: ${h.formal}` : ''}`),
          }
        : {}),
      openPoints: structural.filter((h) => !h.proof).length,
      unreachableOnly: !pass && Boolean(result) && structural.length > 0 && structural.every((h) => h.unreachable),
      compiled,
      coverage,
      overall: metricPct(coverage, 'overall'),
      ms,
      rounds: result?.rounds.length ?? 0,
      tokens: (result?.rounds ?? []).reduce((a, r) => a + (r.tokens ?? 0), 0),
      targets,
      error,
      ...(experts ? { experts } : {}),
    };
  } finally {
    if (!opts.keep) await rm(dir, { recursive: true, force: true });
  }
}

function failedItem(id: string, error: string, samples: number): ItemResult {
  const coverage = { ...emptySummary(), overall: 0 };
  return {
    id,
    pass: false,
    closed: false,
    open_points: 0,
    unreachable_only: false,
    passes: 0,
    samples,
    coverage,
    ms: { generate: 0, build: 0, sim: 0, total: 0 },
    rounds: 0,
    tokens: 0,
    targets: [],
    error,
    overall_samples: [],
    all: [],
  };
}

export async function runBench(
  lines: ParsedLine[],
  opts: BenchOptions,
  services: EngineServices,
  onEvent: (e: BenchEvent) => void = () => {},
): Promise<BenchReport> {
  const started = Date.now();
  const results: ItemResult[] = new Array(lines.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (!services.signal.aborted) {
      const idx = next++;
      const line = lines[idx];
      // Past the last line: every line is taken.
      if (line === undefined) break;
      let result: ItemResult;
      if (!line.ok) {
        result = failedItem(line.id, `line ${line.line}: ${line.error}`, opts.samples);
      } else {
        onEvent({ type: 'itemStart', id: line.item.id });
        // An item runs at least one sample (--samples is a positive integer); the first is the one reported.
        const first = await runSample(line.item, 0, opts, services);
        const all: SampleResult[] = [first];
        for (let k = 1; k < opts.samples; k++) all.push(await runSample(line.item, k, opts, services));
        result = {
          id: line.item.id,
          pass: first.pass,
          closed: first.closed,
          ...(first.formal ? { formal: first.formal } : {}),
          ...(first.open ? { open: first.open } : {}),
          open_points: first.openPoints,
          unreachable_only: first.unreachableOnly,
          passes: all.filter((s) => s.pass).length,
          samples: all.length,
          coverage: { ...first.coverage, overall: first.overall },
          ms: first.ms,
          rounds: first.rounds,
          tokens: first.tokens,
          targets: first.targets,
          error: first.error,
          overall_samples: all.map((x) => x.overall),
          ...(first.experts ? { experts: first.experts } : {}),
          all,
        };
      }
      results[idx] = result;
      done++;
      onEvent({ type: 'itemEnd', result, done, total: lines.length });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, worker));
  // Every item's simulator is done with: the cache is brought under its cap, not left over it until the next build.
  await trimCache({ cacheDir: services.cacheDir, cacheMaxBytes: services.cacheMaxBytes }).catch((err: unknown) =>
    services.logger.debug(`Cache trim skipped: ${err instanceof Error ? err.message : String(err)}`),
  );
  return benchReport(results.filter(Boolean), metricMapping(lines), opts.engine, opts.samples, Date.now() - started);
}

/** Metric names seen in the dataset and what they were evaluated as. */
export function metricMapping(lines: ParsedLine[]): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const l of lines)
    if (l.ok)
      for (const t of l.item.targets) mapping[t.metric] = mapMetric(t.metric) ?? 'unmapped (counted as not met)';
  return mapping;
}

/** The report's figures over finished items, in dataset order: one run's, or the merged shards' (`bench merge`). */
export function benchReport(
  finished: ItemResult[],
  mapping: Record<string, string>,
  engine: EngineName,
  samplesPerItem: number,
  totalMs: number,
): BenchReport {
  // Over attempted samples: items rejected by the schema never ran.
  const samples = finished.flatMap((r) => r.all);
  const tokens = finished.reduce((a, r) => a + r.all.reduce((b, s) => b + s.tokens, 0), 0);
  const genMs = finished.reduce((a, r) => a + r.all.reduce((b, s) => b + s.ms.generate, 0), 0);
  return {
    items: finished.length,
    engine,
    samples: samplesPerItem,
    k: samplesPerItem,
    pass_at_1: round4(mean(finished.map((r) => (r.samples ? r.passes / r.samples : 0)))),
    pass_at_k: round4(mean(finished.map((r) => passAtK(r.samples || samplesPerItem, r.passes, samplesPerItem)))),
    closed_at_1: round4(mean(finished.map((r) => (r.all.length ? mean(r.all.map((s) => (s.closed ? 1 : 0))) : 0)))),
    formal: sumFormal(samples.flatMap((s) => (s.formal ? [s.formal] : []))),
    cov_at_1: round4(mean(finished.map((r) => (r.all.length ? mean(r.all.map((s) => s.overall)) : 0)))),
    compile_rate: round4(samples.length ? samples.filter((s) => s.compiled).length / samples.length : 0),
    mapping,
    total_ms: totalMs,
    tokens,
    tokens_per_second: tokens && genMs ? Math.round((tokens / genMs) * 1000 * 10) / 10 : null,
    results: finished,
  };
}
