/**
 * Runs one child process for the sandbox with a wall-clock bound, an output cap and the caller's AbortSignal;
 * the child leads its own process group, and the whole group is killed on abort, timeout or overflow (and
 * when CHORUS dies: orphanGuard).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { ChorusError } from '../../protocol';
import { dieWithParent, guardGroup } from '../process/orphanGuard';
import { killGroup, killTree } from '../process/processTree';
import { logToolStart } from '../process/toolLog';
import type { JailSpec } from './jail';

export interface CappedRunOptions {
  cwd: string;
  signal?: AbortSignal | undefined;
  timeoutMs: number;
  /** Stdout beyond this many bytes stops the child. */
  maxStdoutBytes: number;
}

export interface CappedRunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  overflowed: boolean;
}

const stderrCap = 256 * 1024;

export function runCapped(spec: JailSpec, opts: CappedRunOptions): Promise<CappedRunResult> {
  if (opts.signal?.aborted) return Promise.reject(new ChorusError('cancelled', 'Cancelled.'));
  return new Promise((resolve, reject) => {
    // The group dies with CHORUS however CHORUS ends: parent-death signal and the orphan guard.
    const wrapped = dieWithParent(spec.command, spec.args);
    const child = spawn(wrapped.command, wrapped.args, {
      cwd: opts.cwd,
      env: spec.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const unguard = guardGroup(child.pid);
    logToolStart(wrapped.command, wrapped.args, opts.cwd, child.pid, { wallMs: opts.timeoutMs });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let overflowed = false;
    let aborted = false;

    // Stopping a child that is still running: the group and every descendant, so a process that left the group
    // (a session of its own) cannot outlive the kill. (Once the leader has exited its pid may be reused: then only
    // the group is killed.)
    let exited = false;
    const stop = (): void => {
      if (exited) killGroup(child.pid);
      else killTree(child.pid);
    };
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, opts.timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > opts.maxStdoutBytes) {
        overflowed = true;
        stop();
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (errBytes < stderrCap) err.push(chunk);
      errBytes += chunk.length;
    });
    const finish = (): void => {
      unguard();
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (e: NodeJS.ErrnoException) => {
      finish();
      killGroup(child.pid);
      if (e.code === 'ENOENT') {
        reject(
          new ChorusError(
            'missing_tool',
            `${spec.command} not found: install it or fix the configured path.`,
            undefined,
            { cause: e },
          ),
        );
      } else {
        reject(new ChorusError('failed', `Could not start ${spec.command}: ${e.message}`, undefined, { cause: e }));
      }
    });
    // A grandchild holding the pipes open would keep 'close' from firing: end the group when the leader exits.
    child.on('exit', () => {
      exited = true;
      killGroup(child.pid);
    });
    child.on('close', (code, signal) => {
      finish();
      // A grandchild may outlive the leader; nothing of the group may stay behind.
      killGroup(child.pid);
      if (aborted) {
        reject(new ChorusError('cancelled', 'Cancelled.'));
        return;
      }
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
        overflowed,
      });
    });
  });
}

/** The absolute path of an executable: a path as given, or a bare name looked up in PATH; undefined if none. */
export function findExecutable(command: string, path = process.env.PATH ?? ''): string | undefined {
  const candidates = command.includes('/')
    ? [resolve(command)]
    : path
        .split(delimiter)
        .filter(isAbsolute)
        .map((d) => join(d, command));
  return candidates.find((c) => {
    try {
      accessSync(c, constants.X_OK);
      return statSync(c).isFile();
    } catch {
      return false;
    }
  });
}
