/**
 * Runs one tool (Verilator, make, the simulator) as the leader of its own process group, with a wall-clock
 * bound and the caller's AbortSignal. On timeout or abort its whole process tree is killed (descendants in
 * other sessions too); on exit its group is, so nothing it started (make's compilers, a runaway simulator)
 * outlives the call.
 */
import { spawn } from 'node:child_process';
import { ChorusError } from '../protocol';
import { OutputCapture } from './outputCapture';
import { killTree } from './processTree';

export interface GroupRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Output kept (head and tail); default 256 KiB. */
  outputCapBytes?: number;
  /** Text for a missing executable: what to install or configure. */
  missingHint?: string;
}

export interface GroupRunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr interleaved as they arrived, capped. */
  output: string;
  timedOut: boolean;
  ms: number;
}

/** Grace for the pipes to close after the leader exited and its group was killed. */
const CLOSE_GRACE_MS = 2000;

export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}

export function runGroup(command: string, args: string[], opts: GroupRunOptions): Promise<GroupRunResult> {
  if (opts.signal?.aborted) return Promise.reject(new ChorusError('cancelled', 'Cancelled.'));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const capture = new OutputCapture(opts.outputCapBytes ?? 256 * 1024);
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let closeTimer: NodeJS.Timeout | undefined;

    const onAbort = (): void => {
      aborted = true;
      killTree(child.pid);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child.pid);
    }, Math.max(1, opts.timeoutMs));
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const settle = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (closeTimer) clearTimeout(closeTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      // A grandchild may outlive the leader; nothing of the group may stay behind.
      killGroup(child.pid);
      if (aborted) {
        reject(new ChorusError('cancelled', 'Cancelled.'));
        return;
      }
      resolve({
        code: exit?.code ?? null,
        signal: exit?.signal ?? null,
        output: capture.text(),
        timedOut,
        ms: Math.round(performance.now() - started),
      });
    };

    child.stdout.on('data', (chunk: Buffer) => capture.add(chunk));
    child.stderr.on('data', (chunk: Buffer) => capture.add(chunk));
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      killGroup(child.pid);
      if (err.code === 'ENOENT') {
        reject(new ChorusError('missing_tool', `${command} not found: ${opts.missingHint ?? 'install it or fix the configured path'}.`, undefined, { cause: err }));
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
