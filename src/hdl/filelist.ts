/**
 * EDA filelists (`.f`), as simulators and lint tools read them: source paths, `-f`/`-F` nested lists,
 * `+incdir+`, `+define+`, `-v`/`-y` libraries with `+libext+`, `//` and `#` comments, `$VAR`/`${VAR}`.
 * Paths in a list read with `-f` (and the top list) are relative to the working folder; paths in a list read
 * with `-F` are relative to that list's own folder. Every problem is a ChorusError('bad_input') naming the
 * list and line.
 */
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ChorusError } from '../protocol';
import { readUserFile } from '../protocol/userFile';

export interface Filelist {
  /** Source files (absolute), in the order given, each once. */
  files: string[];
  /** `+incdir+` folders (absolute), each once. */
  includeDirs: string[];
  /** `+define+NAME[=VALUE]`: a later definition replaces an earlier one; `undefined` defines the name alone. */
  defines: Record<string, string | undefined>;
  /** `-v` library files (absolute): searched for modules the sources use, not compiled whole. */
  libraryFiles: string[];
  /** `-y` library folders (absolute), searched with `libraryExtensions`. */
  libraryDirs: string[];
  /** `+libext+` extensions with their dot (`.v`, `.sv`). */
  libraryExtensions: string[];
  /** Every list read (absolute), the top one first. */
  lists: string[];
}

export interface FilelistOptions {
  /** The working folder `-f` paths are relative to; default process.cwd(). */
  cwd?: string;
  /** Environment for `$VAR`/`${VAR}`; default process.env. */
  env?: Record<string, string | undefined>;
  /**
   * Project targets (`--project-target`, `chorus.projectTargets`): Bender targets added to the defaults (`-name`
   * removes one, as `bender -t -name` does), also FuseSoC flags. A `.f` list ignores them.
   */
  targets?: readonly string[] | undefined;
}

/** Deeper nesting than any real project uses; also bounds a list that names itself under another path. */
const MAX_DEPTH = 32;
/** Filelists are text of paths; anything larger is not one. */
const MAX_LIST_BYTES = 4 * 1024 * 1024;

/** A line of a design file: messages name it. */
export interface Where {
  list: string;
  line: number;
}

/** A problem on a line of a design file (`list.f:3: message` on the command line). */
export function lineError(where: Where, message: string): ChorusError {
  // The location names the list and line (`list.f:3: message` on the command line).
  return new ChorusError('bad_input', `${message}.`, { file: where.list, line: where.line });
}

/** The line without its comment: `//` anywhere, `#` at the start of a word (so `a#b` stays a path). */
function stripComment(line: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    if (!quoted && c === '/' && line[i + 1] === '/') break;
    if (!quoted && c === '#' && (i === 0 || /\s/.test(line[i - 1]))) break;
    out += c;
  }
  return out;
}

/** Words of a line; double quotes keep spaces in a path. */
export function words(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2]);
  return out;
}

function expandEnv(text: string, env: Record<string, string | undefined>, where: Where): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_all, braced: string | undefined, bare: string | undefined) => {
      const name = braced ?? bare ?? '';
      const value = env[name];
      if (value === undefined)
        throw lineError(where, `Environment variable ${name} is not set: set it or write the path out`);
      return value;
    },
  );
}

/** 'other' is a device, FIFO or socket: never read (a device never ends, a FIFO blocks), so never listed. */
async function kindOf(path: string): Promise<'file' | 'dir' | 'other' | undefined> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? 'dir' : s.isFile() ? 'file' : 'other';
  } catch {
    return undefined;
  }
}

const NOT_REGULAR = 'is a device, FIFO or socket, not a regular file: name the file itself';

/** A design with nothing in it yet. */
export function emptyFilelist(): Filelist {
  return {
    files: [],
    includeDirs: [],
    defines: {},
    libraryFiles: [],
    libraryDirs: [],
    libraryExtensions: [],
    lists: [],
  };
}

/**
 * The text of a design file: the top one given (`from` undefined: the error names the file itself) or one a design
 * file names on a line (the error names that line). `what` names the kind of file in messages.
 */
export async function readDesignText(path: string, what: string, from?: Where): Promise<string> {
  const kind = await kindOf(path);
  if (kind !== 'file') {
    const why =
      kind === 'dir' ? `is a folder, not a ${what}` : kind === 'other' ? NOT_REGULAR : 'does not exist: check the path';
    if (!from)
      throw new ChorusError('bad_input', kind === undefined ? `No such ${what}: check the path.` : `This ${why}.`, {
        file: path,
      });
    throw lineError(from, `${what[0].toUpperCase()}${what.slice(1)} ${path} ${why}`);
  }
  try {
    return (await readUserFile(path, { maxBytes: MAX_LIST_BYTES, what })).toString('utf8');
  } catch (err) {
    const message = `Cannot read ${what} ${path} (${(err as Error).message})`;
    throw from ? lineError(from, message) : new ChorusError('bad_input', `${message}.`, { file: path }, { cause: err });
  }
}

/** Reads `.f` lists into one design; the project readers (`src/hdl/project`) feed it their words and paths too. */
export class FilelistReader {
  readonly result: Filelist = emptyFilelist();
  private readonly stack: string[] = [];

