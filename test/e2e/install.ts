/** Runs scripts/e2e-install.mjs (installs code-server and chromium when missing) and returns code-server's entry. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { limitMs } from '../helpers/time-limits';

export const repoRoot = join(__dirname, '..', '..');
const installer = join(repoRoot, 'scripts', 'e2e-install.mjs');
// A cold install (empty npm cache) took 72 s here on an idle machine (docs/e2e.md); a cached one returns at once.
const INSTALL_TIMEOUT_MS = limitMs(72_000, 1);

let cached: Promise<string> | undefined;

function runInstaller(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [installer], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), INSTALL_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      const entry = stdout.trim().split('\n').pop() ?? '';
      if (code === 0 && existsSync(entry)) {
        const took = /installed in (\d+ s)/.exec(stderr);
        if (took) process.stderr.write(`e2e: installed code-server (${took[1]}), cached for later runs\n`);
        resolve(entry);
        return;
      }
      const why = sig === 'SIGKILL' ? `killed after ${INSTALL_TIMEOUT_MS / 1000} s` : `exit ${code ?? sig}`;
      reject(
        new Error(
          `The end-to-end tools could not be installed (\`node scripts/e2e-install.mjs\` ${why}):\n` +
            stderr.trim().split('\n').slice(-25).join('\n'),
        ),
      );
    });
  });
}

/** Path of code-server's `out/node/entry.js`, installing first when needed (once per test process). */
export function ensureE2eTools(): Promise<string> {
  cached ??= runInstaller();
  return cached;
}
