/**
 * Real IP side by side: the model-free search and the plain random baseline (bench/real-ip-plain.ts: fresh inputs
 * every cycle, a reset about one cycle in 50) on every item of a real-IP items.jsonl (`{id, top, filelist,
 * parameters}`, read as `chorus bench` reads it), with the same Verilator and design flags. Per item and seed the
 * engine runs first (`--budget-seconds`, targets line/branch/toggle 100); plain random then gets exactly the
 * engine's measured wall time, its own build included. Per item, medians over the seeds: line, branch and toggle
 * reached by both; whether the engine reached at least plain random on all three, and is ahead on line + branch;
 * and the reach ratio: the time the engine took (build included) to reach plain random's final line + branch
 * count, over plain random's wall time (never: 2).
 *
 * Both sides start from the same warm cache (Verilator's runtime objects and precompiled header built once), each
 * from its own copy, so neither reuses the other's compiled model.
 *
 * Usage: npx tsx bench/real-ip-vs-plain.ts <corpus>/real-ip-2/items.jsonl [--budget-seconds 60] [--seeds 1,2,3]
 *          [--concurrency 1] [--only id,id] [--out dir]
 * Builds go to a fresh cache (warmed once), so no item is a cache hit from an earlier run.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { itemDesign } from '../src/cli/bench/run';
import { parseItems, type BenchItem } from '../src/cli/bench/schema';
import { generateToEnd } from '../src/engine';
import { silentLogger, type CoverageSummary } from '../src/protocol';
import { plainRandomInBudget } from './real-ip-plain';
import { coverageCell, timed } from './timing';

interface Side {
  ms: number;
  coverage?: CoverageSummary | undefined;
  error?: string | undefined;
  note?: string | undefined;
}

interface EngineSide extends Side {
  /** The search's line + branch count over time (ms since the run started, the build included). */
  progress: { ms: number; lineBranch: number }[];
}

interface SeedRow {
  seed: number;
  engine: EngineSide;
  plain: Side;
  /** When the engine first reached plain random's final line + branch count (ms, the build included), if it did. */
  engineReachedPlainMs?: number | undefined;
}

function args() {
  const a = process.argv.slice(2);
  const opt = (name: string, dflt: string) => {
    const i = a.indexOf(name);
    return i >= 0 ? a[i + 1] : dflt;
  };
  const input = a.find((x, i) => !x.startsWith('--') && (i === 0 || !a[i - 1].startsWith('--')));
  if (!input)
    throw new Error(
      'usage: npx tsx bench/real-ip-vs-plain.ts <items.jsonl> [--budget-seconds 60] [--seeds 1,2,3] [--concurrency 1] [--only id,id] [--out dir]',
    );
  const only = opt('--only', '');
  return {
    input: resolve(input),
    budget: Number(opt('--budget-seconds', '60')),
    seeds: opt('--seeds', '1,2,3').split(',').map(Number),
    concurrency: Number(opt('--concurrency', '1')),
    only: only ? only.split(',') : [],
    out: resolve(opt('--out', mkdtempSync(join(tmpdir(), 'chorus-ip-vs-plain-')))),
  };
}

