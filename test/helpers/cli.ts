import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
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
export function runCli(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
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

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Rebuilds dist/ when the CLI is missing or older than a source file (a test file run on its own). */
export function ensureFreshCli(): void {
  if (existsSync(cliPath) && statSync(cliPath).mtimeMs >= newestSource(join(repoRoot, 'src'))) return;
  const b = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`node scripts/build.mjs failed (exit ${b.status}):\n${b.stderr}`);
}
