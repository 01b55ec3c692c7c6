/**
 * Bender manifests (`Bender.yml`, pulp-platform/bender), read as `bender script` flattens them: the dependencies'
 * sources first (a package after the packages it depends on), then the package's own; each source group kept when
 * its `target` holds, with its `include_dirs` and `defines`; every package's `export_include_dirs`; and a
 * `TARGET_<NAME>` macro per active target, as Bender defines them. Paths are relative to the manifest's folder.
 */
import { dirname, extname, join, resolve } from 'node:path';
import { readdir, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { add, FilelistReader, lineError, readDesignText, type Filelist, type FilelistOptions } from '../filelist';
import { expandGlob, isGlob } from './glob';
import { activeTargets, matches, parseTarget } from './targets';
import { at, field, items, needText, parseTree, text, type Node } from './tree';

/** Source types CHORUS compiles; VHDL files of a mixed package are left out (Verilator reads no VHDL). */
const VHDL = new Set(['.vhd', '.vhdl']);
const TYPED_FILE_KEYS = new Set(['sv', 'v', 'vhd']);
const GROUP_KEYS = new Set(['target', 'include_dirs', 'defines', 'files', 'external_flists', 'override_files']);

interface Package {
  name: string;
  file: string;
  dir: string;
  tree: Node;
}

class BenderReader {
  readonly out: Filelist;
  private readonly active: Set<string>;
  private readonly flists: FilelistReader;

  constructor(opts: FilelistOptions) {
    this.active = activeTargets(opts.targets);
    this.flists = new FilelistReader(process.cwd(), opts.env ?? process.env);
    this.out = this.flists.result;
  }

  async manifest(file: string, from?: { list: string; line: number }): Promise<Package> {
    const tree = parseTree(await readDesignText(file, 'Bender manifest', from), file);
    add(this.out.lists, file);
    const name = text(field(field(tree, 'package'), 'name'));
    if (!name) throw lineError(at(file, tree), 'A Bender manifest needs package: name: (Bender requires it)');
    return { name, file, dir: dirname(file), tree };
  }

  /** Whether the `target:` of `node` (absent: always) holds; a bad expression names its line. */
  holds(pkg: Package, node: Node | undefined): boolean {
    if (!node) return true;
    const expr = needText(pkg.file, node, 'a target expression');
    try {
      return matches(parseTarget(expr), this.active);
    } catch (err) {
      throw lineError(
        at(pkg.file, node),
        `Unknown target expression '${expr}' (${(err as Error).message}): Bender reads names, *, all(…), any(…) and not(…)`,
      );
    }
  }

  async includeDirs(pkg: Package, node: Node | undefined): Promise<void> {
    for (const item of items(node)) {
      const dir = item.kind === 'map' ? field(item, 'dir') : item;
      if (item.kind === 'map' && !this.holds(pkg, field(item, 'target'))) continue;
      if (!dir) throw lineError(at(pkg.file, item), 'An include folder entry needs dir:');
      const path = needText(pkg.file, dir, 'a folder path');
      add(this.out.includeDirs, await this.flists.existing(path, pkg.dir, at(pkg.file, dir), 'dir'));
    }
  }

  defines(pkg: Package, node: Node | undefined): void {
    if (!node) return;
    if (node.kind !== 'map') throw lineError(at(pkg.file, node), 'defines: takes NAME: value entries');
    for (const entry of node.entries) {
      let value: Node = entry.value;
      if (value.kind === 'map') {
        if (!this.holds(pkg, field(value, 'target'))) continue;
        value = field(value, 'value') ?? { kind: 'scalar', line: value.line, value: null };
      }
      if (!/^[A-Za-z_][A-Za-z0-9_$]*$/.test(entry.key))
        throw lineError(at(pkg.file, entry), `'${entry.key}' is not a macro name`);
      this.out.defines[entry.key] = text(value);
    }
  }

  async sourceFile(pkg: Package, node: Node): Promise<void> {
    const path = needText(pkg.file, node, 'a source path');
    const where = at(pkg.file, node);
    const found = isGlob(path) ? await expandGlob(path, pkg.dir) : [];
    if (isGlob(path) && !found.length)
      throw lineError(where, `${path} matches no file in ${pkg.dir}: check the pattern`);
    if (!isGlob(path)) found.push(await this.flists.existing(path, pkg.dir, where, 'file'));
    for (const f of found) if (!VHDL.has(extname(f).toLowerCase())) add(this.out.files, f);
  }

  /** One entry of `sources`/`files`: a path, a typed file (`sv: path`), or a group. */
  async source(pkg: Package, node: Node): Promise<void> {
    if (node.kind === 'scalar') return this.sourceFile(pkg, node);
    if (node.kind === 'seq') {
      for (const item of node.items) await this.source(pkg, item);
      return;
    }
    const keys = node.entries.map((e) => e.key);
    if (keys.length === 1 && TYPED_FILE_KEYS.has(keys[0])) {
      if (keys[0] === 'vhd') return;
      return this.sourceFile(pkg, node.entries[0].value);
    }
    const unknown = node.entries.find((e) => !GROUP_KEYS.has(e.key));
    if (unknown)
      throw lineError(
        at(pkg.file, unknown),
        `Unknown key '${unknown.key}' in a source group: Bender reads target, include_dirs, defines, files and external_flists`,
      );
    if (!this.holds(pkg, field(node, 'target'))) return;
    await this.includeDirs(pkg, field(node, 'include_dirs'));
    this.defines(pkg, field(node, 'defines'));
    for (const list of items(field(node, 'external_flists'))) {
      const path = resolve(pkg.dir, needText(pkg.file, list, 'a filelist path'));
      await this.flists.read(path, dirname(path), at(pkg.file, list));
    }
    for (const item of items(field(node, 'files'))) await this.source(pkg, item);
  }

  async sources(pkg: Package): Promise<void> {
    await this.includeDirs(pkg, field(pkg.tree, 'export_include_dirs'));
    for (const item of items(field(pkg.tree, 'sources'))) await this.source(pkg, item);
  }

  /** The TARGET_<NAME> macros Bender defines for the active targets. */
  targetMacros(): void {
    for (const t of [...this.active].sort())
      this.out.defines[`TARGET_${t.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`] = undefined;
  }

  /** The dependencies `pkg` names whose `target:` holds, with the line naming each. */
  dependencies(pkg: Package): { name: string; node: Node; path?: string | undefined }[] {
    const deps = field(pkg.tree, 'dependencies');
    if (!deps || deps.kind !== 'map') return [];
    return deps.entries
      .filter((e) => e.value.kind !== 'map' || this.holds(pkg, field(e.value, 'target')))
      .map((e) => ({ name: e.key, node: { ...e.value, line: e.line }, path: text(field(e.value, 'path')) }));
  }
}

async function isDir(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/**
 * Where `bender checkout` put a git dependency: `workspace: checkout_dir:` when the root sets it, else
 * `.bender/git/checkouts/<name>-<hash>`, the hash the first 16 hex digits of BLAKE2b-512 over the URL and the root
 * package's name quoted (Bender's `get_depsource_path`). A lone `<name>-*` checkout is taken when the hash differs
 * (another Bender version's naming).
 */
async function checkoutOf(root: Package, name: string, url: string): Promise<string> {
  const custom = text(field(field(root.tree, 'workspace'), 'checkout_dir'));
  if (custom) return resolve(root.dir, custom, name);
  const hash = createHash('blake2b512').update(url).update(JSON.stringify(root.name)).digest('hex').slice(0, 16);
  const checkouts = join(root.dir, '.bender', 'git', 'checkouts');
  const exact = join(checkouts, `${name}-${hash}`);
  if (await isDir(exact)) return exact;
  const others = (await readdir(checkouts).catch(() => [] as string[])).filter((d) =>
    new RegExp(`^${name.replace(/[^A-Za-z0-9_]/g, '\\$&')}-[0-9a-f]{16}$`).test(d),
  );
  return others.length === 1 ? join(checkouts, others[0]) : exact;
}

/** Reads a Bender manifest, its dependencies from Bender.lock and their checkouts. */
export async function readBender(file: string, opts: FilelistOptions = {}): Promise<Filelist> {
  const reader = new BenderReader(opts);
  const root = await reader.manifest(file);
  const lockFile = join(root.dir, 'Bender.lock');
  let lock: Node | undefined;
  const order: Package[] = [];
  const seen = new Set<string>();
  const visit = async (pkg: Package): Promise<void> => {
    for (const dep of reader.dependencies(pkg)) {
      const key = dep.name.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      const where = at(pkg.file, dep.node);
      let dir: string;
      if (dep.path) dir = resolve(pkg.dir, dep.path);
      else {
        if (!lock) {
          const lockText = await readDesignText(lockFile, 'Bender lockfile').catch(() => undefined);
          if (lockText === undefined)
            throw lineError(
              where,
              `${dep.name} is a dependency and ${lockFile} does not exist: run \`bender checkout\` in ${root.dir} (it resolves the dependencies and checks them out under .bender/), then try again`,
            );
          lock = parseTree(lockText, lockFile);
          add(reader.out.lists, lockFile);
        }
        const entry = field(field(lock, 'packages'), dep.name);
        if (!entry)
          throw lineError(
            where,
            `${dep.name} is not in ${lockFile}: run \`bender update\` and \`bender checkout\` in ${root.dir}`,
          );
        const source = field(entry, 'source');
        // Bender writes the variant capitalised (`Git:`, `Path:`); its book writes it in lower case.
        const localPath = text(field(source, 'Path') ?? field(source, 'path'));
        const url = text(field(source, 'Git') ?? field(source, 'git'));
        if (localPath) dir = resolve(root.dir, localPath);
        else if (url) dir = await checkoutOf(root, dep.name, url);
        else throw lineError(at(lockFile, entry), `${dep.name} has no source: git: or path: in the lockfile`);
      }
      const manifest = join(dir, 'Bender.yml');
      const checkedOut = await stat(manifest).then(
        (s) => s.isFile(),
        () => false,
      );
      if (!checkedOut)
        throw lineError(
          where,
          `${dep.name} is not checked out (no ${manifest}): run \`bender checkout\` in ${root.dir}, then try again`,
        );
      const child = await reader.manifest(manifest, where);
      await visit(child);
      order.push(child);
    }
  };
  await visit(root);
  for (const pkg of [...order, root]) await reader.sources(pkg);
  reader.targetMacros();
  return reader.out;
}
