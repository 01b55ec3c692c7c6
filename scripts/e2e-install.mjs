// Installs what the end-to-end tests need, only when missing (docs/e2e.md): Debian's chromium, ripgrep and
// libkrb5-dev, and code-server into a cache folder outside git, following FIELD-NOTES ("VS Code in a browser").
// Node built-ins only. The last line on stdout is the path of code-server's entry.js; progress goes to stderr.
//
//   node scripts/e2e-install.mjs              install when missing, print the entry path
//   node scripts/e2e-install.mjs --reinstall  throw the cached install away first (to time a cold install)
//
// CHORUS_E2E_CACHE overrides the cache folder (default ~/.cache/chorus-e2e). A stamp file marks a complete install;
// the install happens in a temporary folder renamed into place only when complete, so a killed install is never
// taken for a finished one. Exit codes: 0 ready, 3 a tool is missing and cannot be installed here, 1 failed.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeHeadersEnv } from './node-headers.mjs';

const CODE_SERVER_VERSION = '4.100.3';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cacheRoot = process.env.CHORUS_E2E_CACHE || join(homedir(), '.cache', 'chorus-e2e');
const installDir = join(cacheRoot, `code-server-${CODE_SERVER_VERSION}`);
const stampPath = join(installDir, '.chorus-e2e-complete');
const entryPath = join(installDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const lockDir = `${installDir}.lock`;
const APT_PACKAGES = ['libkrb5-dev', 'ripgrep', 'chromium'];
const STEP_TIMEOUT_MS = 20 * 60_000;

const say = (msg) => process.stderr.write(`e2e-install: ${msg}\n`);

function fail(code, msg) {
  say(msg);
  process.exit(code);
}

// A parent `npm test` exports npm_config_* (local_prefix among them): a child npm would then install into the
// repository instead of the cache. Children keep only the settings that say where and how to download.
const KEEP_NPM_CONFIG = new Set([
  'cache',
  'registry',
  'userconfig',
  'globalconfig',
  'cafile',
  'nodedir',
  'proxy',
  'https_proxy',
  'noproxy',
  'strict_ssl',
]);
function cleanEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    const m = /^npm_(config|package|lifecycle)_(.*)$/i.exec(k);
    if (!m || (m[1].toLowerCase() === 'config' && KEEP_NPM_CONFIG.has(m[2].toLowerCase()))) env[k] = v;
  }
  return env;
}

function run(cmd, argv, cwd, extraEnv = {}) {
  say(`$ (cd ${cwd} && ${cmd} ${argv.join(' ')})`);
  // The child's stdout goes to our stderr: our stdout carries only the entry path.
  const r = spawnSync(cmd, argv, {
    cwd,
    stdio: ['ignore', 2, 2],
    env: { ...cleanEnv(), ...extraEnv },
    timeout: STEP_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  if (r.error) fail(1, `'${cmd} ${argv.join(' ')}' could not run: ${r.error.message}.`);
  if (r.status !== 0)
    fail(1, `'${cmd} ${argv.join(' ')}' failed (exit ${r.status ?? r.signal}) in ${cwd}; see the output above.`);
}

function dpkgInstalled(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

function ensureSystemPackages() {
  const [major] = process.versions.node.split('.').map(Number);
  if (major < 20)
    fail(3, `Node ${process.versions.node} is too old: code-server ${CODE_SERVER_VERSION} needs Node 20.`);
  if (process.platform !== 'linux')
    fail(3, "The end-to-end suite runs on Linux (Debian/Ubuntu) only: it drives Debian's chromium.");
  const hasDpkg = spawnSync('sh', ['-c', 'command -v dpkg-query'], { stdio: 'ignore' }).status === 0;
  const missing = hasDpkg
    ? APT_PACKAGES.filter((p) => !dpkgInstalled(p))
    : ['/usr/bin/chromium', '/usr/bin/rg'].filter((p) => !existsSync(p));
  if (!missing.length) return;
  if (!hasDpkg)
    fail(
      3,
      `Missing ${missing.join(', ')}: install chromium and ripgrep (and Kerberos headers) with your package manager.`,
    );
  if (process.getuid?.() !== 0) {
    fail(
      3,
      `Missing ${missing.join(', ')}: install with \`sudo apt-get install -y ${missing.join(' ')}\` and run this again.`,
    );
  }
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], root, env);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], root, env);
}

function ensurePlaywright() {
  try {
    createRequire(join(root, 'package.json')).resolve('playwright-core');
  } catch {
    fail(3, 'playwright-core is not in node_modules: run `npm ci` (or `npm run bootstrap`) in the repository first.');
  }
}

