/**
 * The design options every design command shares: `--filelist`, `-I`, `-D`, `-G`. Files come from the
 * filelists (in their order) and then the command line; include folders and macros from both.
 */
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { readFilelist } from '../engine';
import { ChorusError } from '../protocol';
import { collect } from './options';

export interface DesignCliFlags {
  filelist: string[];
  includeDir: string[];
  define: string[];
  param: string[];
}

export interface DesignInput {
  /** Source files (absolute), each once: the filelists' first, then those named on the command line. */
  files: string[];
  includeDirs: string[];
  defines: Record<string, string | undefined>;
  parameters: Record<string, string>;
}

/** `NAME[=VALUE]` for -D. */
function defineArg(value: string, previous: string[] = []): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_$]*(=.*)?$/.test(value)) throw new InvalidArgumentError('-D takes NAME or NAME=VALUE, NAME a macro name.');
  return [...previous, value];
}

/** `name=value` for -G. */
function paramArg(value: string, previous: string[] = []): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_$]*=\S.*$/.test(value)) throw new InvalidArgumentError('-G takes name=value, e.g. -G DEPTH=64.');
  return [...previous, value];
}

/** Adds the design options to a command. `withIncludeDir` is false where the command already has `-I`. */
export function addDesignOptions(cmd: Command, withIncludeDir = true): Command {
  cmd
    .option('--filelist <file.f>', 'EDA filelist of the design (-f/-F, +incdir+, +define+; repeatable); paths relative to the working folder', collect, [])
    .option('-D, --define <NAME[=VALUE]>', 'macro definition for the design (repeatable)', defineArg, [])
    .option('-G, --param <name=value>', 'parameter override of the DUT top (repeatable)', paramArg, []);
  if (withIncludeDir) cmd.option('-I, --include-dir <dir>', 'include folder for `include (repeatable)', collect, []);
  return cmd;
}

/** Reads the filelists and merges them with the command line. At least one source file is required. */
export async function designInput(files: string[], flags: Partial<DesignCliFlags>): Promise<DesignInput> {
  const out: DesignInput = { files: [], includeDirs: [], defines: {}, parameters: {} };
  const add = (list: string[], item: string) => {
    if (!list.includes(item)) list.push(item);
  };
  for (const list of flags.filelist ?? []) {
    const fl = await readFilelist(list);
    if (fl.libraryFiles.length || fl.libraryDirs.length) {
      throw new ChorusError('bad_input', `The filelist ${list} names -v/-y libraries, which CHORUS does not search yet: list the library files the design uses as sources.`, { file: resolve(list) });
    }
    fl.files.forEach((f) => add(out.files, f));
    fl.includeDirs.forEach((d) => add(out.includeDirs, d));
    Object.assign(out.defines, fl.defines);
  }
  files.map((f) => resolve(f)).forEach((f) => add(out.files, f));
  (flags.includeDir ?? []).map((d) => resolve(d)).forEach((d) => add(out.includeDirs, d));
  for (const d of flags.define ?? []) {
    const eq = d.indexOf('=');
    out.defines[eq < 0 ? d : d.slice(0, eq)] = eq < 0 ? undefined : d.slice(eq + 1);
  }
  for (const p of flags.param ?? []) {
    const eq = p.indexOf('=');
    out.parameters[p.slice(0, eq)] = p.slice(eq + 1);
  }
  if (!out.files.length) throw new ChorusError('bad_input', 'No RTL files given: pass the DUT source files or --filelist <file.f>.');
  return out;
}
