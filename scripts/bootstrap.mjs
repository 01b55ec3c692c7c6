// Sets a machine up for `npm test` and `npm run demo`: the system tools, npm packages and the build.
// Uses Node built-ins only (it runs before node_modules exists). Running it twice does no work the second time.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeHeadersEnv } from './node-headers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const say = (msg) => process.stderr.write(`bootstrap: ${msg}\n`);

function fail(code, msg) {
  say(msg);
  process.exit(code);
}

function run(cmd, argv, opts = {}) {
  say(`$ ${cmd} ${argv.join(' ')}`);
  const r = spawnSync(cmd, argv, { stdio: 'inherit', cwd: root, ...opts });
  if (r.status !== 0) fail(r.status ?? 1, `'${cmd} ${argv.join(' ')}' failed (exit ${r.status}).`);
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

let aptUpdated = false;
function aptInstall(packages, why) {
  const isRoot = process.getuid?.() === 0;
  if (process.platform === 'linux' && has('apt-get') && isRoot) {
    if (!aptUpdated) {
      run('apt-get', ['update', '-qq']);
      aptUpdated = true;
    }
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    return;
  }
  if (process.platform === 'darwin') {
    fail(3, `${why}: install it with \`brew install ${packages.join(' ')}\` and run this again.`);
  }
  const how = has('apt-get')
    ? `sudo apt-get install -y ${packages.join(' ')}`
    : `your package manager (${packages.join(', ')})`;
  fail(3, `${why}: install it with \`${how}\` and run this again.`);
}

function verilatorVersion() {
  try {
    const out = execFileSync('verilator', ['--version'], { encoding: 'utf8' });
    const m = /Verilator (\d+)\.(\d+)/.exec(out);
    return m ? [Number(m[1]), Number(m[2])] : null;
  } catch {
    return null;
  }
}

function ensureSystemTools() {
  const v = verilatorVersion();
  const missing = [];
  if (!v) missing.push('verilator');
  else if (v[0] < 5 || (v[0] === 5 && v[1] < 6))
    fail(3, `Verilator ${v.join('.')} is too old; CHORUS needs 5.006 or newer.`);
  if (!has('ccache')) missing.push('ccache');
  if (!has('g++') || !has('make')) missing.push('g++', 'make');
  // node-gyp builds tree-sitter's addon from source: its linux-x64 prebuild needs a newer libstdc++ than Debian 12 has
  if (!has('python3')) missing.push('python3');
  // The jail every testbench build and simulation runs in (docs/security.md); Linux only.
  if (process.platform === 'linux' && !has('bwrap')) missing.push('bubblewrap');
  // The Cobertura export's test validates it against the DTD (test/signoff/cobertura.test.ts).
  if (!has('xmllint')) missing.push('libxml2-utils');
  if (args.has('--browser') && !existsSync('/usr/bin/chromium')) missing.push('chromium');
  if (missing.length) aptInstall(missing, `Missing ${missing.join(', ')}`);
}

function hashFiles(paths) {
  const h = createHash('sha256');
  const walk = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const e of readdirSync(p).sort()) walk(join(p, e));
    } else {
      h.update(p.slice(root.length));
      h.update(readFileSync(p));
    }
  };
  for (const p of paths) walk(join(root, p));
  return h.digest('hex');
}

function ensureNodeModules() {
  const stamp = join(root, 'node_modules', '.chorus-lock-sha256');
  const want = hashFiles(['package-lock.json']);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return;
  run('npm', ['ci', '--no-audit', '--no-fund'], { env: { ...process.env, ...nodeHeadersEnv(say) } });
  writeFileSync(stamp, want);
}

function ensureBuild() {
  const stamp = join(root, 'dist', '.build-sha256');
  const want = hashFiles(['src', 'scripts/build.mjs', 'package-lock.json', 'tsconfig.json']);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return;
  run('node', ['scripts/build.mjs']);
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, want);
}

/** The formal engine's slang front end needs Node 26's WebAssembly: found, or fetched once, before the tests run. */
function ensureFormalRuntime() {
  const r = spawnSync('node', ['--import', 'tsx', 'scripts/formal-runtime.ts'], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) say('the formal tests of read_slang will fail until a runtime is found (see docs/formal.md).');
}

ensureSystemTools();
ensureNodeModules();
ensureBuild();
ensureFormalRuntime();
say('ready.');
