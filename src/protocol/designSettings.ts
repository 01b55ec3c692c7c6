/**
 * The design settings (`chorus.filelist`, `chorus.projectTargets`, `chorus.includeDirs`, `chorus.defines`,
 * `chorus.topParameters`): how the user's RTL is read, as a filelist and the CLI's `-I`, `-D`, `-G` say it; and
 * its signoff files (`chorus.waiverFile`, `chorus.regressionCoverage`: the CLI's `--waivers` and `--merge`). Read
 * and checked the same way by the extension and the server. Paths are as written: relative ones are relative to
 * the workspace folder.
 */
import { ChorusError } from './errors';
import { parameterValueError } from './parameterValue';
import type { ConfigurationLike } from './settings';

/** See the file comment. */
export interface DesignSettings {
  /** A `.f` filelist or a project file (Bender.yml, a FuseSoC .core, .slang/server.json, verible.filelist); empty when none. */
  filelist: string;
  /** Bender targets for a project file (`-name` clears a default), also FuseSoC flags. */
  projectTargets: string[];
  includeDirs: string[];
  /** `undefined` defines the name alone. */
  defines: Record<string, string | undefined>;
  /** Top parameter overrides as Verilog constant text. */
  topParameters: Record<string, string>;
  /** The waiver file every run checks and writes back (`--waivers`, docs/waivers.md); empty when none. */
  waiverFile: string;
  /** coverage.dat files of the user's regression every run starts from (`--merge`); none when empty. */
  regressionCoverage: string[];
}

/** The defaults: no filelist, folders, macros or parameters. */
export const NO_DESIGN_SETTINGS: DesignSettings = {
  filelist: '',
  projectTargets: [],
  includeDirs: [],
  defines: {},
  topParameters: {},
  waiverFile: '',
  regressionCoverage: [],
};

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;

function settingError(key: string, message: string): ChorusError {
  return new ChorusError(
    'bad_input',
    `chorus.${key}: ${message}: fix it in the workspace settings (.vscode/settings.json).`,
  );
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `chorus.defines`: an object `{ NAME: "VALUE" }` (`null`, `true` or `""`: the name alone) or a list of `NAME[=VALUE]`. */
function readDefines(v: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (v === undefined || v === null) return out;
  const add = (name: string, value: string | undefined) => {
    if (!IDENTIFIER.test(name)) throw settingError('defines', `'${name}' is not a macro name`);
    out[name] = value === '' ? undefined : value;
  };
  if (Array.isArray(v)) {
    for (const item of v) {
      if (typeof item !== 'string')
        throw settingError('defines', `${JSON.stringify(item)} is not a NAME or NAME=VALUE string`);
      const eq = item.indexOf('=');
      add((eq < 0 ? item : item.slice(0, eq)).trim(), eq < 0 ? undefined : item.slice(eq + 1));
    }
    return out;
  }
  if (!isRecord(v)) throw settingError('defines', 'expected an object of NAME: "VALUE" or a list of "NAME=VALUE"');
  for (const [name, value] of Object.entries(v)) {
    if (value === false) continue;
    if (value === null || value === true) add(name, undefined);
    else if (typeof value === 'string' || typeof value === 'number') add(name, String(value));
    else throw settingError('defines', `the value of ${name} must be a string or a number`);
  }
  return out;
}

/** `chorus.topParameters`: `{ NAME: value }`, each value Verilog constant text (`8`, `"'h1F"`) or a number. */
function readParameters(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v === undefined || v === null) return out;
  if (!isRecord(v)) throw settingError('topParameters', 'expected an object of NAME: value');
  for (const [name, value] of Object.entries(v)) {
    if (!IDENTIFIER.test(name)) throw settingError('topParameters', `'${name}' is not a parameter name`);
    if (typeof value === 'number' && Number.isFinite(value)) out[name] = String(value);
    else if (typeof value === 'string' && value.trim()) out[name] = value.trim();
    else throw settingError('topParameters', `the value of ${name} must be a number or Verilog constant text`);
    const bad = parameterValueError(name, out[name]);
    if (bad) throw settingError('topParameters', bad.replace(/\.$/, ''));
  }
  return out;
}

/** Checks the design settings of one `workspace/configuration` answer; a bad value is a ChorusError naming the setting. */
export function parseDesignSettings(cfg: ConfigurationLike): DesignSettings {
  const filelist = cfg.get('filelist');
  if (filelist !== undefined && filelist !== null && typeof filelist !== 'string')
    throw settingError('filelist', 'expected the path of a .f file or a project file');
  const targets = cfg.get('projectTargets') ?? [];
  if (
    !Array.isArray(targets) ||
    targets.some((t) => typeof t !== 'string' || !/^-?[A-Za-z0-9._][A-Za-z0-9._-]*$/.test(t))
  )
    throw settingError('projectTargets', 'expected a list of target names (letters, digits, . _ -; -name clears one)');
  const dirs = cfg.get('includeDirs') ?? [];
  if (!Array.isArray(dirs) || dirs.some((d) => typeof d !== 'string' || !d.trim()))
    throw settingError('includeDirs', 'expected a list of folder paths');
  const waiverFile = cfg.get('waiverFile');
  if (waiverFile !== undefined && waiverFile !== null && typeof waiverFile !== 'string')
    throw settingError('waiverFile', 'expected the path of a waiver file (docs/waivers.md)');
  const regression = cfg.get('regressionCoverage') ?? [];
  if (!Array.isArray(regression) || regression.some((d) => typeof d !== 'string' || !d.trim()))
    throw settingError('regressionCoverage', 'expected a list of coverage.dat paths');
  return {
    filelist: typeof filelist === 'string' ? filelist.trim() : '',
    projectTargets: targets as string[],
    includeDirs: dirs.map((d: string) => d.trim()),
    defines: readDefines(cfg.get('defines')),
    topParameters: readParameters(cfg.get('topParameters')),
    waiverFile: typeof waiverFile === 'string' ? waiverFile.trim() : '',
    regressionCoverage: regression.map((d: string) => d.trim()),
  };
}
