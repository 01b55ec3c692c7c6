// Load on `chorus serve` (docs/serve.md, docs/benchmarks.md): N reward requests over 8 small designs, C at a time,
// against a server with a queue bound of 4: accepted + rejected (429) = sent; each accepted answer equals the engine's
// own `measure` of that testbench (rewardOf, the same reward function); every tool ran under the per-request memory
// bound (read from CHORUS_TOOL_LOG, the engine's record of each tool's limits); throughput and the warm-build share.
// Then the same load, retried on 429, on two server processes with one slot each against one with one slot.
// Usage: npm run build && node --import tsx bench/serve-load.ts [--requests 200] [--concurrency 16] [--reference 16]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { measure, rewardOf } from '../src/engine';
import { silentLogger, type RewardResult } from '../src/protocol';
import type { ToolLogEntry } from '../src/sim/process/toolLog';
import { ACC, goodTb } from '../test/serve/fixtures';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const REQUESTS = arg('--requests', 200);
const CONCURRENCY = arg('--concurrency', 16);
const REFERENCE = arg('--reference', 16);
const DESIGNS = 8;
const DISTINCT_TBS = 5; // Rollouts repeat: each design sees 5 distinct testbenches, each several times.
const MEMORY = 1024 ** 3;
const CLI = resolve('dist', 'cli.js');

interface Item {
  dut: string;
  file: string;
  design: string;
  tbName: string;
  tb: string;
}

/** 8 small accumulators, each its own module and threshold (a design of its own for the build cache). */
function items(n: number): Item[] {
  return Array.from({ length: n }, (_, i) => {
    const d = i % DESIGNS;
    const seed = 1 + (Math.floor(i / DESIGNS) % DISTINCT_TBS);
    const dut = `acc${d}`;
    const design = ACC.replace('module acc', `module ${dut}`).replace("8'd200", `8'd${120 + 10 * d}`);
    return { dut, file: `${dut}.sv`, design, tbName: `tb_${dut}_${seed}.sv`, tb: goodTb(dut, seed) };
  });
}

async function startServer(args: string[], env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((res, rej) => {
    let out = '';
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /http:\/\/\S+/.exec(out);
      if (m) res(m[0]);
    });
    child.once('exit', (code) => rej(new Error(`chorus serve exited (${code}) before listening`)));
  });
  return { url, child };
}

async function post(url: string, it: Item): Promise<{ code: number; body?: RewardResult; retryAfter?: number }> {
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

/** Sends every item, `concurrency` at a time; `pick` chooses the replica; `retry` resends a 429 after Retry-After. */
async function load(all: Item[], pick: (it: Item, i: number) => string, retry: boolean) {
  const results: { item: Item; code: number; body?: RewardResult }[] = [];
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < all.length) {
        const i = next++;
        for (;;) {
          const r = await post(pick(all[i], i), all[i]);
          if (r.code === 429 && retry) {
            await new Promise((w) => setTimeout(w, 1000 * Math.min(r.retryAfter ?? 1, 5)));
            continue;
          }
          results.push({ item: all[i], ...r });
          break;
        }
      }
    }),
  );
  return { results, seconds: (Date.now() - started) / 1000 };
}

