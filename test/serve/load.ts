/**
 * The load check on `chorus serve`, shared by bench/serve-load.ts (the full run) and test/serve/load.test.ts (a small
 * one): reward requests over small designs, C clients at a time; what came back (accepted, 429, anything else, warm
 * builds); each accepted answer against the engine's own `measure` of that testbench (rewardOf, the same reward
 * function); every tool the servers ran against the per-request memory bound, read from CHORUS_TOOL_LOG.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { measure, rewardOf } from '../../src/engine';
import { silentLogger, type RewardResult } from '../../src/protocol';
import type { ToolLogEntry } from '../../src/sim/process/toolLog';
import { ACC, goodTb } from './fixtures';

export interface LoadItem {
  dut: string;
  file: string;
  design: string;
  tbName: string;
  tb: string;
}

/**
 * `n` requests over `designs` small accumulators (each its own module and threshold, so a design of its own for
 * the build cache); rollouts repeat, so each design sees `distinct` testbenches, each several times.
 */
export function loadItems(n: number, designs: number, distinct: number): LoadItem[] {
  return Array.from({ length: n }, (_, i) => {
    const d = i % designs;
    const seed = 1 + (Math.floor(i / designs) % distinct);
    const dut = `acc${d}`;
    const design = ACC.replace('module acc', `module ${dut}`).replace("8'd200", `8'd${120 + 10 * d}`);
    return { dut, file: `${dut}.sv`, design, tbName: `tb_${dut}_${seed}.sv`, tb: goodTb(dut, seed) };
  });
}

export interface Answer {
  item: LoadItem;
  code: number;
  body?: RewardResult;
}

async function post(url: string, it: LoadItem): Promise<{ code: number; body?: RewardResult; retryAfter?: number }> {
  const res = await fetch(`${url}/v1/reward`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      dut: it.dut,
      sv_files: [it.file],
      tb: it.tbName,
      files: { [it.file]: it.design, [it.tbName]: it.tb },
      metrics: ['overall'],
    }),
  });
  if (res.status !== 200) {
    await res.text();
    return { code: res.status, retryAfter: Number(res.headers.get('retry-after') ?? 1) };
  }
  return { code: 200, body: (await res.json()) as RewardResult };
}

/**
 * Sends every item, `concurrency` at a time; `pick` chooses the replica; with `retry` a 429 is sent again after
 * its Retry-After (at most 5 s), without it the 429 is the answer.
 */
export async function sendLoad(
  all: LoadItem[],
  concurrency: number,
  pick: (it: LoadItem, i: number) => string,
  retry: boolean,
): Promise<{ results: Answer[]; seconds: number }> {
  const results: Answer[] = [];
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < all.length) {
        const i = next++;
        for (;;) {
          const r = await post(pick(all[i], i), all[i]);
          if (r.code === 429 && retry) {
            await new Promise((w) => setTimeout(w, 1000 * Math.min(r.retryAfter ?? 1, 5)));
            continue;
          }
          results.push({ item: all[i], code: r.code, ...(r.body ? { body: r.body } : {}) });
          break;
        }
      }
    }),
  );
  return { results, seconds: (Date.now() - started) / 1000 };
}

/** What a run without retries came back with. */
export function tally(results: Answer[]) {
  const accepted = results.filter((r) => r.code === 200);
  const rejected = results.filter((r) => r.code === 429);
  const other = results.filter((r) => r.code !== 200 && r.code !== 429);
  const warm = accepted.filter((r) => r.body?.cache_hit).length;
  return { accepted, rejected, other, warm };
}

export interface Mismatch {
  tbName: string;
  expected: { reward: number; coverage: number };
  got: { reward: number | undefined; coverage: number | undefined }[];
}

/**
 * Each of (up to `limit`) distinct accepted testbenches measured by the engine itself, in a folder of its own
 * under `work`: the testbenches whose answers differ from its reward.
 */
export async function referenceMismatches(
  accepted: Answer[],
  work: string,
  memoryLimitBytes: number,
  limit = Infinity,
): Promise<{ checked: number; mismatches: Mismatch[] }> {
  const distinct = new Map<string, Answer>();
  for (const r of accepted) distinct.set(r.item.tbName, r);
  const sample = [...distinct.values()].slice(0, limit);
  const mismatches: Mismatch[] = [];
  for (const r of sample) {
    const dir = mkdtempSync(join(work, 'ref-'));
    writeFileSync(join(dir, r.item.file), r.item.design);
    writeFileSync(join(dir, r.item.tbName), r.item.tb);
    const m = await measure(
      { rtlFiles: [join(dir, r.item.file)], testbench: join(dir, r.item.tbName), top: r.item.dut, timeoutMs: 30_000 },
      { logger: silentLogger, signal: AbortSignal.timeout(300_000), workspaceRoot: dir, memoryLimitBytes },
    );
    const ref = rewardOf(m, ['overall']);
    const same = accepted.filter((x) => x.item.tbName === r.item.tbName);
    if (!same.every((x) => x.body?.reward === ref.reward && x.body.coverage === ref.coverage))
      mismatches.push({
        tbName: r.item.tbName,
        expected: { reward: ref.reward, coverage: ref.coverage },
        got: same.map((x) => ({ reward: x.body?.reward, coverage: x.body?.coverage })),
      });
  }
  return { checked: sample.length, mismatches };
}

/** The tool runs (not probes) CHORUS_TOOL_LOG recorded, each with the limits it was started under. */
export function toolRuns(toolLog: string): ToolLogEntry[] {
  if (!existsSync(toolLog)) return [];
  return readFileSync(toolLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ToolLogEntry)
    .filter((e) => e.role === 'run');
}

/**
 * The runs that were not held under `bound`: neither the sampler's bound on the tree's resident memory nor the
 * address space of each process at or under it.
 */
export function overMemoryBound(runs: ToolLogEntry[], bound: number): ToolLogEntry[] {
  return runs.filter(
    (e) => (e.limits.treeMemoryBytes ?? Infinity) > bound && (e.limits.addressSpaceBytes ?? Infinity) > bound,
  );
}
