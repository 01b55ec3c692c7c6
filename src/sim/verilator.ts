/** Finds Verilator and checks that its version can build CHORUS's timing-aware coverage simulations. */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { ChorusError } from '../protocol';
import type { VerilatorInfo } from './types';

/** 5.006 is the first release checked here with `--timing`, `eventsPending()` and `nextTimeSlot()`. */
export const MIN_VERILATOR = { major: 5, minor: 6 };

const INSTALL_HINT =
  'install it with `apt-get install verilator` (Debian 12 / Ubuntu 23.04 or newer ship 5.006+) or set chorus.verilatorPath (CLI: --verilator)';

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

export async function detectVerilator(path?: string): Promise<VerilatorInfo> {
  const requested = path || 'verilator';
  const cached = known.get(requested);
  if (cached) return cached;
  const resolved = whichSync(requested);
  if (!resolved) throw new ChorusError('missing_tool', `Verilator not found (looked for \`${requested}\`): ${INSTALL_HINT}.`);
  const text = await new Promise<string>((done, fail) => {
    execFile(resolved, ['--version'], { timeout: 30_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const why = code === 'ENOENT' || code === 'EACCES' ? 'not found or not executable' : `failed (${err.message.split('\n')[0]})`;
        fail(new ChorusError('missing_tool', `Verilator at ${resolved} ${why}: ${INSTALL_HINT}.`, undefined, { cause: err }));
        return;
      }
      done(`${stdout}${stderr}`);
    });
  });
  const parsed = parseVerilatorVersion(text);
  if (!parsed) throw new ChorusError('missing_tool', `${resolved} did not report a Verilator version (got "${text.trim().slice(0, 80)}"): ${INSTALL_HINT}.`);
  if (parsed.major < MIN_VERILATOR.major || (parsed.major === MIN_VERILATOR.major && parsed.minor < MIN_VERILATOR.minor)) {
    throw new ChorusError(
      'missing_tool',
      `Verilator ${parsed.version} at ${resolved} is too old: CHORUS needs 5.006 or newer for --timing testbenches; ${INSTALL_HINT}.`,
    );
  }
  const info: VerilatorInfo = { path: resolved, ...parsed };
  known.set(requested, info);
  return info;
}