  constructor(
    private readonly cwd: string,
    private readonly env: Record<string, string | undefined>,
  ) {}

  async read(list: string, base: string, from?: Where): Promise<void> {
    const where = from ?? { list, line: 0 };
    if (this.stack.includes(list))
      throw lineError(
        where,
        `Filelist ${list} includes itself (${[...this.stack, list].join(' -> ')}): remove the loop`,
      );
    if (this.stack.length >= MAX_DEPTH)
      throw lineError(where, `Filelists nest deeper than ${MAX_DEPTH} levels: flatten them`);
    const text = await readDesignText(list, 'filelist', from);
    if (!this.result.lists.includes(list)) this.result.lists.push(list);
    this.stack.push(list);
    try {
      const lines = text.split(/\r?\n/);
      for (let i = 0; i < lines.length; i++)
        await this.line(words(stripComment(lines[i])), { list, line: i + 1 }, base);
    } finally {
      this.stack.pop();
    }
  }

  /** One line's words: `base` is the folder its relative paths resolve against. */
  async line(tokens: string[], where: Where, base: string): Promise<void> {
    for (let i = 0; i < tokens.length; i++) {
      const token = expandEnv(tokens[i], this.env, where);
      const argument = (): string => {
        const next = tokens[++i];
        if (next === undefined) throw lineError(where, `${token} needs an argument on the same line`);
        return expandEnv(next, this.env, where);
      };
      if (token === '-f' || token === '-F') {
        const path = argument();
        const nested = resolve(token === '-f' ? this.cwd : base, path);
        await this.read(nested, token === '-F' ? dirname(nested) : this.cwd, where);
      } else if (token === '-v') {
        add(this.result.libraryFiles, await this.existing(argument(), base, where, 'file'));
      } else if (token === '-y') {
        add(this.result.libraryDirs, await this.existing(argument(), base, where, 'dir'));
      } else if (token.startsWith('+incdir+')) {
        for (const dir of plusList(token, '+incdir+', where))
          add(this.result.includeDirs, await this.existing(dir, base, where, 'dir'));
      } else if (token.startsWith('+define+')) {
        for (const def of plusList(token, '+define+', where)) {
          const eq = def.indexOf('=');
          const name = eq < 0 ? def : def.slice(0, eq);
          if (!/^[A-Za-z_][A-Za-z0-9_$]*$/.test(name))
            throw lineError(where, `'${name}' is not a macro name in ${token}`);
          this.result.defines[name] = eq < 0 ? undefined : def.slice(eq + 1);
        }
      } else if (token.startsWith('+libext+')) {
        for (const ext of plusList(token, '+libext+', where))
          add(this.result.libraryExtensions, ext.startsWith('.') ? ext : `.${ext}`);
      } else if (token.startsWith('-I') && token.length > 2) {
        add(this.result.includeDirs, await this.existing(token.slice(2), base, where, 'dir'));
      } else if (token.startsWith('-D') && token.length > 2) {
        const def = token.slice(2);
        const eq = def.indexOf('=');
        this.result.defines[eq < 0 ? def : def.slice(0, eq)] = eq < 0 ? undefined : def.slice(eq + 1);
      } else if (token.startsWith('-') || token.startsWith('+')) {
        throw lineError(
          where,
          `Unknown filelist option ${token}: CHORUS reads source paths, -f, -F, -v, -y, +incdir+, +define+ and +libext+`,
        );
      } else {
        add(this.result.files, await this.existing(token, base, where, 'file'));
      }
    }
  }

  /** `path` (absolute, or relative to `base`) when it is a `want`; else an error on `where`. */
  async existing(path: string, base: string, where: Where, want: 'file' | 'dir'): Promise<string> {
    const full = isAbsolute(path) ? path : resolve(base, path);
    const kind = await kindOf(full);
    if (kind === want) return full;
    if (kind === undefined)
      throw lineError(where, `${want === 'dir' ? 'Folder' : 'File'} ${full} does not exist: check the path`);
    if (kind === 'other') throw lineError(where, `${full} ${NOT_REGULAR}`);
    throw lineError(
      where,
      `${full} is a ${kind === 'dir' ? 'folder' : 'file'}, expected a ${want === 'dir' ? 'folder' : 'file'}`,
    );
  }
}

export function add(list: string[], item: string): void {
  if (!list.includes(item)) list.push(item);
}

/** `+incdir+a+b` → [a, b]; an empty list is an error. */
function plusList(token: string, prefix: string, where: Where): string[] {
  const items = token.slice(prefix.length).split('+').filter(Boolean);
  if (!items.length) throw lineError(where, `${prefix} names nothing`);
  return items;
}

/**
 * Reads a `.f` filelist (and the lists it nests). `path` is absolute; the list's paths resolve against `cwd` (as a
 * top-level `-f`). `readFilelist` (`src/hdl/project`) picks this reader or a project file's.
 */
export async function readDotFilelist(path: string, opts: FilelistOptions = {}): Promise<Filelist> {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const reader = new FilelistReader(cwd, opts.env ?? process.env);
  await reader.read(resolve(cwd, path), cwd);
  return reader.result;
}
