/**
 * The design options every design command shares: `--filelist`, `-I`, `-D`. Files come from the filelists
 * (in their order) and then the command line; include folders and macros from both. (Top parameter overrides,
 * `-G`, wait for the generators to instantiate the DUT with them: the request and the design lint take them.)
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { readFilelist } from '../engine';
import { ChorusError } from '../protocol';
import { collect } from './options';

export interface DesignCliFlags {
  filelist: string[];
  includeDir: string[];
  define: string[];
}

export interface DesignInput {
  /**
   * Source files, each once: the filelists' first (relative to the working folder when inside it, else
   * absolute), then those named on the command line, as given: the names messages show.
   */
  files: string[];
  includeDirs: string[];
  defines: Record<string, string | undefined>;
}

/** A listed file's name for messages: relative to the working folder when inside it. */
function shown(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/** `NAME[=VALUE]` for -D. */
function defineArg(value: string, previous: string[] = []): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_$]*(=.*)?$/.test(value)) throw new InvalidArgumentError('-D takes NAME or NAME=VALUE, NAME a macro name.');
  return [...previous, value];
}

/** Adds the design options to a command. `withIncludeDir` is false where the command already has `-I`. */
export function addDesignOptions(cmd: Command, withIncludeDir = true): Command {
  cmd
    .option('--filelist <file.f>', 'EDA filelist of the design (-f/-F, +incdir+, +define+; repeatable); paths relative to the working folder', collect, [])
    .option('-D, --define <NAME[=VALUE]>', 'macro definition for the design (repeatable)', defineArg, []);
  if (withIncludeDir) cmd.option('-I, --include-dir <dir>', 'include folder for `include (repeatable)', collect, []);
  return cmd;
}

/** Reads the filelists and merges them with the command line. At least one source file is required. */
export async function designInput(files: string[], flags: Partial<DesignCliFlags>): Promise<DesignInput> {
  const out: DesignInput = { files: [], includeDirs: [], defines: {} };
  const add = (list: string[], item: string) => {
    if (!list.includes(item)) list.push(item);
  };
  for (const list of flags.filelist ?? []) {
    const fl = await readFilelist(list);
    if (fl.libraryFiles.length || fl.libraryDirs.length) {
      throw new ChorusError('bad_input', `The filelist ${list} names -v/-y libraries, which CHORUS does not search yet: list the library files the design uses as sources.`, { file: resolve(list) });
    }
    fl.files.forEach((f) => add(out.files, shown(f)));
    fl.includeDirs.forEach((d) => add(out.includeDirs, d));
    Object.assign(out.defines, fl.defines);
  }
  for (const f of files) if (!out.files.some((o) => resolve(o) === resolve(f))) out.files.push(f);
  (flags.includeDir ?? []).map((d) => resolve(d)).forEach((d) => add(out.includeDirs, d));
  for (const d of flags.define ?? []) {
    const eq = d.indexOf('=');
    out.defines[eq < 0 ? d : d.slice(0, eq)] = eq < 0 ? undefined : d.slice(eq + 1);
  }
  if (!out.files.length) throw new ChorusError('bad_input', 'No RTL files given: pass the DUT source files or --filelist <file.f>.');
  return out;
}
