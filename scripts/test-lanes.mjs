// `npm test`'s runner: every test file in its own `node --test` process, two files at a time, each lane with build
// caches of its own. A test sees only its own lane's builds and simulators, so one that watches a cached binary's
// processes or a build's cache hits is never disturbed by a file beside it. Files run longest first by the times
// test/durations.json records (measured; a file it lacks counts as long), so neither lane is left with a long tail.
// Each run writes the times it measured to .cache/test-times.json; `npm test -- --durations` writes them to
// test/durations.json.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const LANES = 2;

/** The build caches of lane `lane`: lane 1 keeps the defaults (warm from earlier runs), others get their own beside them. */
export function laneEnv(lane) {
  if (lane === 1) return {};
  const env = process.env;
  const productCache = env.CHORUS_CACHE_DIR
    ? resolve(env.CHORUS_CACHE_DIR)
    : env.XDG_CACHE_HOME
      ? join(resolve(env.XDG_CACHE_HOME), 'chorus')
      : join(homedir(), '.cache', 'chorus');
  const simCache = env.CHORUS_TEST_SIM_CACHE ?? join(tmpdir(), 'chorus-test-sim-cache');
  return {
    CHORUS_CACHE_DIR: `${productCache}-test-lane-${lane}`,
    CHORUS_TEST_SIM_CACHE: `${simCache}-lane-${lane}`,
  };
}

function readTimes(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

function writeTimes(file, times) {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(times, null, 1) + '\n');
  renameSync(tmp, file);
}

const live = new Set();
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    for (const child of live) child.kill(signal);
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  });

function runOne(job, lane, baseEnv) {
  return new Promise((resolveRun) => {
    const started = Date.now();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', job.file],
      { env: { ...process.env, ...baseEnv, ...job.env, ...laneEnv(lane) }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    live.add(child);
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('close', (code, signal) => {
      live.delete(child);
      const seconds = (Date.now() - started) / 1000;
      const ok = code === 0;
      // A file's output is printed whole when it ends, so two lanes never interleave their lines.
      process.stdout.write(Buffer.concat(out));
      process.stderr.write(
        `-- ${ok ? 'passed' : `FAILED (exit ${code ?? signal})`}: ${job.label} in ${seconds.toFixed(0)} s (lane ${lane})\n`,
      );
      resolveRun({ job, ok, seconds });
    });
  });
}

/**
 * Runs `jobs` ({ file, label, key, env }) in LANES lanes; returns the jobs that failed. `key` names a job in the
 * recorded times (a file run again on another Verilator is another job).
 */
export async function runLanes(jobs, { baseEnv, durationsFile, measuredFile }) {
  const known = existsSync(durationsFile) ? readTimes(durationsFile) : {};
  const NEW = Number.MAX_SAFE_INTEGER;
  const queue = [...jobs].sort((a, b) => (known[b.key] ?? NEW) - (known[a.key] ?? NEW));
  const measured = {};
  const failed = [];
  const lane = async (n) => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const r = await runOne(job, n, baseEnv);
      measured[job.key] = Math.round(r.seconds);
      if (!r.ok) failed.push(job);
    }
  };
  await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i + 1)));
  // Writing test/durations.json keeps the files this run did not run (`npm test -- unit --durations`).
  const all = measuredFile === durationsFile ? { ...known, ...measured } : measured;
  writeTimes(measuredFile, Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b))));
  return failed;
}
