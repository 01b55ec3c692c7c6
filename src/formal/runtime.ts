/**
 * Which JavaScript runtime runs the slang build of Yosys (`@yowasp/yosys-slang`, Yosys 0.70 with `read_slang`). Its
 * WebAssembly needs GC and the new exception handling (exnref): Node 20 cannot compile it; Node 22.23.5, 24.22.3 and
 * 26.12.1 can. The first runtime whose V8 validates the module is used, checked once per process:
 * `CHORUS_FORMAL_NODE` when set, else the runtime CHORUS runs in (as is, then with V8's exnref flag), else Node
 * 26.12.1 from the `node-<os>-<arch>` npm package: installed beside CHORUS, or downloaded once from the npm registry
 * (integrity checked) into `CHORUS_FORMAL_RUNTIME_DIR`, else `$XDG_CACHE_HOME/chorus/runtimes` or
 * `~/.cache/chorus/runtimes` (the extension points it at its global storage). Not an npm dependency: the package's
 * `node` bin would shadow the developer's `node` in every npm script, and its 58 MB would break the VSIX's size bound.
 * `CHORUS_FORMAL_SLANG=0` turns the slang path off; `CHORUS_FORMAL_DOWNLOAD=0` forbids the download.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, chmod, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { silentLogger, type Logger } from '../protocol';

/** The Node release whose V8 runs the slang module, and the npm packages that ship it as one binary. */
export const SLANG_NODE_VERSION = '26.12.1';
/** npm's integrity of `node-<os>-<arch>@26.12.1`, pinned where it was checked (the registry's is used elsewhere). */
const PINNED_INTEGRITY: Record<string, string> = {
  'linux-x64': 'sha512-jk5LMAmgHlPlPMWpsUrSOqNaEZG+11UNd35hWQ+p5/XGaelWuTqJ69IcAy/5xtPPN4d5ZRBNOGB6gLMCh2kL9A==',
};
const REGISTRY = 'https://registry.npmjs.org';
/** V8's flag for exnref, for releases that keep it behind one (Node 22.23.5 and 24.22.3 need none: checked). */
const EXNREF_FLAG = '--experimental-wasm-exnref';

/** How to start a runtime that can run the slang module. */
export interface SlangRuntime {
  command: string;
  /** Runtime flags before the script. */
  args: string[];
  /** Environment additions (Electron runs as Node with ELECTRON_RUN_AS_NODE). */
  env: Record<string, string>;
  /** In words, for the log: `node 26.12.1 (downloaded)`. */
  label: string;
}

export type RuntimeChoice = { runtime: SlangRuntime; module: string } | { reason: string };

/** The slang build's entry file, or undefined when the package is missing. */
export function slangModule(): string | undefined {
  try {
    return require.resolve('@yowasp/yosys-slang');
  } catch {
    return undefined;
  }
}

/** The folder a downloaded runtime is kept in. */
export function runtimeDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CHORUS_FORMAL_RUNTIME_DIR) return resolve(env.CHORUS_FORMAL_RUNTIME_DIR);
  // Not under CHORUS_CACHE_DIR: a throw-away build cache must not cost a 58 MB download each time.
  return env.XDG_CACHE_HOME
    ? join(resolve(env.XDG_CACHE_HOME), 'chorus', 'runtimes')
    : join(homedir(), '.cache', 'chorus', 'runtimes');
}

const platformId = () => `${process.platform}-${process.arch}`;
const packageName = () => `node-${platformId()}`;

/** Where the downloaded binary of this platform lies (whether or not it is there). */
export function downloadedNode(env: NodeJS.ProcessEnv = process.env): string {
  return join(runtimeDir(env), `${packageName()}-${SLANG_NODE_VERSION}`, 'bin', 'node');
}

