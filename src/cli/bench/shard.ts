/**
 * `chorus bench --shard i/n` and `chorus bench merge`: a dataset split over a Slurm job array or a Kubernetes indexed
 * Job, each shard's items chosen by position (item p goes to shard p mod n), and the shards' records put back in
 * dataset order and summed by the same `benchReport` one run uses, so the merged report is the unsharded one's.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChorusError, type EngineName } from '../../protocol';
import { benchReport, type BenchReport, type ItemResult } from './run';
import type { ParsedLine } from './schema';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** What a shard leaves in its --out folder for `bench merge`: every item's full record and its dataset position. */
export interface ShardRecord {
  shard: Shard;
  /** Items in the whole dataset. */
  total: number;
  positions: number[];
  engine: EngineName;
  samples: number;
  mapping: Record<string, string>;
  total_ms: number;
  results: ItemResult[];
}

export const SHARD_FILE = 'shard.json';

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count)
    throw new ChorusError('bad_input', `--shard ${text}: give i/n with 1 ≤ i ≤ n, such as 2/8.`);
  return { index, count };
}

/** The shard's items and their positions in the dataset. */
export function shardLines(lines: ParsedLine[], shard: Shard): { lines: ParsedLine[]; positions: number[] } {
  const picked = [...lines.entries()].filter(([p]) => p % shard.count === shard.index - 1);
  return { lines: picked.map(([, line]) => line), positions: picked.map(([p]) => p) };
}

/** The shards' records as one report: every shard of one split once, items in dataset order. */
export async function mergeShards(dirs: string[]): Promise<BenchReport> {
  const records: ShardRecord[] = [];
  for (const dir of dirs) {
    const file = join(dir, SHARD_FILE);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      throw new ChorusError(
        'bad_input',
        `${file} is missing: give the --out folders of \`chorus bench --shard\` runs.`,
        {
          file,
        },
      );
    }
    records.push(JSON.parse(text) as ShardRecord);
  }
  const first = records[0];
  if (!first) throw new ChorusError('bad_input', 'bench merge needs the --out folders of the shards.');
  const seen = new Set<number>();
  for (const [i, r] of records.entries()) {
    if (
      r.shard.count !== first.shard.count ||
      r.total !== first.total ||
      r.engine !== first.engine ||
      r.samples !== first.samples
    )
      throw new ChorusError(
        'bad_input',
        `${dirs[i]} is a shard of another split or run (shard count, dataset, engine or samples differ).`,
      );
    if (seen.has(r.shard.index))
      throw new ChorusError('bad_input', `Shard ${r.shard.index}/${r.shard.count} is given twice.`);
    seen.add(r.shard.index);
  }
  const missing = Array.from({ length: first.shard.count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length)
    throw new ChorusError(
      'bad_input',
      `Shard(s) ${missing.map((i) => `${i}/${first.shard.count}`).join(', ')} missing: merge every shard.`,
    );
  const placed: ItemResult[] = new Array(first.total);
  for (const r of records)
    r.positions.forEach((p, i) => {
      const result = r.results[i];
      if (result !== undefined) placed[p] = result;
    });
  const mapping = Object.assign({}, ...records.map((r) => r.mapping)) as Record<string, string>;
  // Wall time of the split: the slowest shard (they run side by side).
  const totalMs = Math.max(...records.map((r) => r.total_ms));
  return benchReport(placed.filter(Boolean), mapping, first.engine, first.samples, totalMs);
}
