/**
 * Which file defines which module, over a set of candidate files (a filelist, a design folder), each file
 * analysed on its own: a file that fails to analyse never hides another file's modules (its own `module`
 * headers are still indexed from the text), and a module the design needs that two files define is an
 * error naming both.
 */
import { ChorusError } from '../protocol';
import { join } from 'node:path';
import { analyzeFiles } from './files';

export interface ModuleIndex {
  /** Module name → the files (absolute) that define it. */
  definitions: Map<string, string[]>;
  /** Module name → the modules it instantiates (from the analysis; unknown for files that failed). */
  instances: Map<string, string[]>;
  /** Files that did not analyse cleanly, with the first problem: their modules are indexed from the text only. */
  failed: { file: string; message: string }[];
}

/** `module name` headers of a text the analysis could not read: comments and strings left out. */
function declaredModules(text: string): string[] {
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\/\/.*$/gm, '')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
  return [...code.matchAll(/^\s*(?:macro)?module\s+(?:automatic\s+|static\s+)?([A-Za-z_][\w$]*)/gm)].map((m) => m[1]);
}

export async function indexModules(files: string[], read: (file: string) => Promise<string>): Promise<ModuleIndex> {
  const index: ModuleIndex = { definitions: new Map(), instances: new Map(), failed: [] };
  const define = (name: string, file: string) => {
    const list = index.definitions.get(name) ?? [];
    if (!list.includes(file)) list.push(file);
    index.definitions.set(name, list);
  };
  for (const file of files) {
    let problem: string | undefined;
    try {
      const a = await analyzeFiles([file]);
      if (a.errors.length) problem = `${a.errors[0].line}:${a.errors[0].column}: ${a.errors[0].message}`;
      else {
        for (const m of a.modules) {
          define(m.name, file);
          index.instances.set(m.name, [
            ...new Set([...(index.instances.get(m.name) ?? []), ...m.instances.map((i) => i.module)]),
          ]);
        }
        continue;
      }
    } catch (err) {
      problem = err instanceof Error ? err.message : String(err);
    }
    index.failed.push({ file, message: problem ?? 'not analysed' });
    const text = await read(file).catch(() => '');
    for (const name of declaredModules(text)) define(name, file);
  }
  return index;
}

/**
 * The files `top` needs: its own and those of the modules it instantiates, transitively. A module of a file
 * that failed to analyse brings its file but not its own instances (Verilator finds what is missing).
 * Throws ChorusError('bad_input') when a needed module is defined in two files (unless one is `preferred`,
 * the document a run starts from).
 */
export function filesNeeded(index: ModuleIndex, top: string, preferred?: string): string[] {
  const files: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const defs = index.definitions.get(name);
    if (!defs?.length) return;
    // The document a run starts from defines its own modules: no ambiguity there.
    if (preferred && defs.includes(preferred)) {
      if (!files.includes(preferred)) files.push(preferred);
      (index.instances.get(name) ?? []).forEach(visit);
      return;
    }
    if (defs.length > 1) {
      throw new ChorusError(
        'bad_input',
        `Module '${name}' is defined in two files, ${defs[0]} and ${defs[1]}: keep one of them (or name the DUT files yourself).`,
        { file: defs[1] },
      );
    }
    if (!files.includes(defs[0])) files.push(defs[0]);
    (index.instances.get(name) ?? []).forEach(visit);
  };
  visit(top);
  return files;
}

/** `-v` library files and `-y` library folders (searched for `<module><extension>`), as a filelist gives them. */
export interface Libraries {
  files: string[];
  dirs: string[];
  /** With their dot; `.v` and `.sv` when none are given. */
  extensions: string[];
}

export interface LibraryResolution {
  /** The library files needed, in the order found. */
  files: string[];
  /**
   * Modules of the sources no source instantiates: the top candidates, which a library file's unused modules
   * (compiled with the file) must not add to.
   */
  sourceTops: string[];
}

/** Fails naming both files when a module is defined twice. */
function checkSingleDefinitions(index: ModuleIndex): void {
  for (const [name, defs] of index.definitions) {
    if (defs.length > 1)
      throw new ChorusError(
        'bad_input',
        `Module '${name}' is defined twice, in ${defs[0]} and ${defs[1]}: keep one of them.`,
        { file: defs[1] },
      );
  }
}

/**
 * The library files the sources need, as simulators resolve `-v`/`-y`: a module instantiated but not defined by
 * the sources is looked up in the `-v` files, then as `<name><ext>` in each `-y` folder; a file found brings the
 * modules it instantiates in turn. Modules of the sources win over a library's. Only the files of needed modules
 * are returned (in the order found). A module defined twice among the sources, or among the `-v` files, is an
 * error naming both files.
 */
export async function libraryFilesNeeded(
  sources: string[],
  libs: Libraries,
  read: (file: string) => Promise<string>,
  exists: (file: string) => Promise<boolean>,
): Promise<LibraryResolution> {
  const own = await indexModules(sources, read);
  checkSingleDefinitions(own);
  const used = new Set([...own.instances.values()].flat());
  const sourceTops = [...own.definitions.keys()].filter((m) => !used.has(m));
  if (!libs.files.length && !libs.dirs.length) return { files: [], sourceTops };
  const library = await indexModules(libs.files, read);
  checkSingleDefinitions(library);
  const extensions = libs.extensions.length ? libs.extensions : ['.v', '.sv'];
  const defined = new Set(own.definitions.keys());
  const wanted = [...own.instances.values()].flat();
  const added: string[] = [];
  const take = async (file: string) => {
    if (added.includes(file) || sources.includes(file)) return;
    added.push(file);
    const index = libs.files.includes(file) ? library : await indexModules([file], read);
    for (const [name, defs] of index.definitions) {
      if (!defs.includes(file)) continue;
      defined.add(name);
      wanted.push(...(index.instances.get(name) ?? []));
    }
  };
  while (wanted.length) {
    const name = wanted.shift()!;
    if (defined.has(name)) continue;
    const inFile = library.definitions.get(name)?.[0];
    if (inFile) {
      await take(inFile);
      continue;
    }
    found: for (const dir of libs.dirs) {
      for (const ext of extensions) {
        const candidate = join(dir, `${name}${ext}`);
        if (await exists(candidate)) {
          await take(candidate);
          break found;
        }
      }
    }
    // Still undefined: a primitive, an interface or a missing module; Verilator names what is missing.
    defined.add(name);
  }
  return { files: added, sourceTops };
}
