// `npm run package`: a platform-specific VSIX. Builds the bundles for production, stages a folder with only what
// the extension needs at run time (bundles, media, the model manifest, README, LICENSE, package.json and the
// production dependency closure with native packages for the target platform only), then runs `vsce package`
// there. No model weights, no sources, no tests.
//
//   node scripts/package.mjs [--target linux-x64] [--gpu none|vulkan|cuda|all] [--out file.vsix] [--keep-stage]
//                            [--no-build] [--stage <folder>]
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};

const hostTarget = `${process.platform === 'win32' ? 'win32' : process.platform}-${process.arch === 'arm' ? 'armhf' : process.arch}`;
const target = opt('target', hostTarget);
const [targetOs, targetArch] = target.split('-');
// node-llama-cpp's GPU builds are large (CUDA ~540 MB, Vulkan ~80 MB unpacked): opt-in.
const gpu = opt('gpu', 'none');
const GPU_VARIANTS = { none: [], vulkan: ['vulkan'], cuda: ['cuda', 'cuda-ext'], all: ['vulkan', 'cuda', 'cuda-ext'] };
if (!(gpu in GPU_VARIANTS)) fail(`--gpu must be one of ${Object.keys(GPU_VARIANTS).join(', ')}.`);
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = resolve(opt('out', join(root, `${manifest.name}-${target}-${manifest.version}.vsix`)));
const stage = resolve(opt('stage', join(root, '.cache', 'vsix', target)));
if (stage === root || !relative(stage, root).startsWith('..'))
  fail(`--stage ${stage} would hold the repository: pick an empty folder.`);

function fail(message) {
  console.error(`package: ${message}`);
  process.exit(1);
}

function run(cmd, argv, cwd = root) {
  // Under `npm run`, npm_config_local_prefix points at the repository: the `npm ls` vsce runs in the stage must
  // not be sent back there.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_(config_(local_)?prefix|package_)/i.test(k)),
  );
  const r = spawnSync(cmd, argv, { cwd, stdio: 'inherit', env });
  if (r.status !== 0) fail(`${cmd} ${argv.join(' ')} failed (exit ${r.status ?? r.signal}).`);
}

// ---- which node_modules packages ship --------------------------------------------------------------------------

/** node-llama-cpp names its prebuilt binaries `<os>-<arch>[-variant]` with `mac`/`win` for darwin/win32. */
const llamaOs = { darwin: 'mac', win32: 'win', linux: 'linux' }[targetOs] ?? targetOs;
const llamaArch = targetArch === 'armhf' ? 'armv7l' : targetArch;

function wantedPlatformPackage(name, pkg) {
  if (name.startsWith('@node-llama-cpp/')) {
    const id = name.slice('@node-llama-cpp/'.length);
    const base = `${llamaOs}-${llamaArch}`;
    if (id === base || (targetOs === 'darwin' && id === `${base}-metal`)) return true;
    const variant = id.startsWith(`${base}-`) ? id.slice(base.length + 1) : undefined;
    return variant !== undefined && GPU_VARIANTS[gpu].includes(variant);
  }
  const osOk =
    !pkg.os ||
    pkg.os.includes(targetOs) ||
    (pkg.os.every((o) => o.startsWith('!')) && !pkg.os.includes(`!${targetOs}`));
  const cpuOk =
    !pkg.cpu ||
    pkg.cpu.includes(targetArch) ||
    (pkg.cpu.every((c) => c.startsWith('!')) && !pkg.cpu.includes(`!${targetArch}`));
  return osOk && cpuOk;
}

