// No orphans whatever kills CHORUS: `kill -9` of the CLI while Verilator preprocesses, translates, while the C++
// compiles and while the simulator runs, and of the language server during a run. The tools are frozen (SIGSTOP)
// first so none can end on its own; CHORUS then gets SIGKILL and cannot clean up itself, so whatever is gone
// afterwards was ended by the parent-death signal and the orphan guard (src/sim/process/orphanGuard.ts). The guard is
// left running: it is the one thing that must act.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Requests } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { didOpen, request, startServer } from '../helpers/lsp';
import { commandOf, descendants, waitFor } from '../helpers/procs';
import { example, processesUsing, removeScratch, scratch, startCli, suiteCache, TreeWatcher } from './support';
import { copyFileSync, readFileSync } from 'node:fs';

after(removeScratch);

const counter = example('counter');
const isGuard = (pid: number): boolean => commandOf(pid).includes('while read -r op id');
const isTool = (re: RegExp) => (cmds: string[]) => cmds.some((c) => re.test(c));

/** SIGSTOPs every descendant of `root` but the orphan guard; returns how many it froze. */
function freezeTools(root: number): number {
  let frozen = 0;
  for (const pid of descendants(root)) {
    if (isGuard(pid)) continue;
    try {
      process.kill(pid, 'SIGSTOP');
      frozen++;
    } catch {
      // it just ended
    }
  }
  return frozen;
}

async function killCliAt(name: string, reached: (cmds: string[]) => boolean): Promise<void> {
  const tmp = scratch('chorus-orphans-');
  const cwd = scratch();
  // A copy at a fresh path: a fresh build key, so every stage runs (a cached build would skip translate and compile).
  const dut = join(cwd, 'counter.sv');
  copyFileSync(counter, dut);
  const { child, done } = startCli(['generate', dut, '--engine', 'random', '--budget-seconds', '120', '--seed', '5'], {
    cwd,
    env: { CHORUS_CACHE_DIR: suiteCache, TMPDIR: tmp },
  });
  const watcher = new TreeWatcher(child.pid!);
  let exited = false;
  void done.then(() => (exited = true));
  try {
    const frozen = await waitFor(() => exited || (reached(watcher.look()) && freezeTools(child.pid!) > 0), 120_000, 10);
    assert.ok(
      frozen && !exited,
      `${name}: the run ended before the moment came: ${exited ? (await done).stderr : 'timed out'}`,
    );
    watcher.look();
    child.kill('SIGKILL');
    await done;
    // A frozen tool cannot end by itself: only the guard's SIGKILL ends it.
    const clean = await waitFor(() => watcher.survivors().length === 0 && processesUsing(tmp).length === 0, 15_000, 50);
    assert.ok(
      clean,
      `${name}: left running after kill -9 of the CLI:\n${[...watcher.survivors(), ...processesUsing(tmp)].join('\n')}`,
    );
  } finally {
    watcher.stop();
    if (!exited) child.kill('SIGKILL');
    await done.catch(() => undefined);
    for (const survivor of watcher.survivors()) process.kill(Number(survivor.split(' ')[0]), 'SIGKILL');
  }
}

test('kill -9 of the CLI while Verilator preprocesses the testbench leaves nothing running', async () => {
  await killCliAt('preprocess', isTool(/\bverilator(_bin)?\b.* -E\b/));
});

test('kill -9 of the CLI while Verilator translates leaves nothing running', async () => {
  // The `verilator` wrapper lives for the whole translate; `verilator_bin` alone can come and go (a tiny design)
  // between two looks at a loaded machine.
  await killCliAt('translate', isTool(/\bverilator(_bin)?\b.* --cc\b/));
});

test('kill -9 of the CLI while the C++ compiles (make → g++ → cc1plus) leaves nothing running', async () => {
  await killCliAt('compile', isTool(/\bcc1plus\b/));
});

test('kill -9 of the CLI while the simulator runs leaves nothing running', async () => {
  await killCliAt('simulate', isTool(/chorus_sim/));
});

test('kill -9 of the language server during a run leaves nothing running', async () => {
  const uri = pathToFileURL(join(repoRoot, 'examples', 'counter', 'counter.sv')).toString();
  const lsp = await startServer(() => ({ engine: 'random' }));
  const server = lsp.server;
  const watcher = new TreeWatcher(server.pid!);
  try {
    await didOpen(lsp.conn, uri, readFileSync(counter, 'utf8'));
    // Never settles once the server is gone: not awaited.
    void request(lsp.conn, Requests.generate, { uri, runId: 'orphans' }).catch(() => undefined);
    // Verilator translating, the compiler or the simulator at work (a cached build goes straight to simulating).
    const moment = isTool(/\bverilator_bin\b.* --cc\b|\bcc1plus\b|chorus_sim/);
    const frozen = await waitFor(() => moment(watcher.look()) && freezeTools(server.pid!) > 0, 120_000, 10);
    assert.ok(frozen, 'the run reached Verilator or the compiler');
    watcher.look();
    server.kill('SIGKILL');
    const clean = await waitFor(() => watcher.survivors().length === 0, 15_000, 50);
    assert.ok(clean, `left running after kill -9 of the server:\n${watcher.survivors().join('\n')}`);
  } finally {
    watcher.stop();
    lsp.conn.dispose();
    server.kill('SIGKILL');
    for (const survivor of watcher.survivors()) process.kill(Number(survivor.split(' ')[0]), 'SIGKILL');
  }
});