const KINDS = ['line', 'branch', 'toggle'] as const;
const lineBranch = (c: CoverageSummary | undefined) => (c ? c.line.covered + c.branch.covered : 0);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Per item, over its seeds: medians of each side's counts, and the engine's time to reach plain random. */
function itemSummary(id: string, seeds: SeedRow[]) {
  const med = (side: 'engine' | 'plain', k: (typeof KINDS)[number]) =>
    median(seeds.filter((r) => r[side].coverage).map((r) => r[side].coverage![k].covered));
  const total = (k: (typeof KINDS)[number]) => seeds.find((r) => r.engine.coverage)?.engine.coverage?.[k].total ?? NaN;
  const counts = Object.fromEntries(
    KINDS.map((k) => [k, { engine: med('engine', k), plain: med('plain', k), total: total(k) }]),
  ) as Record<(typeof KINDS)[number], { engine: number; plain: number; total: number }>;
  // The speed ratio: time to plain random's final line + branch over plain random's wall time; never reached: 2.
  const ratios = seeds.map((r) => (r.engineReachedPlainMs !== undefined ? r.engineReachedPlainMs / r.plain.ms : 2));
  return {
    id,
    counts,
    engine_ms: median(seeds.map((r) => r.engine.ms)),
    plain_ms: median(seeds.map((r) => r.plain.ms)),
    reach_ratio: median(ratios),
    at_least_plain: KINDS.every((k) => counts[k].engine >= counts[k].plain),
    ahead_line_branch:
      counts.line.engine + counts.branch.engine > counts.line.plain + counts.branch.plain ||
      (counts.line.engine === counts.line.total && counts.branch.engine === counts.branch.total),
    errors: seeds.flatMap((r) => [r.engine.error, r.plain.error].filter((e): e is string => Boolean(e))),
  };
}