/** Whether this runtime's V8 validates the module (child process: its flags and its V8, not ours). */
function validates(command: string, args: string[], env: Record<string, string>, wasm: string): Promise<boolean> {
  return new Promise((done) => {
    const child = spawn(
      command,
      [...args, '-e', 'process.exit(WebAssembly.validate(require("fs").readFileSync(process.argv[1])) ? 0 : 3)', wasm],
      { stdio: 'ignore', env: { ...process.env, ...env }, timeout: 60_000 },
    );
    child.on('error', () => done(false));
    child.on('exit', (code) => done(code === 0));
  });
}

/** The runtime CHORUS itself runs in, as a command (Electron's binary runs as Node with ELECTRON_RUN_AS_NODE). */
function selfRuntime(): Omit<SlangRuntime, 'args' | 'label'> {
  return {
    command: process.execPath,
    env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {},
  };
}

function sha512(file: string): Promise<string> {
  return readFile(file).then((b) => `sha512-${createHash('sha512').update(b).digest('base64')}`);
}

/** Downloads `node-<os>-<arch>@26.12.1` from the npm registry and keeps its `bin/node`. Returns its path. */
export async function downloadNode(logger: Logger, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const name = packageName();
  const target = downloadedNode(env);
  const meta = (await (await fetch(`${REGISTRY}/${name}/${SLANG_NODE_VERSION}`)).json()) as {
    dist?: { tarball?: string; integrity?: string };
  };
  const pinned = PINNED_INTEGRITY[platformId()];
  const integrity = pinned ?? meta.dist?.integrity;
  if (!meta.dist?.tarball || !integrity) throw new Error(`the npm registry has no ${name}@${SLANG_NODE_VERSION}`);
  const folder = dirname(dirname(target));
  await mkdir(dirname(folder), { recursive: true });
  // Unpacked beside its place and renamed into it: a half-done download is never taken for a runtime.
  const tmp = await mkdtemp(join(dirname(folder), '.download-'));
  try {
    logger.info(`formal: downloading Node ${SLANG_NODE_VERSION} (${name}, about 58 MB) for the slang front end`);
    const res = await fetch(meta.dist.tarball);
    if (!res.ok || !res.body) throw new Error(`${meta.dist.tarball}: HTTP ${res.status}`);
    const tgz = join(tmp, 'node.tgz');
    await pipeline(Readable.fromWeb(res.body as WebReadableStream), createWriteStream(tgz));
    const got = await sha512(tgz);
    if (got !== integrity) throw new Error(`${name}@${SLANG_NODE_VERSION}: integrity ${got} is not ${integrity}`);
    const tar = spawnSync('tar', ['-xzf', tgz, '-C', tmp, 'package/bin/node'], { stdio: 'pipe' });
    if (tar.status !== 0) throw new Error(`tar could not unpack ${name}: ${String(tar.stderr).trim()}`);
    await chmod(join(tmp, 'package', 'bin', 'node'), 0o755);
    await rm(folder, { recursive: true, force: true });
    await rename(join(tmp, 'package'), folder);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return target;
}

async function exists(p: string): Promise<boolean> {
  return access(p).then(
    () => true,
    () => false,
  );
}

async function choose(logger: Logger, env: NodeJS.ProcessEnv): Promise<RuntimeChoice> {
  const module = slangModule();
  if (!module) return { reason: '@yowasp/yosys-slang is not installed (run `npm install` in the CHORUS folder)' };
  const wasm = join(dirname(module), 'yosys.core.wasm');
  const ok = (runtime: SlangRuntime): RuntimeChoice => ({ runtime, module });

  if (env.CHORUS_FORMAL_NODE) {
    const command = resolve(env.CHORUS_FORMAL_NODE);
    for (const args of [[], [EXNREF_FLAG]]) {
      if (await validates(command, args, {}, wasm))
        return ok({ command, args, env: {}, label: `${command} (CHORUS_FORMAL_NODE)` });
    }
    return { reason: `CHORUS_FORMAL_NODE=${command} cannot run the slang module (WebAssembly GC and exnref needed)` };
  }
  const self = selfRuntime();
  const selfName = process.versions.electron
    ? `Electron ${process.versions.electron}`
    : `node ${process.versions.node}`;
  for (const args of [[], [EXNREF_FLAG]]) {
    if (await validates(self.command, args, self.env, wasm))
      return ok({ ...self, args, label: `${selfName} (this process)` });
  }
  const candidates: { command: string; label: string }[] = [];
  try {
    const pkg = require.resolve(`${packageName()}/package.json`);
    candidates.push({
      command: join(dirname(pkg), 'bin', 'node'),
      label: `node ${SLANG_NODE_VERSION} (${packageName()} package)`,
    });
  } catch {
    // Not installed beside CHORUS: the downloaded copy, or a download.
  }
  const downloaded = downloadedNode(env);
  candidates.push({ command: downloaded, label: `node ${SLANG_NODE_VERSION} (downloaded)` });
  for (const c of candidates) {
    if ((await exists(c.command)) && (await validates(c.command, [], {}, wasm))) return ok({ ...c, args: [], env: {} });
  }
  const why = `${selfName} cannot compile the slang module (WebAssembly GC and exnref needed)`;
  if (env.CHORUS_FORMAL_DOWNLOAD === '0')
    return { reason: `${why}, and CHORUS_FORMAL_DOWNLOAD=0 forbids fetching Node ${SLANG_NODE_VERSION}` };
  if (process.platform === 'win32')
    return { reason: `${why}; set CHORUS_FORMAL_NODE to a Node ${SLANG_NODE_VERSION} binary` };
  try {
    const command = await downloadNode(logger, env);
    if (await validates(command, [], {}, wasm))
      return ok({ command, args: [], env: {}, label: `node ${SLANG_NODE_VERSION} (downloaded)` });
    return { reason: `${why}, and the downloaded Node ${SLANG_NODE_VERSION} cannot either` };
  } catch (err) {
    return {
      reason: `${why}, and Node ${SLANG_NODE_VERSION} could not be fetched (${(err as Error).message}); set CHORUS_FORMAL_NODE to a Node ${SLANG_NODE_VERSION} binary`,
    };
  }
}

let cached: { key: string; choice: Promise<RuntimeChoice> } | undefined;

/**
 * The runtime for the slang front end, or why there is none; decided once per process (and per setting of the
 * variables above). `CHORUS_FORMAL_SLANG=0` answers at once.
 */
export function slangRuntime(
  logger: Logger = silentLogger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RuntimeChoice> {
  if (env.CHORUS_FORMAL_SLANG === '0') return Promise.resolve({ reason: 'turned off (CHORUS_FORMAL_SLANG=0)' });
  const key = [env.CHORUS_FORMAL_NODE, env.CHORUS_FORMAL_DOWNLOAD, runtimeDir(env)].join('\0');
  if (cached?.key !== key) cached = { key, choice: choose(logger, env) };
  return cached.choice;
}

let told: string | undefined;

/**
 * The slang front end's runtime and module, or undefined when the formal engine falls back to Yosys 0.55's
 * `read_verilog -sv` (the reason logged once per process, and again only when it changes).
 */
export async function slangFrontEnd(
  logger: Logger = silentLogger,
): Promise<{ runtime: SlangRuntime; module: string } | undefined> {
  const choice = await slangRuntime(logger);
  const line =
    'runtime' in choice
      ? `formal: SystemVerilog through read_slang (Yosys 0.70) under ${choice.runtime.label}`
      : `formal: read_slang unavailable (${choice.reason}); Yosys 0.55's read_verilog -sv reads the design, so packages, assignment patterns and casts may not be read`;
  if (line !== told) {
    told = line;
    if ('runtime' in choice) logger.info(line);
    else logger.warn(line);
  }
  return 'runtime' in choice ? choice : undefined;
}