const isComplete = () => existsSync(stampPath) && readFileSync(stampPath, 'utf8').trim() === CODE_SERVER_VERSION;

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

// One installer at a time per cache folder (two suites may start together); a lock whose owner died is taken over.
function acquireLock() {
  mkdirSync(cacheRoot, { recursive: true });
  const deadline = Date.now() + STEP_TIMEOUT_MS * 2;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      return;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
    let owner = NaN;
    try {
      owner = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    } catch {
      // The owner is between mkdir and writing its pid.
    }
    if (Number.isInteger(owner) && !pidAlive(owner)) {
      say(`taking over the lock of dead installer ${owner}`);
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline)
      fail(1, `Another installer (pid ${owner}) has held ${lockDir} too long; remove it if that process is gone.`);
    if (isComplete()) return;
    sleep(2000);
  }
}

function releaseLock() {
  try {
    if (readFileSync(join(lockDir, 'pid'), 'utf8') === String(process.pid))
      rmSync(lockDir, { recursive: true, force: true });
  } catch {
    // Not ours, or already gone.
  }
}

// Temporary folders of killed installs: `<installDir>.tmp-<pid>` whose pid is gone.
function removeStaleTemps() {
  const base = `code-server-${CODE_SERVER_VERSION}.tmp-`;
  for (const e of readdirSync(cacheRoot)) {
    if (!e.startsWith(base)) continue;
    const pid = Number(e.slice(base.length));
    if (!pidAlive(pid) || pid === process.pid) rmSync(join(cacheRoot, e), { recursive: true, force: true });
  }
}

function installCodeServer() {
  const tmp = `${installDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'chorus-e2e-code-server', private: true }, null, 2));
  const npmFlags = ['--no-audit', '--no-fund', '--loglevel=error'];
  const headers = nodeHeadersEnv(say);

  run('npm', ['install', '--ignore-scripts', '--prefix', tmp, ...npmFlags, `code-server@${CODE_SERVER_VERSION}`], tmp);
  const vscodeDir = join(tmp, 'node_modules', 'code-server', 'lib', 'vscode');
  run('npm', ['install', '--omit=dev', '--ignore-scripts', '--prefix', vscodeDir, ...npmFlags], vscodeDir);
  // node-pty does not build here and is left out: terminals are not needed.
  run(
    'npm',
    ['rebuild', '--prefix', vscodeDir, 'kerberos', '@parcel/watcher', '@vscode/spdlog', '@vscode/deviceid'],
    vscodeDir,
    headers,
  );
  const rgDir = join(vscodeDir, 'node_modules', '@vscode', 'ripgrep', 'bin');
  mkdirSync(rgDir, { recursive: true });
  copyFileSync('/usr/bin/rg', join(rgDir, 'rg'));
  rmSync(join(vscodeDir, 'node_modules.asar'), { force: true });
  symlinkSync('node_modules', join(vscodeDir, 'node_modules.asar'));
  run('npm', ['rebuild', '--prefix', tmp, 'argon2'], tmp, headers);

  const tmpEntry = join(tmp, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  const v = spawnSync(process.execPath, [tmpEntry, '--version'], {
    encoding: 'utf8',
    env: cleanEnv(),
    timeout: 120_000,
  });
  if (v.status !== 0 || !v.stdout.includes(CODE_SERVER_VERSION)) {
    fail(
      1,
      `The fresh code-server does not start (\`${tmpEntry} --version\` said: ${(v.stdout + v.stderr).trim().slice(-500)}).`,
    );
  }
  writeFileSync(join(tmp, '.chorus-e2e-complete'), CODE_SERVER_VERSION);
  rmSync(installDir, { recursive: true, force: true }); // an incomplete folder left by an older layout
  renameSync(tmp, installDir);
}

function main() {
  process.on('exit', releaseLock); // also when fail() exits mid-install
  ensureSystemPackages();
  ensurePlaywright();
  if (process.argv.includes('--reinstall')) {
    acquireLock();
    rmSync(installDir, { recursive: true, force: true });
  } else if (isComplete()) {
    process.stdout.write(`${entryPath}\n`);
    return;
  } else {
    acquireLock();
  }
  try {
    if (!isComplete()) {
      removeStaleTemps();
      const started = Date.now();
      say(`installing code-server ${CODE_SERVER_VERSION} into ${installDir}`);
      installCodeServer();
      say(`installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  } finally {
    releaseLock();
  }
  process.stdout.write(`${entryPath}\n`);
}

main();
