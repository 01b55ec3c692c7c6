/**
 * Real IP side by side: the model-free engine and the plain random baseline (bench/real-ip-plain.ts)
 * on every item of a real-IP items.jsonl (`{id, top, filelist, parameters}`, read as `chorus bench` reads it),
 * in the same wall-clock budget, with the same Verilator and design flags. Per item: line, branch and toggle
 * reached, and wall time, both sides; and whether the engine reached at least the baseline on all three.
 *
 * Usage: npx tsx bench/real-ip-vs-plain.ts <corpus>/real-ip/items.jsonl [--budget-seconds 25]
 *          [--concurrency 2] [--only id,id] [--out dir]
 * Builds go to a fresh cache (warmed once), so no item is a cache hit from an earlier run.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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

function args() {
  const a = process.argv.slice(2);
  const opt = (name: string, dflt: string) => {
    const i = a.indexOf(name);
    return i >= 0 ? a[i + 1] : dflt;
  };
  const input = a.find((x, i) => !x.startsWith('--') && (i === 0 || !a[i - 1].startsWith('--')));
  if (!input)
    throw new Error(
      'usage: npx tsx bench/real-ip-vs-plain.ts <items.jsonl> [--budget-seconds 25] [--concurrency 2] [--only id,id] [--out dir]',
    );
  const only = opt('--only', '');
  return {
    input: resolve(input),
    budget: Number(opt('--budget-seconds', '25')),
    concurrency: Number(opt('--concurrency', '2')),
    only: only ? only.split(',') : [],
    out: resolve(opt('--out', mkdtempSync(join(tmpdir(), 'chorus-ip-vs-plain-')))),
  };
}

const atLeast = (e: Side, p: Side) =>
  Boolean(e.coverage && p.coverage) &&
  (['line', 'branch', 'toggle'] as const).every((k) => e.coverage![k].covered >= p.coverage![k].covered);

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

  const rows: {
    id: string;
    parameters: Record<string, string>;
    engine: Side;
    plain: Side;
    engine_at_least_plain: boolean;
  }[] = [];
  const perItem = join(o.out, 'items.jsonl');
  writeFileSync(perItem, '');
  let next = 0;
  const t0 = performance.now();
  const runItem = async (it: BenchItem, index: number) => {
    const design = await itemDesign(it.design!);
    const runPlain = async (): Promise<Side> => {
      const r = await timed(() =>
        plainRandomInBudget({ ...design, top: it.dut_module_name, seed: 1, budgetMs: o.budget * 1000 }, sim),
      );
      return {
        ms: r.ms,
        coverage: r.value?.coverage,
        error: r.error,
        note: r.value ? `${r.value.runs} runs, ${r.value.cycles} cycles` : undefined,
      };
    };
    const runEngine = async (): Promise<Side> => {
      const workDir = mkdtempSync(join(tmpdir(), 'chorus-ip-vs-plain-run-'));
      const r = await timed(() =>
        generateToEnd(
          {
            ...design,
            top: it.dut_module_name,
            engine: 'random',
            targets: { line: 100, branch: 100, toggle: 100 },
            seed: 1,
            budgetSeconds: o.budget,
            formal: false,
            workDir,
          },
          { logger: silentLogger, signal: new AbortController().signal, cacheDir },
          () => {},
        ),
      );
      return {
        ms: r.ms,
        coverage: r.value?.coverage,
        error: r.error,
        note: r.value ? `stop: ${r.value.stopReason}` : undefined,
      };
    };
    // Alternate which side goes first, so neither always meets the other's leftovers.
    const [engine, plain] =
      index % 2 === 0
        ? [await runEngine(), await runPlain()]
        : await (async () => {
            const p = await runPlain();
            return [await runEngine(), p] as const;
          })();
    const row = {
      id: it.id,
      parameters: design.parameters ?? {},
      engine,
      plain,
      engine_at_least_plain: atLeast(engine, plain),
    };
    rows.push(row);
    writeFileSync(perItem, `${JSON.stringify(row)}\n`, { flag: 'a' });
    process.stderr.write(
      `${rows.length}/${items.length} ${it.id}: engine ${engine.ms} ms ${coverageCell(engine.coverage, 'line')} ${coverageCell(engine.coverage, 'branch')} ${coverageCell(engine.coverage, 'toggle')}${engine.error ? ` (${engine.error})` : ''}; ` +
        `plain ${plain.ms} ms ${coverageCell(plain.coverage, 'line')} ${coverageCell(plain.coverage, 'branch')} ${coverageCell(plain.coverage, 'toggle')}${plain.error ? ` (${plain.error})` : ''}\n`,
    );
  };
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await runItem(items[i], i);
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  rows.sort((a, b) => items.findIndex((i) => i.id === a.id) - items.findIndex((i) => i.id === b.id));
  const table = [
    '| item | parameters | engine line | plain line | engine branch | plain branch | engine toggle | plain toggle | engine s | plain s | engine ≥ plain |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const params =
        Object.entries(r.parameters)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ') || '—';
      const s = (x: Side) => (x.ms / 1000).toFixed(1);
      return `| ${r.id} | ${params} | ${coverageCell(r.engine.coverage, 'line')} | ${coverageCell(r.plain.coverage, 'line')} | ${coverageCell(r.engine.coverage, 'branch')} | ${coverageCell(r.plain.coverage, 'branch')} | ${coverageCell(r.engine.coverage, 'toggle')} | ${coverageCell(r.plain.coverage, 'toggle')} | ${s(r.engine)} | ${s(r.plain)} | ${r.engine_at_least_plain ? 'yes' : 'NO'} |`;
    }),
  ].join('\n');
  const summary = {
    input: o.input,
    items: items.length,
    budget_seconds: o.budget,
    concurrency: o.concurrency,
    wall_ms_whole_run: Math.round(performance.now() - t0),
    engine_at_least_plain: rows.filter((r) => r.engine_at_least_plain).length,
    short: rows.filter((r) => !r.engine_at_least_plain).map((r) => r.id),
    errors: rows
      .filter((r) => r.engine.error || r.plain.error)
      .map((r) => `${r.id}: ${r.engine.error ?? r.plain.error}`),
  };
  writeFileSync(join(o.out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(join(o.out, 'table.md'), `${table}\n`);
  process.stdout.write(`${table}\n\n${JSON.stringify(summary, null, 2)}\nper item: ${perItem}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
