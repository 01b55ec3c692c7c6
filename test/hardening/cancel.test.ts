// Cancellation at any point: `chorus generate --engine random` as a child process gets SIGINT while Verilator runs,
// while the C++ compiles, while the search simulates, and twice in a row. The tools are frozen (SIGSTOP) first, so
// they cannot finish on their own: each time the CLI exits 130 and nothing of its process tree (verilator, make,
// g++, cc1plus, the jailed simulator) survives it; a single Ctrl-C also removes the run's temporary folders, and the
// build cache stays usable for the next run.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { descendants, waitFor } from '../helpers/procs';
import { limitMs } from '../helpers/time-limits';
import { example, processesUsing, removeScratch, scratch, startCli, suiteCache, TreeWatcher } from './support';

after(removeScratch);

const counter = example('counter');
// Until the chosen moment: a run with a cold build cache reaches its simulation last, after the C++ compile (a
// cold `generate --engine random` took 94 s at load average 17 here; test/helpers/time-limits.ts).
const REACH_MS = limitMs(93_700, 17);
// Killed processes gone and reaped after the CLI exits: well under a second at load average 2 here.
const REAP_MS = limitMs(1_000, 2);

interface Moment {
  name: string;
  /** True when a live descendant's command shows the moment has come. */
  reached: (cmds: string[]) => boolean;
  /** Signals sent, with a pause between them. */
  signals: number;
}

const isTool = (re: RegExp) => (cmds: string[]) => cmds.some((c) => re.test(c));

async function cancelAt(moment: Moment): Promise<void> {
  const tmp = scratch('chorus-hardening-cancel-');
  const cwd = scratch();
  const { child, done } = startCli(
    ['generate', counter, '--engine', 'random', '--budget-seconds', '120', '--seed', '3'],
    {
      cwd,
      env: { CHORUS_CACHE_DIR: suiteCache, TMPDIR: tmp },
    },
  );
  const watcher = new TreeWatcher(child.pid!);
  let exited = false;
  void done.then(() => (exited = true));
  try {
    const reached = await waitFor(() => exited || moment.reached(watcher.look()), REACH_MS, 10);
    assert.ok(reached && !exited, `${moment.name}: the run ended before the moment came`);
    // Freeze the tools mid-work: none can then end on its own, so whatever is gone below was killed by the CLI.
    for (const pid of descendants(child.pid!)) {
      try {
        process.kill(pid, 'SIGSTOP');
      } catch {
        // it just ended
      }
    }
    for (let i = 0; i < moment.signals; i++) {
      if (i) await new Promise((r) => setTimeout(r, 30));
      child.kill('SIGINT');
    }
    // A hang guard, shorter than the tools' own wall-clock bounds (30 s), so only the cancellation can end them in time.
    const ended = await waitFor(() => exited, 20_000, 20);
    assert.ok(ended, `${moment.name}: still running after SIGINT`);
    watcher.stop();

    const r = await done;
    assert.equal(r.code, 130, `${moment.name}: ${r.stderr}`);
    assert.match(r.stderr, /Stopping… \(Ctrl-C again to force\)/);
    assert.ok(watcher.seen.size > 0, `${moment.name}: the tree was observed`);
    // Killed processes take a moment to be reaped; frozen ones cannot end on their own, so this waits for that only.
    await waitFor(() => watcher.survivors().length === 0 && processesUsing(tmp).length === 0, REAP_MS);
    assert.deepEqual(watcher.survivors(), [], `${moment.name}: processes of the run still live`);
    assert.deepEqual(processesUsing(tmp), [], `${moment.name}: processes using the run's folders still live`);
    if (moment.signals === 1) assert.deepEqual(readdirSync(tmp), [], `${moment.name}: temporary folders left behind`);
    assert.deepEqual(readdirSync(cwd), [], `${moment.name}: no testbench written for a cancelled search`);
  } finally {
    // Whatever the outcome, no frozen tool of this run may outlive the test.
    watcher.stop();
    if (!exited) child.kill('SIGKILL');
    await done.catch(() => undefined);
    for (const survivor of watcher.survivors()) process.kill(Number(survivor.split(' ')[0]), 'SIGKILL');
  }
}

test('SIGINT while Verilator preprocesses the testbench for the sandbox check', async () => {
  await cancelAt({ name: 'sandbox check', reached: isTool(/\bverilator(_bin)?\b.* -E\b/), signals: 1 });
});

test('SIGINT while Verilator translates the design to C++', async () => {
  await cancelAt({ name: 'verilation', reached: isTool(/\bverilator(_bin)?\b.* --cc\b/), signals: 1 });
});

test('SIGINT while the C++ compiles (make, g++, cc1plus)', async () => {
  await cancelAt({ name: 'compile', reached: isTool(/\b(make|cc1plus|g\+\+)\b/), signals: 1 });
});

test('SIGINT while the search simulates (the jailed simulator)', async () => {
  await cancelAt({ name: 'search', reached: isTool(/chorus_sim/), signals: 1 });
});

test('SIGINT twice while the C++ compiles: forced exit, still nothing left running', async () => {
  await cancelAt({ name: 'twice', reached: isTool(/\b(make|cc1plus|g\+\+)\b/), signals: 2 });
});