const stop = (c: ChildProcess) =>
  new Promise<void>((res) => (c.exitCode !== null ? res() : (c.once('exit', () => res()), c.kill('SIGTERM'))));

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'chorus-serve-load-'));
  const toolLog = join(work, 'tools.jsonl');
  const cache = join(work, 'cache');
  const env = { ...process.env, CHORUS_TOOL_LOG: toolLog, XDG_CACHE_HOME: cache };
  const all = items(REQUESTS);
  const load0 = loadavg()[0];
  try {
    // 1. The bounded queue: one server, 2 slots, queue 4, 16 clients at once, no retries.
    const a = await startServer(['--slots', '2', '--queue', '4', '--memory-limit', String(MEMORY)], env);
    const bounded = await load(all, () => a.url, false);
    await stop(a.child);
    const accepted = bounded.results.filter((r) => r.code === 200);
    const rejected = bounded.results.filter((r) => r.code === 429);
    const other = bounded.results.filter((r) => r.code !== 200 && r.code !== 429);
    const warm = accepted.filter((r) => r.body?.cache_hit).length;

    // 2. Each accepted answer against the engine's own measurement of that testbench, on a sample of the distinct ones.
    const distinct = new Map<string, (typeof accepted)[number]>();
    for (const r of accepted) distinct.set(r.item.tbName, r);
    let mismatches = 0;
    const sample = [...distinct.values()].slice(0, REFERENCE);
    for (const r of sample) {
      const dir = mkdtempSync(join(work, 'ref-'));
      writeFileSync(join(dir, r.item.file), r.item.design);
      writeFileSync(join(dir, r.item.tbName), r.item.tb);
      const m = await measure(
        { rtlFiles: [join(dir, r.item.file)], testbench: join(dir, r.item.tbName), top: r.item.dut, timeoutMs: 30_000 },
        { logger: silentLogger, signal: AbortSignal.timeout(300_000), workspaceRoot: dir, memoryLimitBytes: MEMORY },
      );
      const ref = rewardOf(m, ['overall']);
      const same = accepted
        .filter((x) => x.item.tbName === r.item.tbName)
        .every((x) => x.body?.reward === ref.reward && x.body.coverage === ref.coverage);
      if (!same) mismatches++;
    }

    // 3. Per-request memory, from the limits each tool was started under.
    const runs = readFileSync(toolLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ToolLogEntry)
      .filter((e) => e.role === 'run');
    const unbounded = runs.filter(
      (e) => (e.limits.treeMemoryBytes ?? Infinity) > MEMORY && (e.limits.addressSpaceBytes ?? Infinity) > MEMORY,
    );

    // 4. Throughput: one process with one slot against two with one slot each, the same items, retried on 429.
    const fresh = (tag: string) => ({ ...env, XDG_CACHE_HOME: join(work, `cache-${tag}`) });
    const one = await startServer(['--slots', '1', '--queue', '64', '--memory-limit', String(MEMORY)], fresh('one'));
    const single = await load(all, () => one.url, true);
    await stop(one.child);
    const [p, q] = await Promise.all([
      startServer(['--slots', '1', '--queue', '64', '--memory-limit', String(MEMORY)], fresh('p')),
      startServer(['--slots', '1', '--queue', '64', '--memory-limit', String(MEMORY)], fresh('q')),
    ]);
    // By design, as the content-hash routing of integrations/chorus_client.py does: a design's requests to one replica.
    const pair = await load(all, (it) => (Number(it.dut.slice(3)) % 2 ? q.url : p.url), true);
    await Promise.all([stop(p.child), stop(q.child)]);

    const report = {
      sent: bounded.results.length,
      accepted: accepted.length,
      rejected429: rejected.length,
      otherCodes: other.map((r) => r.code),
      acceptedPlusRejectedEqualsSent: accepted.length + rejected.length === bounded.results.length,
      boundedThroughputPerSecond: +(accepted.length / bounded.seconds).toFixed(2),
      warmBuildShare: +(warm / Math.max(1, accepted.length)).toFixed(3),
      referenceChecked: sample.length,
      referenceMismatches: mismatches,
      toolRuns: runs.length,
      toolRunsOverMemoryLimit: unbounded.length,
      memoryLimitBytes: MEMORY,
      oneSlotSeconds: single.seconds,
      twoProcessesSeconds: pair.seconds,
      throughputRatio: +(single.seconds / pair.seconds).toFixed(2),
      loadAverageAtStart: +load0.toFixed(2),
      loadAverageAtEnd: +loadavg()[0].toFixed(2),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    if (!report.acceptedPlusRejectedEqualsSent || mismatches || unbounded.length || other.length) process.exitCode = 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

void main();
