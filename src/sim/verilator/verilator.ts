/**
 * Finds Verilator, checks that its version can build CHORUS's timing-aware coverage simulations, and probes
 * once what it accepts (feature detection, not version guessing): the result is cached per binary (path and
 * modification time) in memory and in the cache folder.
 */
import { execFile, type ExecFileException } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { ChorusError } from '../../protocol';
import { cacheLayout } from '../cache/cacheDir';
import { logToolStart } from '../process/toolLog';
import { sha256 } from '../cache/buildEntry';
import { scrubbedEnv } from '../sandbox/jail';
import type { VerilatorFeatures, VerilatorInfo } from '../types';

export type { VerilatorFeatures } from '../types';

/** 5.006 is the first release checked here with `--timing`, `eventsPending()` and `nextTimeSlot()`. */
export const MIN_VERILATOR = { major: 5, minor: 6 };

const INSTALL_HINT =
  'install it with `apt-get install verilator` (Debian 12 / Ubuntu 23.04 or newer ship 5.006+) or set chorus.verilatorPath (CLI: --verilator)';

/** Bumped when the probe's meaning changes, so cached probes of older CHORUS versions are not read. */
const PROBE_SCHEMA = 2;
const PROBE_TIMEOUT_MS = 30_000;

const known = new Map<string, VerilatorInfo>();

