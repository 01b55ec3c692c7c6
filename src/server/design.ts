/**
 * The design a document belongs to, from the design settings: the filelist's sources (when it lists the
 * document), and the include folders, macros and top parameters of the filelist and the settings together.
 * Relative paths are relative to the document's workspace folder, which is also the working folder a top-level
 * filelist is read from (as a simulator started there reads it).
 */
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { libraryFilesNeeded, readFilelist, readSourceText, type Filelist } from '../engine';
import { ChorusError, designFileKind, type DesignSettings } from '../protocol';

export interface ResolvedDesign {
  /** The filelist's sources (absolute, in its order) when it lists the document; else none (the document and its siblings). */
  files?: string[];
  includeDirs: string[];
  defines: Record<string, string | undefined>;
  parameters: Record<string, string>;
  /** The filelist read (absolute), when one is set. */
  filelist?: string;
  /** `chorus.waiverFile` (absolute), when set. */
  waiverFile?: string;
  /** `chorus.regressionCoverage` (absolute); empty when none. */
  regression: string[];
}

/** The workspace folder (absolute path) holding `file`: the innermost one; undefined when it is in none. */
export function folderOf(file: string, folders: readonly string[]): string | undefined {
  const inside = folders.filter((f) => {
    const rel = relative(f, file);
    return !rel.startsWith('..') && !isAbsolute(rel);
  });
  return inside.sort((a, b) => b.length - a.length)[0];
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Reads a filelist as a simulator started in the workspace folder reads it (`-f`); a list whose paths do not resolve
 * there is read as `-F` reads it, relative to its own folder. The first way's error is the one reported.
 */
export async function readWorkspaceFilelist(
  list: string,
  folder: string | undefined,
  targets: readonly string[] = [],
): Promise<Filelist> {
  const own = dirname(list);
  try {
    return await readFilelist(list, { cwd: folder ?? own, targets });
  } catch (err) {
    // A project file's paths are its own: the working folder changes nothing, so it is read once.
    if (!folder || folder === own || designFileKind(list) !== 'filelist') throw err;
    return readFilelist(list, { cwd: own, targets }).catch(() => {
      throw err;
    });
  }
}

/** A filelist error as the user should read it: the list and line when it has them, and the setting it came from. */
function filelistError(err: unknown, list: string, setting: string): unknown {
  if (!(err instanceof ChorusError) || err.kind !== 'bad_input') return err;
  if (err.location?.file === list && err.location.line === undefined) {
    return new ChorusError(
      'bad_input',
      `chorus.filelist names ${setting}, which is no filelist or project file here (${err.message}): fix the path (relative to the workspace folder) in the workspace settings, or clear it.`,
      { file: list },
      { cause: err },
    );
  }
  return new ChorusError(
    'bad_input',
    `${err.message.replace(/\.$/, '')} (in the filelist of the chorus.filelist setting: fix the list).`,
    err.location,
    { cause: err },
  );
}

/**
 * Reads the design settings for `document` (absolute). `folder` is its workspace folder; relative paths resolve
 * against it (against the document's own folder when it is in none, and a filelist's paths against its folder). Bad settings or a bad filelist are a
 * ChorusError('bad_input') naming the setting, or the list and line.
 */
export async function resolveDesign(
  settings: DesignSettings,
  document: string,
  folder: string | undefined,
): Promise<ResolvedDesign> {
  const base = folder ?? dirname(document);
  const out: ResolvedDesign = {
    includeDirs: [],
    defines: {},
    parameters: { ...settings.topParameters },
    regression: settings.regressionCoverage.map((f) => resolve(base, f)),
    ...(settings.waiverFile ? { waiverFile: resolve(base, settings.waiverFile) } : {}),
  };
  if (settings.filelist) {
    const list = resolve(base, settings.filelist);
    const fl = await readWorkspaceFilelist(list, folder, settings.projectTargets).catch((err: unknown) => {
      throw filelistError(err, list, settings.filelist);
    });
    out.filelist = list;
    if (fl.files.includes(document)) {
      // Only the -v/-y library files whose modules the sources use are compiled, as a simulator resolves them.
      const needed = await libraryFilesNeeded(
        fl.files,
        { files: fl.libraryFiles, dirs: fl.libraryDirs, extensions: fl.libraryExtensions },
        readSourceText,
        (f) =>
          stat(f).then(
            (st) => st.isFile(),
            () => false,
          ),
      );
      out.files = [...fl.files, ...needed.files.filter((f) => !fl.files.includes(f))];
    }
    out.includeDirs.push(...fl.includeDirs);
    Object.assign(out.defines, fl.defines);
  }
  for (const dir of settings.includeDirs) {
    const full = resolve(base, dir);
    if (!(await isFolder(full))) {
      throw new ChorusError(
        'bad_input',
        `chorus.includeDirs names ${dir}, and ${full} is no folder: fix the path (relative to the workspace folder) in the workspace settings.`,
      );
    }
    if (!out.includeDirs.includes(full)) out.includeDirs.push(full);
  }
  Object.assign(out.defines, settings.defines);
  return out;
}

/** True when the design settings add nothing (no filelist, folders, macros or parameters). */
export function isPlainDesign(d: ResolvedDesign): boolean {
  return !d.filelist && !d.includeDirs.length && !Object.keys(d.defines).length && !Object.keys(d.parameters).length;
}

/**
 * The resolved design per document for the editor features (analysis, diagnostics), kept a few seconds and
 * dropped when the settings change. A bad setting or filelist gives no design (the text is read as written) and
 * is reported through `onProblem`; a run reads everything afresh and fails with the message instead.
 */
export class DocumentDesigns {
  private readonly cache = new Map<string, { at: number; design: Promise<ResolvedDesign | undefined> }>();

  constructor(
    private readonly settings: (uri: string) => Promise<DesignSettings>,
    private readonly folders: () => readonly string[],
    private readonly onProblem: (err: unknown) => void,
    private readonly onResolved: (design: ResolvedDesign) => void,
    /** A filelist edited on disk is read again after this long. */
    private readonly keepMs = 5000,
  ) {}

  get(uri: string, document: string): Promise<ResolvedDesign | undefined> {
    const hit = this.cache.get(uri);
    if (hit && Date.now() - hit.at < this.keepMs) return hit.design;
    const design = this.settings(uri)
      .then((s) => resolveDesign(s, document, folderOf(document, this.folders())))
      .then(
        (d) => {
          this.onResolved(d);
          return d;
        },
        (err: unknown) => {
          this.onProblem(err);
          return undefined;
        },
      );
    this.cache.set(uri, { at: Date.now(), design });
    return design;
  }

  clear(): void {
    this.cache.clear();
  }
}