/** Node's lookup: `node_modules/<name>` in `from` and each folder above it, up to the repository root. */
function resolvePackage(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

/** The production dependency closure of the extension: package folders (absolute). */
function productionClosure() {
  const seen = new Map();
  const visit = (dir, pkg) => {
    const deps = [
      ...Object.keys(pkg.dependencies ?? {}).map((n) => [n, false]),
      ...Object.keys(pkg.optionalDependencies ?? {}).map((n) => [n, true]),
      // Non-optional peers must be installed next to their user (tree-sitter for the grammar).
      ...Object.keys(pkg.peerDependencies ?? {})
        .filter((n) => !pkg.peerDependenciesMeta?.[n]?.optional)
        .map((n) => [n, true]),
    ];
    for (const [name, optional] of deps) {
      const found = resolvePackage(name, dir);
      if (!found) {
        if (optional) continue;
        fail(`${name} (needed by ${pkg.name}) is not installed: run npm ci.`);
      }
      if (seen.has(found)) continue;
      const depPkg = JSON.parse(readFileSync(join(found, 'package.json'), 'utf8'));
      if (optional && !wantedPlatformPackage(name, depPkg)) continue;
      seen.set(found, depPkg);
      visit(found, depPkg);
    }
  };
  visit(root, manifest);
  return [...seen.keys()].sort();
}

// ---- what inside a package ships -------------------------------------------------------------------------------

const prebuildDir = `prebuilds${sep}`;
/** Files a package needs only to be built or documented: source, type declarations, maps, other platforms. */
function keepFile(pkgName, rel) {
  const parts = rel.split(sep);
  if (parts[0] === 'node_modules') return false; // nested packages are staged on their own
  if (/\.(map|[cm]?ts|tsbuildinfo)$/.test(rel)) return false;
  if (rel.startsWith(prebuildDir) && parts[1] && parts[1] !== `${targetOs}-${targetArch}`) return false;
  if (pkgName === 'tree-sitter-systemverilog') {
    // 65 MB of generated C and a 23 MB wasm build: the native prebuild is what loads.
    if (parts[0] === 'src') return rel === join('src', 'node-types.json');
    if (rel.endsWith('.wasm')) return false;
  }
  if (pkgName === 'tree-sitter' && ['src', 'vendor'].includes(parts[0])) return false;
  // A binding compiled at install time is kept (node-gyp-build loads it first): tree-sitter 0.25.1's linux-x64
  // prebuild needs GLIBCXX_3.4.31, which Debian 12's libstdc++ lacks. Object files and makefiles are not.
  if (pkgName === 'tree-sitter' && parts[0] === 'build')
    return parts.length === 3 && parts[1] === 'Release' && rel.endsWith('.node');
  // llama.cpp's source bundle, used only to compile from source; the extension loads prebuilt binaries.
  if (pkgName === 'node-llama-cpp' && rel === join('llama', 'gitRelease.bundle')) return false;
  return true;
}

function copyPackage(dir, pkgName) {
  const dest = join(stage, relative(root, dir));
  const walk = (from) => {
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      const abs = join(from, entry.name);
      const rel = relative(dir, abs);
      if (entry.isDirectory()) {
        if (rel === 'node_modules' || rel.startsWith(`node_modules${sep}`)) continue;
        walk(abs);
      } else if (keepFile(pkgName, rel)) {
        mkdirSync(join(dest, dirname(rel)), { recursive: true });
        cpSync(abs, join(dest, rel), { dereference: true });
      }
    }
  };
  walk(dir);
}

function folderBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    total += entry.isDirectory() ? folderBytes(p) : statSync(p).size;
  }
  return total;
}

const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;

// ---- main ------------------------------------------------------------------------------------------------------

// `--no-build` packages the bundles already in dist/ (tests use it so they never rewrite dist/ under others).
if (args.includes('--no-build')) {
  if (!existsSync(join(root, 'dist', 'extension.js'))) fail('dist/ is empty: run `node scripts/build.mjs` first.');
} else {
  run(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production']);
}

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
const copyIn = (rel, filter = () => true) => {
  if (!existsSync(join(root, rel))) fail(`${rel} is missing.`);
  cpSync(join(root, rel), join(stage, rel), { recursive: true, filter: (src) => filter(src) });
};
copyIn('dist', (src) => !src.endsWith('.map'));
copyIn('media');
for (const f of readdirSync(join(root, 'models')).filter((f) => /^manifest.*\.json$/.test(f)))
  copyIn(join('models', f));
for (const f of ['LICENSE', '.vscodeignore']) copyIn(f);
// vsce cannot resolve relative links without a public repository URL, so the packaged README leaves the
// screenshots (and the sentence about them) out, and keeps a link to a repository file as its text.
writeFileSync(
  join(stage, 'README.md'),
  readFileSync(join(root, 'README.md'), 'utf8')
    .replace(/^!\[[^\]]*\]\(docs\/images\/[^)]+\)\n\n?/gm, '')
    .replace(/^These pictures are screenshots[^]*?refreshes them\)\.\n\n?/m, '')
    .replace(/(?<!!)\[([^\]]+)\]\((?![a-z]+:|#)[^)]+\)/g, '$1'),
);

// The staged manifest has no scripts (vsce would run `vscode:prepublish`) and no dev dependencies.
const { devDependencies: _dev, scripts: _scripts, ...shipped } = manifest;
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(shipped, null, 2)}\n`);

const closure = productionClosure();
for (const dir of closure) copyPackage(dir, JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name);

const sizes = closure
  .map((dir) => [relative(join(root, 'node_modules'), dir), folderBytes(join(stage, relative(root, dir)))])
  .sort((a, b) => b[1] - a[1]);
console.log(
  `Staged ${closure.length} packages for ${target} (gpu: ${gpu}), ${mb(folderBytes(join(stage, 'node_modules')))}; largest:`,
);
for (const [name, bytes] of sizes.slice(0, 6)) console.log(`  ${name.padEnd(36)} ${mb(bytes)}`);

// vsce's npm mode lists the staged node_modules (`npm ls --production`) and packs exactly those.
mkdirSync(dirname(out), { recursive: true });
run(
  process.execPath,
  [
    join(root, 'node_modules', '@vscode', 'vsce', 'vsce'),
    'package',
    '--target',
    target,
    '--out',
    out,
    '--allow-missing-repository',
    '--no-update-package-json',
  ],
  stage,
);
console.log(`VSIX: ${out} (${mb(statSync(out).size)}, unpacked ${mb(folderBytes(stage))})`);
if (!args.includes('--keep-stage')) rmSync(stage, { recursive: true, force: true });
