/**
 * Verilator before 5.018 cuts a file name at its first space: it re-reads the `line directives its own
 * preprocessor writes, and that parser stops at whitespace (FileLine::lineDirective). Every token of
 * `My Projects/dut.sv` then lies in a file `My`: in diagnostics, in __verFiles.dat and in coverage.dat. So a
 * source or include folder whose path has whitespace (or a `"`, which no version carries) is given to Verilator
 * as a symbolic link without them, in a private temporary folder:
 * `<tmp>/chorus-paths-XXXXXX/<hash of the real path>/<base name, whitespace as _>`. What Verilator prints or
 * records is mapped back: by the caller that made the links, and by readers that know only the real paths
 * (coverage.dat of a cached simulator, the simulator's messages), which recognise a link by its hash.
 * Paths without whitespace are passed as they are, on every Verilator, so ordinary builds do not change.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';

const LINK_FOLDER = 'chorus-paths-';
/** A link's folder and name as it appears at the end of a path Verilator printed: hash, then base name. */
const LINK_TAIL = new RegExp(`/${LINK_FOLDER}[^/]+/([0-9a-f]{16}/[^/]+)$`);
/** Options whose value is something Verilator writes or a name, never a source to link. */
const VALUE_OPTIONS = new Set([
  '--Mdir',
  '-Mdir',
  '-o',
  '--prefix',
  '--top-module',
  '--xml-output',
  '--json-only-output',
]);

/** True for a path Verilator may not carry intact. */
export function needsLink(path: string): boolean {
  return /[\s"]/.test(path);
}

function hashOf(path: string): string {
  return createHash('sha256').update(resolve(path)).digest('hex').slice(0, 16);
}

/** The link's base name: the real one with whitespace and quotes made `_`, so the extension is kept. */
export function linkBase(path: string): string {
  return basename(path).replace(/[\s"]/g, '_');
}

/** The end of the link for `path`: `<hash of the path>/<link base name>`, the same from every build. */
export function linkTail(path: string): string {
  return `${hashOf(path)}/${linkBase(path)}`;
}

export interface VerilatorArgs {
  /** The arguments with linked paths in place of the real ones. */
  args: string[];
  /** The folder holding the links (a jail must show it), undefined when nothing was linked. */
  root?: string;
  /** A path as Verilator printed or recorded it, with a link (or a file inside a linked folder) made real. */
  real(printed: string): string;
  /** Text, such as a message, with every link in it replaced by its real path. */
  realText(text: string): string;
  /** Removes the links (after Verilator has finished). */
  dispose(): Promise<void>;
}

const unchanged = (args: string[]): VerilatorArgs => ({
  args,
  real: (p) => p,
  realText: (t) => t,
  dispose: async () => undefined,
});

/**
 * Links every existing absolute source or include folder in `args` (`/path`, `-I/path`) that needs it, in a new
 * folder under `under` (default: the system's temporary folder; that one when `under` has whitespace itself).
 * When nothing needs a link, or no folder without whitespace is at hand, the arguments come back as they are.
 */
export async function linkForVerilator(args: string[], under?: string): Promise<VerilatorArgs> {
  const wanted = new Set<string>();
  args.forEach((a, i) => {
    if (VALUE_OPTIONS.has(args[i - 1] ?? '')) return;
    const path = a.startsWith('-I') ? a.slice(2) : a;
    if (path.startsWith('/') && needsLink(path)) wanted.add(path);
  });
  const parent = [under, tmpdir()].find((d) => d !== undefined && !needsLink(d));
  if (!wanted.size || !parent) return unchanged(args);
  const root = await mkdtemp(join(parent, LINK_FOLDER));
  const links = new Map<string, string>();
  try {
    for (const path of wanted) {
      if (!(await stat(path).catch(() => undefined))) continue;
      const link = join(root, linkTail(path));
      await mkdir(join(link, '..'), { recursive: true });
      await symlink(path, link);
      links.set(path, link);
    }
  } catch (err) {
    await rm(root, { recursive: true, force: true });
    throw err;
  }
  const linked = args.map((a, i) => {
    if (VALUE_OPTIONS.has(args[i - 1] ?? '')) return a;
    if (a.startsWith('-I') && links.has(a.slice(2))) return `-I${links.get(a.slice(2))}`;
    return links.get(a) ?? a;
  });
  // Longest first, so a link is never replaced by way of a shorter one that starts it.
  const back = [...links].map(([path, link]) => [link, path] as const).sort((a, b) => b[0].length - a[0].length);
  return {
    args: linked,
    root,
    real: (printed) => {
      for (const [link, path] of back)
        if (printed === link || printed.startsWith(`${link}/`)) return path + printed.slice(link.length);
      return printed;
    },
    realText: (text) => back.reduce((t, [link, path]) => t.split(link).join(path), text),
    dispose: () => rm(root, { recursive: true, force: true }),
  };
}

/**
 * For readers that know only the real paths: the one of `paths` whose link `printed` is (by its hash and base
 * name, from whichever build made it), else undefined.
 */
export function linkedFileOf(paths: string[]): (printed: string) => string | undefined {
  let byTail: Map<string, string> | undefined;
  return (printed) => {
    const tail = LINK_TAIL.exec(printed)?.[1];
    if (!tail) return undefined;
    if (!byTail) {
      byTail = new Map();
      for (const p of paths) {
        byTail.set(linkTail(p), p);
        // The build names a file by its resolved path; a caller may hold a path through a linked folder.
        const real = realOrSelf(p);
        if (!byTail.has(linkTail(real))) byTail.set(linkTail(real), p);
      }
    }
    return byTail.get(tail);
  };
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}
