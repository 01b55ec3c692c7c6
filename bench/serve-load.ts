// Load on `chorus serve` (docs/serve.md, docs/benchmarks.md): N reward requests over 8 small designs, C at a time,
// against a server with a queue bound of 4: accepted + rejected (429) = sent; each accepted answer equals the engine's
// own `measure` of that testbench (rewardOf, the same reward function); every tool ran under the per-request memory
// bound (read from CHORUS_TOOL_LOG, the engine's record of each tool's limits); throughput and the warm-build share.
// Then the same load, retried on 429, on two server processes with one slot each against one with one slot.
// The shared part (the load, the tally, the reference check, the tool log) is test/serve/load.ts.
// Usage: npm run build && node --import tsx bench/serve-load.ts [--requests 200] [--concurrency 16] [--reference 16]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadItems, overMemoryBound, referenceMismatches, sendLoad, tally, toolRuns } from '../test/serve/load';

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

const stop = (c: ChildProcess) =>
  new Promise<void>((res) => (c.exitCode !== null ? res() : (c.once('exit', () => res()), c.kill('SIGTERM'))));

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'chorus-serve-load-'));
  const toolLog = join(work, 'tools.jsonl');
  const cache = join(work, 'cache');
  const env = { ...process.env, CHORUS_TOOL_LOG: toolLog, XDG_CACHE_HOME: cache };
  const all = loadItems(REQUESTS, DESIGNS, DISTINCT_TBS);
  const load0 = loadavg()[0];
  // In MiB with its unit: the flag reads a bare number as MiB, so the byte count would be a bound of 1 PiB.
  const bound = ['--memory-limit', `${MEMORY / 1024 ** 2}M`];
  try {
    // 1. The bounded queue: one server, 2 slots, queue 4, 16 clients at once, no retries.
    const a = await startServer(['--slots', '2', '--queue', '4', ...bound], env);
    const bounded = await sendLoad(all, CONCURRENCY, () => a.url, false);
    await stop(a.child);
    const { accepted, rejected, other, warm } = tally(bounded.results);
    const boundedRuns = toolRuns(toolLog).length;

    // 2. Each accepted answer against the engine's own measurement of that testbench, on a sample of the distinct ones.
    const reference = await referenceMismatches(accepted, work, MEMORY, REFERENCE);

    // 3. Throughput: one process with one slot against two with one slot each, the same items, retried on 429.
    const fresh = (tag: string) => ({ ...env, XDG_CACHE_HOME: join(work, `cache-${tag}`) });
    const one = await startServer(['--slots', '1', '--queue', '64', ...bound], fresh('one'));
    const single = await sendLoad(all, CONCURRENCY, () => one.url, true);
    await stop(one.child);
    const [p, q] = await Promise.all([
      startServer(['--slots', '1', '--queue', '64', ...bound], fresh('p')),
      startServer(['--slots', '1', '--queue', '64', ...bound], fresh('q')),
    ]);
    // By design, as the content-hash routing of integrations/chorus_client.py does: a design's requests to one replica.
    const pair = await sendLoad(all, CONCURRENCY, (it) => (Number(it.dut.slice(3)) % 2 ? q.url : p.url), true);
    await Promise.all([stop(p.child), stop(q.child)]);

    // 4. Per-request memory, from the limits each tool of every server above was started under (read last, so the
    // throughput servers' tools are checked too).
    const runs = toolRuns(toolLog);
    const unbounded = overMemoryBound(runs, MEMORY);
    const largestBound = Math.max(
      0,
      ...runs.map((e) => Math.min(e.limits.treeMemoryBytes ?? Infinity, e.limits.addressSpaceBytes ?? Infinity)),
    );

    const report = {
      sent: bounded.results.length,
      accepted: accepted.length,
      rejected429: rejected.length,
      otherCodes: other.map((r) => r.code),
      acceptedPlusRejectedEqualsSent: accepted.length + rejected.length === bounded.results.length,
      boundedSeconds: bounded.seconds,
      boundedThroughputPerSecond: +(accepted.length / bounded.seconds).toFixed(2),
      warmBuildShare: +(warm / Math.max(1, accepted.length)).toFixed(3),
      referenceChecked: reference.checked,
      referenceMismatches: reference.mismatches,
      toolRuns: runs.length,
      toolRunsBoundedQueuePhase: boundedRuns,
      toolRunsThroughputPhase: runs.length - boundedRuns,
      toolRunsOverMemoryLimit: unbounded.length,
      overMemoryLimitExamples: unbounded.slice(0, 3).map((e) => ({ tool: e.tool, limits: e.limits })),
      largestToolMemoryBoundBytes: largestBound,
      memoryLimitBytes: MEMORY,
      oneSlotSeconds: single.seconds,
      oneSlotThroughputPerSecond: +(all.length / single.seconds).toFixed(2),
      oneSlotWarmShare: +(tally(single.results).warm / all.length).toFixed(3),
      twoProcessesSeconds: pair.seconds,
      twoProcessesThroughputPerSecond: +(all.length / pair.seconds).toFixed(2),
      throughputRatio: +(single.seconds / pair.seconds).toFixed(2),
      loadAverageAtStart: +load0.toFixed(2),
      loadAverageAtEnd: +loadavg()[0].toFixed(2),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    const failed =
      !report.acceptedPlusRejectedEqualsSent || reference.mismatches.length || unbounded.length || other.length;
    if (failed) process.exitCode = 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

void main();