/** Absolute path of an executable: as given when it has a slash, else the first match on PATH. */
export function whichSync(name: string): string | undefined {
  if (name.includes('/')) return isAbsolute(name) ? name : resolve(name);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export function parseVerilatorVersion(text: string): { version: string; major: number; minor: number } | undefined {
  const m = /Verilator\s+(\d+)\.(\d+)/.exec(text);
  if (!m) return undefined;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  return { version: `${major}.${String(minor).padStart(3, '0')}`, major, minor };
}

function atLeast(v: { major: number; minor: number }, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}

interface ToolRun {
  ok: boolean;
  text: string;
  err?: ExecFileException | undefined;
}

function runTool(path: string, args: string[], env: NodeJS.ProcessEnv): Promise<ToolRun> {
  return new Promise((done) => {
    const child = execFile(path, args, { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8', env }, (err, stdout, stderr) => {
      done({ ok: !err, text: `${stdout}${stderr}`, err: err ?? undefined });
    });
    if (child.pid !== undefined)
      logToolStart(path, args, process.cwd(), child.pid, { wallMs: PROBE_TIMEOUT_MS }, 'probe');
  });
}

/**
 * The Verilator to use: `path` (chorus.verilatorPath, `--verilator`), else CHORUS_VERILATOR, else `verilator`
 * on PATH. Throws ChorusError('missing_tool') when it is absent, broken, older than 5.006, or when
 * VERILATOR_ROOT names another installation than the binary's own.
 */
export async function detectVerilator(path?: string): Promise<VerilatorInfo> {
  const requested = path || process.env.CHORUS_VERILATOR || 'verilator';
  const resolved = whichSync(requested);
  if (!resolved)
    throw new ChorusError('missing_tool', `Verilator not found (looked for \`${requested}\`): ${INSTALL_HINT}.`);
  const identity = binaryIdentity(resolved);
  const memoKey = `${identity}\0${process.env.VERILATOR_ROOT ?? ''}`;
  const cached = known.get(memoKey);
  if (cached) return cached;
  const info = await probeVerilator(resolved, identity);
  known.set(memoKey, info);
  return info;
}

/** Path plus modification time and size of the wrapper and of the `verilator_bin` beside it: an upgrade changes it. */
function binaryIdentity(resolved: string): string {
  const parts = [resolved];
  for (const p of [resolved, join(dirname(resolved), 'verilator_bin')]) {
    try {
      const s = statSync(p);
      parts.push(`${s.mtimeMs}:${s.size}`);
    } catch {
      parts.push('-');
    }
  }
  return parts.join('|');
}

async function probeVerilator(resolved: string, identity: string): Promise<VerilatorInfo> {
  const env = scrubbedEnv();
  const userRoot = env.VERILATOR_ROOT || undefined;
  // The binary's own data folder: asked with VERILATOR_ROOT unset, which every Verilator accepts.
  const bare: NodeJS.ProcessEnv = { ...env };
  delete bare.VERILATOR_ROOT;
  const own = await runTool(resolved, ['--getenv', 'VERILATOR_ROOT'], bare);
  const said = own.ok ? own.text.trim().split('\n').pop()?.trim() : undefined;
  const ownRoot = said && isAbsolute(said) && isDirectory(said) ? said : undefined;
  const mismatch = (why: string): ChorusError =>
    new ChorusError(
      'missing_tool',
      `VERILATOR_ROOT is set to ${userRoot}, but the Verilator at ${resolved} has its own files in ${ownRoot}${why}: unset VERILATOR_ROOT (this Verilator finds its files without it), or pick the Verilator of that folder with chorus.verilatorPath (CLI: --verilator).`,
    );
  if (userRoot && ownRoot && realOrSelf(userRoot) !== realOrSelf(ownRoot))
    throw mismatch(', and Verilator stops on that mismatch');

  const version = await runTool(resolved, ['--version'], env);
  // Some packages (Debian's) keep verilator_bin outside their data folder: even their own folder, set, stops them.
  if (!version.ok && userRoot && ownRoot)
    throw mismatch(`, and with it set Verilator stops (${firstLine(version.text)})`);
  if (!version.ok) {
    const code = version.err?.code;
    const why =
      code === 'ENOENT' || code === 'EACCES'
        ? 'not found or not executable'
        : `failed (${firstLine(version.text) || version.err?.message.split('\n')[0]})`;
    const rootHint =
      userRoot && !ownRoot ? ` (VERILATOR_ROOT is ${userRoot}: check that it is this installation's folder)` : '';
    throw new ChorusError('missing_tool', `Verilator at ${resolved} ${why}${rootHint}: ${INSTALL_HINT}.`, undefined, {
      cause: version.err,
    });
  }
  const parsed = parseVerilatorVersion(version.text);
  if (!parsed)
    throw new ChorusError(
      'missing_tool',
      `${resolved} did not report a Verilator version (got "${version.text.trim().slice(0, 80)}"): ${INSTALL_HINT}.`,
    );
  if (!atLeast(parsed, MIN_VERILATOR.major, MIN_VERILATOR.minor)) {
    throw new ChorusError(
      'missing_tool',
      `Verilator ${parsed.version} at ${resolved} is too old: CHORUS needs 5.006 or newer for --timing testbenches; ${INSTALL_HINT}.`,
    );
  }
  const root = userRoot ?? ownRoot ?? '';
  let features = await readProbe(identity, parsed.version);
  if (!features) {
    const probed = await probeFeatures(resolved, parsed, env);
    features = probed.features;
    // An undecided flag is taken as absent for now and asked again next time, never cached.
    if (probed.decided) await writeProbe(identity, features);
  }
  return { path: resolved, ...parsed, root, features };
}

/**
 * One `<flag> --version` per flag: Verilator parses the options before `--version` and rejects an unknown one
 * ("Invalid option"). undefined when it neither accepted nor rejected it (killed, timed out on a loaded machine).
 */
async function accepts(path: string, flag: string[], env: NodeJS.ProcessEnv): Promise<boolean | undefined> {
  const run = await runTool(path, [...flag, '--version'], env);
  if (run.ok) return true;
  return /Invalid option|Unknown option/i.test(run.text) ? false : undefined;
}

async function probeFeatures(
  path: string,
  parsed: { version: string; major: number; minor: number },
  env: NodeJS.ProcessEnv,
): Promise<{ features: VerilatorFeatures; decided: boolean }> {
  const verdicts = await Promise.all([
    accepts(path, ['--coverage-line', '--coverage-toggle', '--coverage-user'], env),
    accepts(path, ['--coverage-expr'], env),
    accepts(path, ['--coverage-fsm'], env),
    accepts(path, ['--unroll-limit', '16384'], env),
    accepts(path, ['--xml-only'], env),
  ]);
  const [coverageSplit, coverageExpr, coverageFsm, unrollLimit, xmlOnly] = verdicts.map((v) => v === true);
  const features: VerilatorFeatures = {
    version: parsed.version,
    coverageSplit,
    coverageExpr,
    coverageFsm,
    unrollLimit,
    xmlOnly,
    // A property of the coverage data, not a flag (5.040+); versionPoints.ts reads either form by its comments.
    toggleDirections: atLeast(parsed, 5, 40),
  };
  return { features, decided: verdicts.every((v) => v !== undefined) };
}

function probeFile(identity: string): string {
  return join(cacheLayout().root, 'verilator-probes', `${sha256(identity).slice(0, 24)}.json`);
}

async function readProbe(identity: string, version: string): Promise<VerilatorFeatures | undefined> {
  try {
    const stored = JSON.parse(await readFile(probeFile(identity), 'utf8')) as {
      schema?: number;
      identity?: string;
      features?: VerilatorFeatures;
    };
    if (stored.schema !== PROBE_SCHEMA || stored.identity !== identity || stored.features?.version !== version)
      return undefined;
    return stored.features;
  } catch {
    return undefined;
  }
}

/** Written beside the target and renamed: a reader never sees half a file. Best effort: a read-only cache only costs a probe. */
async function writeProbe(identity: string, features: VerilatorFeatures): Promise<void> {
  const file = probeFile(identity);
  try {
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.tmp-${randomBytes(4).toString('hex')}`;
    await writeFile(tmp, JSON.stringify({ schema: PROBE_SCHEMA, identity, features }));
    await rename(tmp, file);
  } catch {
    // not cached on disk this time
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? ''
  );
}
