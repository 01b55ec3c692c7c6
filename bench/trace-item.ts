/**
 * Where one corpus item's search run spends its time: the engine's debug log and its build and coverage events,
 * each stamped with the seconds since the start, for one item of an items.jsonl, built cold from a copy of a warm
 * build cache (as bench/real-ip-vs-plain.ts gives each side).
 *
 * Usage: npx tsx bench/trace-item.ts <items.jsonl> <item id> [--seed 1] [--budget-seconds 60] [--warm-cache dir]
 */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateToEnd } from '../src/engine';
import type { Logger } from '../src/protocol';
import { designItem } from './item';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

async function main(): Promise<void> {
  const [input, id] = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  if (!input || !id)
    throw new Error(
      'usage: npx tsx bench/trace-item.ts <items.jsonl> <item id> [--seed 1] [--budget-seconds 60] [--warm-cache dir]',
    );
  const { item, design } = await designItem(input, id);
  const cacheDir = mkdtempSync(join(tmpdir(), 'chorus-trace-cache-'));
  const warm = option('--warm-cache', '');
  if (warm) cpSync(warm, cacheDir, { recursive: true });
  const t0 = performance.now();
  const stamp = (m: string) => process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(1)}s ${m}\n`);
  const logger: Logger = { debug: stamp, info: stamp, warn: stamp, error: stamp };
  const result = await generateToEnd(
    {
      ...design,
      top: item.dut_module_name,
      engine: 'random',
      targets: { line: 100, branch: 100, toggle: 100 },
      seed: Number(option('--seed', '1')),
      budgetSeconds: Number(option('--budget-seconds', '60')),
      workDir: mkdtempSync(join(tmpdir(), 'chorus-trace-run-')),
    },
    { logger, signal: new AbortController().signal, cacheDir },
    (e) => {
      if (e.type === 'build') stamp(`build: ${e.status} in ${e.ms} ms`);
      if (e.type === 'coverage')
        stamp(`coverage: line ${e.coverage.line.covered}, branch ${e.coverage.branch.covered}`);
    },
  );
  stamp(
    `done: line ${result.coverage.line.covered}/${result.coverage.line.total}, branch ${result.coverage.branch.covered}/${result.coverage.branch.total}, stop: ${result.stopReason}`,
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
