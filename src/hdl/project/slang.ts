/**
 * `.slang/server.json`, the project file of slang-server (the language server the Verilog extensions use): its
 * `flags` (slang's command line: source files, `-f`/`-F`/`-C` lists, `-I`/`+incdir+`, `-D`/`+define+`, `-v`/`-y`,
 * `--libext`) and its `build` filelist (relative to the list's own folder when `buildRelativePaths` is true).
 * Relative paths are relative to the workspace folder, the folder holding `.slang`. Flags that do not describe
 * the design (`--top`, `-W…`, `--timescale`, …) are left aside.
 */
import { dirname, resolve } from 'node:path';
import {
  add,
  FilelistReader,
  lineError,
  readDesignText,
  words,
  type Filelist,
  type FilelistOptions,
} from '../filelist';
import { at, field, needText, parseTree, text } from './tree';

/** slang flags that take the next word as their value and say nothing about the design's files. */
const VALUED_FLAGS = new Set([
  '--top',
  '-G',
  '--timescale',
  '--std',
  '-T',
  '--timing',
  '-j',
  '--threads',
  '--error-limit',
  '--compat',
  '--max-include-depth',
  '--max-parse-depth',
  '--max-hierarchy-depth',
  '--max-instance-array',
  '--suppress-warnings',
  '--suppress-macro-warnings',
  '--translate-off-format',
  '--libmap',
  '-L',
  '--defaultLibName',
]);

/** slang's spellings → the `.f` words the filelist reader knows (`null`: skip the flag and its value). */
function translate(flag: string, value: () => string): string[] | null | undefined {
  const eq = flag.indexOf('=');
  const [name, inline] = flag.startsWith('--') && eq > 0 ? [flag.slice(0, eq), flag.slice(eq + 1)] : [flag, undefined];
  const arg = () => inline ?? value();
  switch (name) {
    case '-I':
    case '--include-directory':
    case '--isystem':
      return [`+incdir+${arg()}`];
    case '-D':
    case '--define-macro':
      return [`+define+${arg()}`];
    case '-f':
      return ['-f', arg()];
    case '-F':
    case '-C':
      return ['-F', arg()];
    case '-v':
    case '--libfile':
      return ['-v', arg()];
    case '-y':
    case '--libdir':
      return ['-y', arg()];
    case '--libext':
      return [`+libext+${arg()}`];
  }
  if (VALUED_FLAGS.has(name)) {
    if (inline === undefined) value();
    return null;
  }
  if (/^-[ID]./.test(flag) || flag.startsWith('+')) return [flag];
  if (flag.startsWith('-')) return null;
  return undefined;
}

/** Reads `.slang/server.json`. */
export async function readSlang(file: string, opts: FilelistOptions = {}): Promise<Filelist> {
  const tree = parseTree(await readDesignText(file, 'slang-server configuration'), file);
  if (tree.kind !== 'map') throw lineError(at(file, tree), 'slang-server configuration is a JSON object');
  const folder = dirname(dirname(file));
  const reader = new FilelistReader(folder, opts.env ?? process.env);
  add(reader.result.lists, file);
  const flags = field(tree, 'flags');
  if (flags) {
    const where = at(file, flags);
    const tokens = words(needText(file, flags, 'slang flags as one string'));
    const out: string[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const flag = tokens[i];
      const next = () => {
        const v = tokens[++i];
        if (v === undefined) throw lineError(where, `${flag} needs a value in flags`);
        return v;
      };
      const mapped = translate(flag, next);
      if (mapped === undefined) out.push(flag);
      else if (mapped) out.push(...mapped);
    }
    await reader.line(out, where, folder);
  }
  const build = field(tree, 'build');
  const buildPath = text(build);
  if (build && buildPath) {
    const list = resolve(folder, buildPath);
    const own = text(field(tree, 'buildRelativePaths')) === 'true';
    await reader.read(list, own ? dirname(list) : folder, at(file, build));
  }
  if (!reader.result.files.length)
    throw lineError(
      at(file, tree),
      'The slang-server configuration names no source file (in flags or its build filelist): add them, or give a .f',
    );
  return reader.result;
}
