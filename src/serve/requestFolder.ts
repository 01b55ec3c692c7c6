/**
 * Where a request's files are written. The build cache is keyed by the files' paths as well as their text
 * (coverage.dat records paths), so a design's files go into one folder named by the design's content, shared by every
 * request for that design while one is using it, and a testbench goes beside them under a name made from its own
 * content: a batch of rollouts for one design pays one cold build, and the same testbench twice is a cache hit.
 * Names are validated (the schema's pattern, checked again on the joined path); nothing is written outside the
 * server's own folder; files are removed when the last request using them ends.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { ChorusError, SERVE_FILE_NAME } from '../protocol';

const NAME = new RegExp(SERVE_FILE_NAME);

export interface RequestFolder {
  /** The design's folder: the sandbox's workspace root. */
  dir: string;
  /** The absolute path of a file the request named (its testbench's hidden, content-named one for the testbench). */
  path(name: string): string;
  /** A path as the request named it (other paths as they are). */
  display(file: string): string;
  /** Text with every path of the request's files written as the request named them. */
  named(text: string): string;
  dispose(): Promise<void>;
}

interface Shared {
  ready: Promise<void>;
  users: number;
}

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** Refcounted paths: made once by the first user, removed when the last one leaves. */
class SharedPaths {
  private readonly entries = new Map<string, Shared>();
  private readonly removing = new Map<string, Promise<void>>();

  async use(path: string, make: () => Promise<void>): Promise<() => Promise<void>> {
    let entry = this.entries.get(path);
    if (!entry) {
      const before = this.removing.get(path) ?? Promise.resolve();
      entry = { ready: before.then(make), users: 0 };
      this.entries.set(path, entry);
    }
    entry.users += 1;
    const mine = entry;
    const leave = async () => {
      mine.users -= 1;
      if (mine.users > 0 || this.entries.get(path) !== mine) return;
      this.entries.delete(path);
      const gone = rm(path, { recursive: true, force: true }).finally(() => {
        if (this.removing.get(path) === gone) this.removing.delete(path);
      });
      this.removing.set(path, gone);
      await gone;
    };
    try {
      await mine.ready;
    } catch (err) {
      await leave();
      throw err;
    }
    return leave;
  }
}

/** The server's folder of request files (one per server process), removed with `close`. */
export class RequestFolders {
  private readonly shared = new SharedPaths();
  private constructor(readonly root: string) {}

  static async create(): Promise<RequestFolders> {
    return new RequestFolders(await mkdtemp(join(tmpdir(), 'chorus-serve-')));
  }

  close(): Promise<void> {
    return rm(this.root, { recursive: true, force: true });
  }

  /**
   * Lays out a request: `files` but the testbench in the design's folder, the testbench beside them. Refuses a bad
   * name, a file the request names but did not send, a file that differs from its sha256.
   */
  async open(
    files: Record<string, string>,
    svFiles: string[],
    tb: string,
    sha256?: Record<string, string>,
  ): Promise<RequestFolder> {
    const sent = (name: string): string => {
      const text = Object.hasOwn(files, name) ? files[name] : undefined;
      if (text === undefined)
        throw new ChorusError('bad_input', `"${name}" is named but not in "files": send its text under that name.`);
      return text;
    };
    for (const name of svFiles) sent(name);
    const tbText = sent(tb);
    if (svFiles.includes(tb)) throw new ChorusError('bad_input', `"${tb}" is both the testbench and a design file.`);
    for (const [name, digest] of Object.entries(sha256 ?? {})) {
      const text = files[name];
      if (text !== undefined && sha(text) !== digest.toLowerCase())
        throw new ChorusError('bad_input', `"${name}" does not match its inputs_sha256: send the file unaltered.`);
    }
    const design = Object.entries(files)
      .filter(([name]) => name !== tb)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const dir = join(this.root, sha(JSON.stringify([svFiles, design])).slice(0, 24));
    const inside = (name: string) => {
      const full = resolve(dir, name);
      // The schema's pattern already refuses `..` and absolute names; this holds even if it did not.
      if (!NAME.test(name) || !full.startsWith(dir + sep))
        throw new ChorusError('bad_input', `"${name}" is not a plain relative file name: use names like rtl/top.sv.`);
      return full;
    };
    // A name no request file can have (they never start with a dot), in the testbench's own folder.
    const tbHidden = join(dirname(inside(tb)), `.tb-${sha(tbText).slice(0, 16)}-${basename(tb)}`);
    const leaveDesign = await this.shared.use(dir, () => writeAll(dir, design, inside));
    let leaveTb: () => Promise<void>;
    try {
      leaveTb = await this.shared.use(tbHidden, () => writeAtomic(tbHidden, tbText));
    } catch (err) {
      await leaveDesign();
      throw err;
    }
    const display = (file: string) => {
      const full = resolve(file);
      if (full === tbHidden) return tb;
      const rel = relative(dir, full);
      return rel.startsWith('..') ? file : rel;
    };
    return {
      dir,
      path: (name) => (name === tb ? tbHidden : inside(name)),
      display,
      named: (text) => text.replaceAll(tbHidden, tb).replaceAll(`${dir}/`, '').replaceAll(basename(tbHidden), tb),
      dispose: async () => {
        await leaveTb();
        await leaveDesign();
      },
    };
  }
}

async function writeAll(dir: string, files: [string, string][], inside: (name: string) => string): Promise<void> {
  try {
    for (const [name, text] of files) await writeAtomic(inside(name), text);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    if (err instanceof ChorusError) throw err;
    // Two names that clash on disk (`a` and `a/b.sv`).
    throw new ChorusError('bad_input', `The request's files could not be laid out: ${(err as Error).message}.`);
  }
}

async function writeAtomic(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.part`;
  await writeFile(tmp, text, { flag: 'wx' });
  await rename(tmp, path);
}
