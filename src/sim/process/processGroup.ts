/**
 * Runs one tool (Verilator, make, the simulator) as the leader of its own process group, with a wall-clock
 * bound, the caller's AbortSignal and, when asked, a bound on its whole tree's resident memory and process
 * count (sampled from /proc). On timeout, abort or a limit hit its whole process tree is killed (descendants in
 * other sessions too); on exit its group is, so nothing it started (make's compilers, a runaway simulator)
 * outlives the call. The group dies with CHORUS too, however CHORUS ends (orphanGuard). Each start is recorded in
 * the tool log when CHORUS_TOOL_LOG is set (toolLog.ts).
 */
import { spawn } from 'node:child_process';
import { ChorusError } from '../../protocol';
import type { LimitHit } from './limits';
import { dieWithParent, guardGroup, liveGroups } from './orphanGuard';
import { OutputCapture } from './outputCapture';
import { awaitExit, descendants, killGroup, killTree } from './processTree';

export { killGroup } from './processTree';
import { findExecutable } from '../sandbox/exec';
import { logToolStart } from './toolLog';
import { treeUsage } from './treeUsage';

export interface GroupRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Output kept (head and tail); default 256 KiB. */
  outputCapBytes?: number;
  /** Text for a missing executable: what to install or configure. */
  missingHint?: string;
  /** Bounds on the whole tree, sampled every `sampleMs` (default 200 ms): the tree is killed past either. */
  treeLimits?: { memoryBytes?: number; processes?: number; sampleMs?: number };
  /** Piped into the tool's standard input (closed when it ends); without it the tool reads nothing there. */
  stdin?: NodeJS.ReadableStream | undefined;
}

export interface GroupRunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr interleaved as they arrived, capped. */
  output: string;
  timedOut: boolean;
  ms: number;
  /** Set when the tree was killed for passing `treeLimits`. */
  limit?: LimitHit | undefined;
  /** Highest resident memory of the whole tree the sampler saw (0 when it never sampled). */
  peakRssBytes: number;
}

/** Grace for the pipes to close after the leader exited and its group was killed. */
const CLOSE_GRACE_MS = 2000;
/** Bound on the wait for killed processes to be gone after their pipes closed (they exit in milliseconds). */
const KILLED_EXIT_MS = 5000;

/**
 * Kills every tool the engine still runs, with its whole tree (jailed descendants in their own sessions too), at
 * once: for an adapter that must end now (a Ctrl-C the run did not answer in time), when waiting for each run to
 * notice its AbortSignal is no longer an option. Then any other child of this process (a version probe, which has
 * no group of its own and no parent-death signal): nothing CHORUS started outlives it. Returns how many tool
 * groups were live.
 */
export function killAllGroups(): number {
  const groups = liveGroups();
  for (const pgid of groups) killTree(pgid);
  for (const pid of descendants(process.pid).reverse()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return groups.length;
}

export function runGroup(command: string, args: string[], opts: GroupRunOptions): Promise<GroupRunResult> {
  if (opts.signal?.aborted) return Promise.reject(new ChorusError('cancelled', 'Cancelled.'));
  // Checked here: behind setpriv a missing tool would read as setpriv's own failure.
  if (!findExecutable(command, opts.env.PATH ?? process.env.PATH)) {
    return Promise.reject(
      new ChorusError(
        'missing_tool',
        `${command} not found: ${opts.missingHint ?? 'install it or fix the configured path'}.`,
      ),
    );
  }
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const wrapped = dieWithParent(command, args);
    const child = spawn(wrapped.command, wrapped.args, {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: 'pipe',
    });
    // A tool that ends before reading all of its input closes the pipe: what is left is not an error of ours.
    child.stdin.on('error', () => undefined);
    // Without input the tool reads an empty stream, as from /dev/null.
    if (opts.stdin) opts.stdin.pipe(child.stdin);
    else child.stdin.end();
    const unguard = guardGroup(child.pid);
    if (child.pid !== undefined)
      logToolStart(wrapped.command, wrapped.args, opts.cwd, child.pid, {
        treeMemoryBytes: opts.treeLimits?.memoryBytes,
        treeProcesses: opts.treeLimits?.processes,
        wallMs: opts.timeoutMs,
      });
    const capture = new OutputCapture(opts.outputCapBytes ?? 256 * 1024);
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let limit: LimitHit | undefined;
    let peakRssBytes = 0;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let closeTimer: NodeJS.Timeout | undefined;

    // Every process a kill signalled: the call settles once they are gone, not only their pipes.
    const killed = new Set<number>();
    const killAll = (): void => {
      for (const pid of killTree(child.pid)) killed.add(pid);
    };
    const onAbort = (): void => {
      aborted = true;
      killAll();
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        killAll();
      },
      Math.max(1, opts.timeoutMs),
    );
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const tree = opts.treeLimits;
    const sampler =
      tree && child.pid !== undefined && (tree.memoryBytes !== undefined || tree.processes !== undefined)
        ? setInterval(() => {
            if (exit || limit || child.pid === undefined) return;
            const usage = treeUsage(child.pid);
            peakRssBytes = Math.max(peakRssBytes, usage.rssBytes);
            if (tree.memoryBytes !== undefined && usage.rssBytes > tree.memoryBytes)
              limit = { resource: 'memory', peakBytes: usage.rssBytes };
            else if (tree.processes !== undefined && usage.processes > tree.processes)
              limit = { resource: 'processes' };
            if (limit) killAll();
          }, tree.sampleMs ?? 200)
        : undefined;

    const stopWatching = (): void => {
      clearTimeout(timer);
      if (sampler) clearInterval(sampler);
      if (closeTimer) clearTimeout(closeTimer);
      opts.signal?.removeEventListener('abort', onAbort);
    };

    const settle = (): void => {
      if (settled) return;
      settled = true;
      stopWatching();
      // A grandchild may outlive the leader; nothing of the group may stay behind.
      killGroup(child.pid);
      unguard();
      const ms = Math.round(performance.now() - started);
      const finish = (): void => {
        if (aborted) {
          reject(new ChorusError('cancelled', 'Cancelled.'));
          return;
        }
        resolve({
          code: exit?.code ?? null,
          signal: exit?.signal ?? null,
          output: capture.text(),
          timedOut,
          ms,
          limit,
          peakRssBytes,
        });
      };
      if (killed.size) void awaitExit([...killed], KILLED_EXIT_MS).then(finish);
      else finish();
    };

    child.stdout.on('data', (chunk: Buffer) => capture.add(chunk));
    child.stderr.on('data', (chunk: Buffer) => capture.add(chunk));
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      stopWatching();
      killGroup(child.pid);
      unguard();
      if (err.code === 'ENOENT') {
        reject(
          new ChorusError(
            'missing_tool',
            `${command} not found: ${opts.missingHint ?? 'install it or fix the configured path'}.`,
            undefined,
            { cause: err },
          ),
        );
      } else {
        reject(new ChorusError('failed', `Could not start ${command}: ${err.message}`, undefined, { cause: err }));
      }
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      killGroup(child.pid);
      // Pipes held open by a process outside the group (none expected) must not hang the caller.
      closeTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        settle();
      }, CLOSE_GRACE_MS);
    });
    child.on('close', (code, signal) => {
      exit ??= { code, signal };
      settle();
    });
  });
}
