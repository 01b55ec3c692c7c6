// A run that is killed (its time bound passed, or cancelled) settles only once every process of its tree is gone,
// one in a session of its own (as a jailed simulator is) included: a killed process closes its pipes before it is
// gone, and a caller that was told the run ended may check for leftovers at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGroup } from '../../src/sim/process/processGroup';
import { hasExited } from '../../src/sim/process/processTree';
import { ChorusError } from '../../src/protocol';

// Two sleepers, one in the shell's group and one in a session of its own; their pids are printed first.
const script = 'sleep 30 & echo "pid $!"; setsid sleep 30 & echo "pid $!"; wait';

function pidsIn(output: string): number[] {
  return [...output.matchAll(/^pid (\d+)$/gm)].map((m) => Number(m[1]));
}

test('a run stopped at its time bound settles with its whole tree gone', async () => {
  const run = await runGroup('sh', ['-c', script], { cwd: tmpdir(), env: process.env, timeoutMs: 1_000 });
  assert.equal(run.timedOut, true);
  const pids = pidsIn(run.output);
  assert.equal(pids.length, 2, run.output);
  for (const pid of pids) assert.ok(hasExited(pid), `process ${pid} was left running`);
});

test('a cancelled run rejects with cancelled once its whole tree is gone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-exit-'));
  const pidFile = join(dir, 'pids');
  const abort = new AbortController();
  const started = runGroup('sh', ['-c', `(${script}) > "${pidFile}"`], {
    cwd: dir,
    env: process.env,
    timeoutMs: 60_000,
    signal: abort.signal,
  });
  // Cancelled once both sleepers have written their pids (a bound in case they never do).
  const until = Date.now() + 30_000;
  let pids: number[] = [];
  while (pids.length < 2 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
    pids = existsSync(pidFile) ? pidsIn(readFileSync(pidFile, 'utf8')) : [];
  }
  assert.equal(pids.length, 2, 'both sleepers started');
  abort.abort();
  await assert.rejects(started, (err: unknown) => err instanceof ChorusError && err.kind === 'cancelled');
  for (const pid of pids) assert.ok(hasExited(pid), `process ${pid} was left running`);
  rmSync(dir, { recursive: true, force: true });
});
