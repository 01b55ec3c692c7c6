import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { limitMs } from './time-limits';

export const repoRoot = join(__dirname, '..', '..');
export const cliPath = join(repoRoot, 'dist', 'cli.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The default bound on one CLI call: the slowest one the suites make is a `generate --engine random` with a cold
 * build cache, 94 s on fifo.sv at load average 17 here (test/helpers/time-limits.ts).
 */
export const CLI_TIMEOUT_MS = limitMs(93_700, 17);

/** Runs the built `chorus` CLI and collects its output; a call past its bound is killed and says so on stderr. */
export function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: opts.cwd ?? repoRoot,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const limit = opts.timeoutMs ?? CLI_TIMEOUT_MS;
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limit);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (killed) stderr += `\n[test: chorus ${args.join(' ')} killed after ${limit / 1000} s]`;
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}
