/**
 * The design options every design command shares: `--filelist`, `-I`, `-D`, `-G`. Files come from the filelists
 * (in their order), then the command line, then the `-v`/`-y` library files the sources need; include folders
 * and macros from both; top parameter overrides from the command line.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { libraryFilesNeeded, readFilelist, readSourceText, type Libraries } from '../engine';
import { ChorusError, parameterValueError } from '../protocol';
import { collect } from './options';

export interface DesignCliFlags {
  filelist: string[];
  /** Bender targets / FuseSoC flags for project files (`--project-target`). */
  projectTarget: string[];
  includeDir: string[];
  define: string[];
  param: string[];
}

export interface DesignInput {
  /**
   * Source files, each once: the filelists' first (relative to the working folder when inside it, else
   * absolute), then those named on the command line, as given: the names messages show.
   */
  files: string[];
  includeDirs: string[];
  defines: Record<string, string | undefined>;
  /** Top parameter overrides (`-G name=value`), Verilog constant text. */
  parameters: Record<string, string>;
  /** The top the sources imply when `-v`/`-y` library files were added (their unused modules are no top). */
  top?: string;
}

/** A listed file's name for messages: relative to the working folder when inside it. */
function shown(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/** `NAME[=VALUE]` for -D. */
function defineArg(value: string, previous: string[] = []): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_$]*(=.*)?$/.test(value))
    throw new InvalidArgumentError('-D takes NAME or NAME=VALUE, NAME a macro name.');
  return [...previous, value];
}

/** `NAME=VALUE` for -G: VALUE a Verilog constant expression (no quotes needed for numbers). */
export function parameterArg(value: string, previous: string[] = []): string[] {
  const [, name, expr] = /^([A-Za-z_][A-Za-z0-9_$]*)=(.+)$/.exec(value) ?? [];
  if (name === undefined || expr === undefined || !expr.trim())
    throw new InvalidArgumentError(
      '-G takes NAME=VALUE, NAME a parameter of the top module and VALUE a constant (8, 32\'hFF, "text").',
    );
  const bad = parameterValueError(`-G ${name}`, expr);
  if (bad) throw new InvalidArgumentError(bad);
  return [...previous, value];
}

/** `-G` values (checked by parameterArg) as name → value. */
export function parameterPairs(values: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of values ?? []) {
    const eq = p.indexOf('=');
    out[p.slice(0, eq)] = p.slice(eq + 1).trim();
  }
  return out;
}

/**
 * Adds the design options to a command. `withIncludeDir` is false where the command already has `-I`;
 * `withParameters` false where the user's own testbench instantiates the DUT (`coverage`).
 */
export function addDesignOptions(cmd: Command, withIncludeDir = true, withParameters = true): Command {
  cmd
    .option(
      '--filelist <file>',
      "the design's filelist (.f: -f/-F, +incdir+, +define+, -v/-y; paths relative to the working folder) or project file (Bender.yml, a FuseSoC .core, .slang/server.json, verible.filelist); repeatable",
      collect,
      [],
    )
    .option(
      '--project-target <name>',
      'a Bender target to set (-name clears one; the defaults are verilator, simulation, rtl), also a FuseSoC flag (repeatable)',
      collect,
      [],
    )
    .option('-D, --define <NAME[=VALUE]>', 'macro definition for the design (repeatable)', defineArg, []);
  if (withParameters)
    cmd.option(
      '-G, --param <NAME=VALUE>',
      'top parameter override: the DUT is analysed, built and instantiated with it (repeatable)',
      parameterArg,
      [],
    );
  if (withIncludeDir) cmd.option('-I, --include-dir <dir>', 'include folder for `include (repeatable)', collect, []);
  return cmd;
}

/** Reads the filelists and merges them with the command line. At least one source file is required. */
export async function designInput(files: string[], flags: Partial<DesignCliFlags>): Promise<DesignInput> {
  const out: DesignInput = { files: [], includeDirs: [], defines: {}, parameters: {} };
  const libraries: Libraries = { files: [], dirs: [], extensions: [] };
  const add = (list: string[], item: string) => {
    if (!list.includes(item)) list.push(item);
  };
  for (const list of flags.filelist ?? []) {
    const fl = await readFilelist(list, { targets: flags.projectTarget });
    fl.files.forEach((f) => add(out.files, shown(f)));
    fl.libraryFiles.forEach((f) => add(libraries.files, f));
    fl.libraryDirs.forEach((d) => add(libraries.dirs, d));
    fl.libraryExtensions.forEach((e) => add(libraries.extensions, e));
    fl.includeDirs.forEach((d) => add(out.includeDirs, d));
    Object.assign(out.defines, fl.defines);
  }
  for (const f of files) if (!out.files.some((o) => resolve(o) === resolve(f))) out.files.push(f);
  (flags.includeDir ?? []).map((d) => resolve(d)).forEach((d) => add(out.includeDirs, d));
  for (const d of flags.define ?? []) {
    const eq = d.indexOf('=');
    out.defines[eq < 0 ? d : d.slice(0, eq)] = eq < 0 ? undefined : d.slice(eq + 1);
  }
  out.parameters = parameterPairs(flags.param);
  if (!out.files.length && flags.filelist?.length)
    throw new ChorusError(
      'bad_input',
      `${flags.filelist.join(', ')} names no source file: check the list (a project file's groups follow --project-target).`,
    );
  if (!out.files.length)
    throw new ChorusError('bad_input', 'No RTL files given: pass the DUT source files or --filelist <file.f>.');
  // Only the library files whose modules the sources use are compiled, as a simulator resolves -v/-y.
  const needed = await libraryFilesNeeded(
    out.files.map((f) => resolve(f)),
    libraries,
    readSourceText,
    (f) =>
      stat(f).then(
        (st) => st.isFile(),
        () => false,
      ),
  );
  needed.files.forEach((f) => add(out.files, shown(f)));
  // A library file's unused modules are compiled with it but are no top: the sources' own top is.
  const [onlyTop, ...otherTops] = needed.sourceTops;
  if (needed.files.length && onlyTop !== undefined && !otherTops.length) out.top = onlyTop;
  return out;
}
