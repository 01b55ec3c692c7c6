/**
 * Which points each side reaches that the other does not: the model-free search (`--budget-seconds`, targets
 * line/branch/toggle 100) and plain random (bench/real-ip-plain.ts) for exactly the search's measured wall time,
 * on one item of a real-IP items.jsonl, one seed. Line and branch points are listed by file, line and Verilator's
 * comment; toggle points are counted. Where the search trails plain random, this is what to look at first.
 *
 * Usage: npx tsx bench/point-diff.ts <items.jsonl> <item id> [--seed 1] [--budget-seconds 60]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { generateToEnd } from '../src/engine';
import { pointId, silentLogger, type CoveragePoint } from '../src/protocol';
import { designItem } from './item';
import { plainRandomInBudget } from './real-ip-plain';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

/** How a point reads in the list: file, line, column, kind, Verilator's comment, the instance below the harness. */
function label(p: CoveragePoint): string {
  const below = p.hierarchy.split('.').slice(3).join('.');
  return `${basename(p.file)}:${p.line}:${p.column} ${p.kind} ${p.comment} ${below}`;
}

/** The points a run reached, by their identity (both sides run the same harness, so hierarchies agree). */
function hit(points: readonly CoveragePoint[]): Map<string, CoveragePoint> {
  const out = new Map<string, CoveragePoint>();
  for (const p of points) if (p.count > 0) out.set(pointId(p), p);
  return out;
}

function report(title: string, only: CoveragePoint[]): void {
  const listed = only.filter((p) => p.kind !== 'toggle').sort((a, b) => label(a).localeCompare(label(b)));
  const toggles = only.length - listed.length;
  process.stdout.write(`${title}: ${listed.length} line/branch point(s), ${toggles} toggle point(s)\n`);
  for (const p of listed) process.stdout.write(`  ${label(p)}\n`);
}

async function main(): Promise<void> {
  const [input, id] = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  if (!input || !id)
    throw new Error('usage: npx tsx bench/point-diff.ts <items.jsonl> <item id> [--seed 1] [--budget-seconds 60]');
  const { item, design } = await designItem(input, id);
  const seed = Number(option('--seed', '1'));
  const t0 = Date.now();
  const search = await generateToEnd(
    {
      ...design,
      top: item.dut_module_name,
      engine: 'random',
      targets: { line: 100, branch: 100, toggle: 100 },
      seed,
      budgetSeconds: Number(option('--budget-seconds', '60')),
      workDir: mkdtempSync(join(tmpdir(), 'chorus-diff-run-')),
    },
    { logger: silentLogger, signal: new AbortController().signal },
  );
  const wallMs = Date.now() - t0;
  const plain = await plainRandomInBudget(
    {
      rtlFiles: design.rtlFiles,
      top: item.dut_module_name,
      includeDirs: design.includeDirs,
      defines: design.defines,
      parameters: design.parameters,
      seed,
      budgetMs: 0,
      wallMs,
    },
    { signal: new AbortController().signal },
  );
  const a = hit(search.points);
  const b = hit(plain.points);
  const c = (s: { covered: number; total: number }) => `${s.covered}/${s.total}`;
  process.stdout.write(
    `${id} seed ${seed}: search ${(wallMs / 1000).toFixed(1)} s, line ${c(search.coverage.line)}, branch ${c(search.coverage.branch)}, toggle ${c(search.coverage.toggle)}\n` +
      `plain random ${(plain.ms.total / 1000).toFixed(1)} s (${plain.cycles} cycles), line ${c(plain.coverage.line)}, branch ${c(plain.coverage.branch)}, toggle ${c(plain.coverage.toggle)}\n`,
  );
  report(
    'plain random only',
    [...b].filter(([k]) => !a.has(k)).map(([, p]) => p),
  );
  report(
    'search only',
    [...a].filter(([k]) => !b.has(k)).map(([, p]) => p),
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
