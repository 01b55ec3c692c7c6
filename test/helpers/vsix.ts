/**
 * The product's VSIX for the tests, packaged once per content: `scripts/package.mjs --no-build` over the bundles
 * already in dist/ (tests never rewrite dist/ under other test files), cached in .cache/test-vsix/ under a hash
 * of everything the package is made of. A later call, in this process or another test file, or a later suite
 * run, gets the same file while that content is unchanged; any change to dist/, the manifest, the media, the
 * lock file or the packaging script makes a new one. `npm test` builds it in a step of its own before the
 * suites that install it (scripts/test.mjs), so no test waits on packaging.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from './cli';
import { limitMs } from './time-limits';

const cacheDir = join(repoRoot, '.cache', 'test-vsix');
/** The newest few stay; older ones (other builds of dist/) are removed so the cache stays bounded. */
const KEEP = 3;
// `node scripts/package.mjs --no-build` took 37 s here at load average 11 (warm page cache). In a fresh clone at
// load 4–7 the same packaging, then inside a test, was once still running when killed after 600 s (not
// reproduced here): it now runs once, before the suites, bounded at twice that.
const PACKAGE_LIMIT_MS = Math.max(limitMs(37_000, 11), 2 * 600_000);

/** Files whose content decides the VSIX (what scripts/package.mjs copies or reads), relative to the repo. */
function inputs(): string[] {
  const files: string[] = [];
  const walk = (dir: string, keep: (rel: string) => boolean) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p, keep);
      else if (keep(relative(repoRoot, p))) files.push(relative(repoRoot, p));
    }
  };
  walk(join(repoRoot, 'dist'), (rel) => !rel.endsWith('.map') && !rel.endsWith('.build-sha256'));
  walk(join(repoRoot, 'media'), () => true);
  walk(join(repoRoot, 'models'), (rel) => /^models\/manifest.*\.json$/.test(rel));
  for (const f of [
    'package.json',
    'package-lock.json',
    'README.md',
    'LICENSE',
    '.vscodeignore',
    'scripts/package.mjs',
  ]) {
    if (existsSync(join(repoRoot, f))) files.push(f);
  }
  return files.sort();
}

/** sha256 over the names and contents of the package's inputs (16 hex digits name the cached file). */
export function vsixKey(): string {
  if (!existsSync(join(repoRoot, 'dist', 'extension.js'))) {
    throw new Error(
      'dist/ is empty: run `node scripts/build.mjs` (or `npm test`, which builds it) before the tests that install the VSIX.',
    );
  }
  const h = createHash('sha256');
  for (const f of inputs())
    h.update(`${f}\0`)
      .update(readFileSync(join(repoRoot, f)))
      .update('\0');
  return h.digest('hex').slice(0, 16);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ends a process group (the packager runs in its own, so vsce's children go with it). */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function runPackage(out: string, stage: string, started: (pid: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const argv = [join(repoRoot, 'scripts', 'package.mjs'), '--no-build', '--out', out, '--stage', stage];
    const child = spawn(process.execPath, argv, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    if (child.pid) started(child.pid);
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      if (child.pid) killGroup(child.pid);
    }, PACKAGE_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      if (code === 0 && existsSync(out)) resolve();
      else {
        const why = killed ? `killed after ${PACKAGE_LIMIT_MS / 1000} s` : `exit ${code ?? sig}`;
        reject(
          new Error(
            `\`node scripts/package.mjs --no-build\` failed (${why}):\n${output.trim().split('\n').slice(-30).join('\n')}`,
          ),
        );
      }
    });
  });
}

/** A lock whose holder died (its packager, if still running, is ended), or that never got its pid file. */
function staleLock(lock: string): boolean {
  let holder = 0;
  try {
    holder = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    // Not written yet.
  }
  if (!Number.isInteger(holder) || holder <= 0) {
    // Between mkdir and the pid file, for a moment; a holder killed in that moment leaves it so.
    try {
      return Date.now() - statSync(lock).mtimeMs > 30_000;
    } catch {
      return false;
    }
  }
  if (pidAlive(holder)) return false;
  try {
    killGroup(Number(readFileSync(join(lock, 'packager'), 'utf8')));
  } catch {
    // It had not started one.
  }
  return true;
}

function pruneOld(keepFile: string): void {
  const vsixes = readdirSync(cacheDir)
    .filter((f) => f.endsWith('.vsix'))
    .map((f) => join(cacheDir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  for (const f of vsixes.slice(KEEP)) if (f !== keepFile) rmSync(f, { force: true });
}

/**
 * The VSIX for the current content of dist/ and the other package inputs: the cached file, or packaged now.
 * One packager at a time: a lock folder holds the holder's pid and its packager's; others wait (a dead holder's
 * lock is taken over, its packager ended and its leftovers removed). The file appears by rename, whole or nothing.
 */
export async function productVsix(): Promise<string> {
  const key = vsixKey();
  mkdirSync(cacheDir, { recursive: true });
  const vsix = join(cacheDir, `chorus-${key}.vsix`);
  const lock = join(cacheDir, 'lock');
  const deadline = Date.now() + PACKAGE_LIMIT_MS * 2;
  for (;;) {
    if (existsSync(vsix)) return vsix;
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (staleLock(lock)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new Error(
          `Waited ${(PACKAGE_LIMIT_MS * 2) / 1000} s for another test process to package ${vsix}; remove ${lock} if no test runs.`,
        );
      else await sleep(500);
    }
  }
  writeFileSync(join(lock, 'pid'), String(process.pid));
  for (const old of readdirSync(cacheDir).filter((f) => f.startsWith('work-')))
    rmSync(join(cacheDir, old), { recursive: true, force: true });
  const work = mkdtempSync(join(cacheDir, 'work-'));
  try {
    if (existsSync(vsix)) return vsix;
    const started = Date.now();
    const tmp = join(work, 'chorus.vsix');
    await runPackage(tmp, join(work, 'stage'), (pid) => writeFileSync(join(lock, 'packager'), String(pid)));
    renameSync(tmp, vsix);
    process.stderr.write(
      `test VSIX: packaged ${relative(repoRoot, vsix)} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
    );
    pruneOld(vsix);
    return vsix;
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(lock, { recursive: true, force: true });
  }
}
