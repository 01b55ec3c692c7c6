/**
 * Side by side on the same items in one run: plain random (bench/plain-random.ts: 2,000 cycles of fresh inputs,
 * one build) and the model-free engine. Per item: wall time to each one's final coverage, points reached, pass.
 *
 * Usage: npx tsx bench/random-vs-plain.ts <items.jsonl | real-ip folder> [--concurrency 2] [--budget-seconds 30]
 *          [--limit N] [--out dir]
 * An ECov-schema JSONL (rtl_files inline) or a folder with items.jsonl whose items name a filelist (`.f`: one file
 * per line, `+incdir+`). Items that need what neither side can be given here (parameter overrides, include folders)
 * are skipped and listed: bench/real-ip-vs-plain.ts runs every real-IP item, with both. Builds go to a fresh cache (warmed once), so no item is a cache hit from an earlier run.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateToEnd } from '../src/engine';
import { silentLogger, type CoverageSummary, type Targets } from '../src/protocol';
import { plainRandom } from './plain-random';
import { coverageCell, timed } from './timing';

interface Item {
  id: string;
  rtlFiles: string[];
  top?: string;
  targets: Targets;
}

interface Side {
  ms: number;
  pass: boolean;
  coverage?: CoverageSummary | undefined;
  error?: string | undefined;
  phases?: string | undefined;
  stop?: string | undefined;
}

function args(): { input: string; concurrency: number; budget: number; limit: number; out: string } {
  const a = process.argv.slice(2);
  const opt = (name: string, dflt: string) => {
    const i = a.indexOf(name);
    return i >= 0 ? a[i + 1] : dflt;
  };
  const input = a.find((x, i) => !x.startsWith('--') && (i === 0 || !a[i - 1].startsWith('--')));
  if (!input)
    throw new Error(
      'usage: npx tsx bench/random-vs-plain.ts <items.jsonl | real-ip folder> [--concurrency 2] [--budget-seconds 30] [--limit N] [--out dir]',
    );
  return {
    input: resolve(input),
    concurrency: Number(opt('--concurrency', '2')),
    budget: Number(opt('--budget-seconds', '30')),
    limit: Number(opt('--limit', '0')),
    out: resolve(opt('--out', mkdtempSync(join(tmpdir(), 'chorus-rvp-')))),
  };
}

function ecovItems(file: string, work: string): Item[] {
  const out: Item[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const d = JSON.parse(line) as {
      id: string;
      rtl_files: { name: string; content: string }[];
      dut_module_name: string;
      targets: { metric: string; target_percentage: number }[];
    };
    const dir = join(work, 'items', d.id);
    mkdirSync(dir, { recursive: true });
    const rtlFiles = d.rtl_files.map((f) => {
      const p = join(dir, f.name);
      writeFileSync(p, f.content);
      return p;
    });
    const targets: Targets = {};
    for (const t of d.targets) (targets as Record<string, number>)[t.metric] = t.target_percentage;
    out.push({ id: d.id, rtlFiles, top: d.dut_module_name, targets });
  }
  return out;
}

function realIpItems(folder: string, skipped: string[]): Item[] {
  const out: Item[] = [];
  for (const line of readFileSync(join(folder, 'items.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const d = JSON.parse(line) as { id: string; top: string; filelist: string; parameters?: Record<string, unknown> };
    if (d.parameters && Object.keys(d.parameters).length) {
      skipped.push(`${d.id} (parameter overrides: the engine takes none)`);
      continue;
    }
    const lines = readFileSync(join(folder, d.filelist), 'utf8')
      .split('\n')
      .map((l) => l.replace(/\/\/.*$/, '').trim())
      .filter(Boolean);
    if (lines.some((l) => l.startsWith('+incdir+'))) {
      skipped.push(`${d.id} (include folders: the engine takes none yet)`);
      continue;
    }
    const rtlFiles = lines.map((l) => resolve(folder, l));
    const missing = rtlFiles.find((f) => !existsSync(f));
    if (missing) {
      skipped.push(`${d.id} (missing ${missing})`);
      continue;
    }
    out.push({ id: d.id, rtlFiles, top: d.top, targets: { line: 100, branch: 100 } });
  }
  return out;
}

async function main(): Promise<void> {
  const o = args();
  mkdirSync(o.out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'chorus-rvp-items-'));
  const skipped: string[] = [];
  let items = statSync(o.input).isDirectory() ? realIpItems(o.input, skipped) : ecovItems(o.input, work);
  if (o.limit > 0) items = items.slice(0, o.limit);
  const cacheDir = mkdtempSync(join(tmpdir(), 'chorus-rvp-cache-'));
  const sim = { logger: silentLogger, cacheDir };
  // Warm the fresh cache's runtime objects and precompiled header, so neither side pays them on its first item.
  const warm = join(work, 'warm.sv');
  writeFileSync(
    warm,
    'module warm(input logic clk, input logic a, output logic q);\n  always_ff @(posedge clk) q <= a;\nendmodule\n',
  );
  await plainRandom({ rtlFiles: [warm], targets: { line: 100 }, seed: 99 }, sim);

  const rows: { id: string; plain: Side; engine: Side }[] = [];
  const resultsFile = join(o.out, 'items.jsonl');
  writeFileSync(resultsFile, '');
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      const it = items[i];
      const runPlain = async (): Promise<Side> => {
        const r = await timed(() =>
          plainRandom({ rtlFiles: it.rtlFiles, top: it.top, targets: it.targets, seed: 1 }, sim),
        );
        return { ms: r.ms, pass: r.value?.pass ?? false, coverage: r.value?.coverage, error: r.error };
      };
      const runEngine = async (): Promise<Side> => {
        // The engine's own account of where its time went (build, plain, deep, search, shrink, final phases).
        let phases: string | undefined;
        const logger = { ...silentLogger, debug: (m: string) => void (m.startsWith('random search:') && (phases = m)) };
        const r = await timed(() =>
          generateToEnd(
            {
              rtlFiles: it.rtlFiles,
              top: it.top,
              engine: 'random',
              targets: it.targets,
              seed: 1,
              budgetSeconds: o.budget,
              workDir: mkdtempSync(join(tmpdir(), 'chorus-rvp-run-')),
            },
            { logger, signal: new AbortController().signal, cacheDir },
            () => {},
          ),
        );
        return {
          ms: r.ms,
          pass: r.value?.pass ?? false,
          coverage: r.value?.coverage,
          error: r.error,
          phases,
          stop: r.value?.stopReason,
        };
      };
      // Alternate which side goes first, so neither always meets the other's leftovers.
      let plain: Side;
      let engine: Side;
      if (i % 2 === 0) {
        plain = await runPlain();
        engine = await runEngine();
      } else {
        engine = await runEngine();
        plain = await runPlain();
      }
      const row = { id: it.id, plain, engine };
      rows.push(row);
      writeFileSync(resultsFile, `${JSON.stringify(row)}\n`, { flag: 'a' });
      process.stderr.write(
        `${rows.length}/${items.length} ${it.id}: plain ${plain.ms} ms ${plain.pass ? 'pass' : 'fail'} ${coverageCell(plain.coverage, 'line')} ${coverageCell(plain.coverage, 'branch')}${plain.error ? ` (${plain.error})` : ''}; ` +
          `engine ${engine.ms} ms ${engine.pass ? 'pass' : 'fail'} ${coverageCell(engine.coverage, 'line')} ${coverageCell(engine.coverage, 'branch')}${engine.error ? ` (${engine.error})` : ''}\n`,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  const wall = Math.round(performance.now() - t0);
  const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((a, r) => a + f(r), 0);
  const loaded = rows.filter((r) => !r.plain.error && !r.engine.error);
  const summary = {
    input: o.input,
    items: items.length,
    loaded: loaded.length,
    not_loaded: rows
      .filter((r) => r.plain.error || r.engine.error)
      .map((r) => `${r.id}: ${r.plain.error ?? r.engine.error}`),
    skipped,
    concurrency: o.concurrency,
    budget_seconds: o.budget,
    wall_ms_whole_run: wall,
    plain: {
      sum_item_ms: sum((r) => r.plain.ms),
      passed: sum((r) => Number(r.plain.pass)),
      line: sum((r) => r.plain.coverage?.line.covered ?? 0),
      branch: sum((r) => r.plain.coverage?.branch.covered ?? 0),
      toggle: sum((r) => r.plain.coverage?.toggle.covered ?? 0),
    },
    engine: {
      sum_item_ms: sum((r) => r.engine.ms),
      passed: sum((r) => Number(r.engine.pass)),
      line: sum((r) => r.engine.coverage?.line.covered ?? 0),
      branch: sum((r) => r.engine.coverage?.branch.covered ?? 0),
      toggle: sum((r) => r.engine.coverage?.toggle.covered ?? 0),
    },
    totals: {
      line: sum((r) => r.engine.coverage?.line.total ?? r.plain.coverage?.line.total ?? 0),
      branch: sum((r) => r.engine.coverage?.branch.total ?? r.plain.coverage?.branch.total ?? 0),
      toggle: sum((r) => r.engine.coverage?.toggle.total ?? r.plain.coverage?.toggle.total ?? 0),
    },
    ratio_engine_over_plain:
      Math.round(
        (sum((r) => r.engine.ms) /
          Math.max(
            1,
            sum((r) => r.plain.ms),
          )) *
          100,
      ) / 100,
    engine_only_passes: rows.filter((r) => r.engine.pass && !r.plain.pass).map((r) => r.id),
    plain_only_passes: rows.filter((r) => r.plain.pass && !r.engine.pass).map((r) => r.id),
  };
  writeFileSync(join(o.out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\nper item: ${resultsFile}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