async function main(): Promise<void> {
  const o = args();
  mkdirSync(o.out, { recursive: true });
  const parsed = parseItems(readFileSync(o.input, 'utf8'), dirname(o.input));
  const bad = parsed.filter((l) => !l.ok);
  if (bad.length) throw new Error(`bad items: ${bad.map((l) => (l.ok ? '' : `${l.id}: ${l.error}`)).join('; ')}`);
  let items = parsed.flatMap((l) => (l.ok && l.item.design ? [l.item] : []));
  if (o.only.length) items = items.filter((i) => o.only.includes(i.id));
  const cacheDir = mkdtempSync(join(tmpdir(), 'chorus-ip-vs-plain-cache-'));
  const sim = { logger: silentLogger, cacheDir, signal: new AbortController().signal };
  // Warm the fresh cache's runtime objects and precompiled header on a tiny design, so neither side pays them.
  const warm = join(o.out, 'warm.sv');
  writeFileSync(
    warm,
    'module warm(input logic clk, input logic a, output logic q);\n  always_ff @(posedge clk) q <= a;\nendmodule\n',
  );
  await plainRandomInBudget({ rtlFiles: [warm], seed: 99, budgetMs: 1 }, sim);
  // Each side of each run starts from a copy of that warm cache: neither finds the other's compiled model in it
  // (its ccache lives there too), so both pay their own cold build, as a user's first run does.
  const coldCache = () => {
    const dir = mkdtempSync(join(tmpdir(), 'chorus-ip-vs-plain-side-'));
    cpSync(cacheDir, dir, { recursive: true });
    return dir;
  };

  const perItem = join(o.out, 'items.jsonl');
  writeFileSync(perItem, '');
  const summaries: ReturnType<typeof itemSummary>[] = [];
  let next = 0;
  const t0 = performance.now();
  const runItem = async (it: BenchItem) => {
    const design = await itemDesign(it.design!);
    const seeds: SeedRow[] = [];
    for (const seed of o.seeds) {
      // The engine first, with its budget; then plain random gets exactly the engine's wall time, its build included.
      const progress: EngineSide['progress'] = [];
      const started = performance.now();
      const workDir = mkdtempSync(join(tmpdir(), 'chorus-ip-vs-plain-run-'));
      const engineCache = coldCache();
      const plainCache = coldCache();
      const r = await timed(() =>
        generateToEnd(
          {
            ...design,
            top: it.dut_module_name,
            engine: 'random',
            targets: { line: 100, branch: 100, toggle: 100 },
            seed,
            budgetSeconds: o.budget,
            workDir,
          },
          { logger: silentLogger, signal: new AbortController().signal, cacheDir: engineCache },
          (e) => {
            if (e.type === 'coverage')
              progress.push({ ms: Math.round(performance.now() - started), lineBranch: lineBranch(e.coverage) });
          },
        ),
      );
      const engine: EngineSide = {
        ms: r.ms,
        coverage: r.value?.coverage,
        error: r.error,
        note: r.value ? `stop: ${r.value.stopReason}` : undefined,
        progress,
      };
      const p = await timed(() =>
        plainRandomInBudget(
          { ...design, top: it.dut_module_name, seed, budgetMs: 0, wallMs: engine.ms },
          { ...sim, cacheDir: plainCache },
        ),
      );
      // Each side's build cache and the run folder hold a cold build of the item: hundreds of MB on a core.
      for (const dir of [workDir, engineCache, plainCache]) rmSync(dir, { recursive: true, force: true });
      const plain: Side = {
        ms: p.ms,
        coverage: p.value?.coverage,
        error: p.error,
        note: p.value ? `${p.value.runs} runs, ${p.value.cycles} cycles, build ${p.value.ms.build} ms` : undefined,
      };
      const goal = lineBranch(plain.coverage);
      const row: SeedRow = {
        seed,
        engine,
        plain,
        engineReachedPlainMs: progress.find((x) => x.lineBranch >= goal)?.ms,
      };
      seeds.push(row);
      writeFileSync(perItem, `${JSON.stringify({ id: it.id, ...row })}\n`, { flag: 'a' });
      process.stderr.write(
        `${it.id} seed ${seed}: engine ${engine.ms} ms ${KINDS.map((k) => coverageCell(engine.coverage, k)).join(' ')}${engine.error ? ` (${engine.error})` : ''}; ` +
          `plain ${plain.ms} ms ${KINDS.map((k) => coverageCell(plain.coverage, k)).join(' ')}${plain.error ? ` (${plain.error})` : ''}; ` +
          `reached plain at ${row.engineReachedPlainMs ?? 'never'} ms\n`,
      );
    }
    summaries.push(itemSummary(it.id, seeds));
  };
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await runItem(items[i]);
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  rmSync(cacheDir, { recursive: true, force: true });
  summaries.sort((a, b) => items.findIndex((i) => i.id === a.id) - items.findIndex((i) => i.id === b.id));
  const cell = (c: { engine: number; plain: number; total: number }) => `${c.engine} · ${c.plain} / ${c.total}`;
  const table = [
    `Medians over seeds ${o.seeds.join(', ')}, engine · plain random / total; plain random gets the engine's wall time.`,
    '',
    '| item | line | branch | toggle | engine s | reach ratio | engine ≥ plain | ahead on line+branch |',
    '|---|---|---|---|---|---|---|---|',
    ...summaries.map(
      (r) =>
        `| ${r.id} | ${cell(r.counts.line)} | ${cell(r.counts.branch)} | ${cell(r.counts.toggle)} | ${(r.engine_ms / 1000).toFixed(1)} | ${r.reach_ratio.toFixed(2)} | ${r.at_least_plain ? 'yes' : 'NO'} | ${r.ahead_line_branch ? 'yes' : 'no'} |`,
    ),
  ].join('\n');
  const summary = {
    input: o.input,
    items: items.length,
    seeds: o.seeds,
    budget_seconds: o.budget,
    wall_ms_whole_run: Math.round(performance.now() - t0),
    engine_at_least_plain: summaries.filter((r) => r.at_least_plain).length,
    short: summaries.filter((r) => !r.at_least_plain).map((r) => r.id),
    median_reach_ratio: median(summaries.map((r) => r.reach_ratio)),
    errors: summaries.flatMap((r) => r.errors.map((e) => `${r.id}: ${e}`)),
  };
  writeFileSync(join(o.out, 'summary.json'), `${JSON.stringify({ ...summary, items_detail: summaries }, null, 2)}\n`);
  writeFileSync(join(o.out, 'table.md'), `${table}\n`);
  process.stdout.write(`${table}\n\n${JSON.stringify(summary, null, 2)}\nper item: ${perItem}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
