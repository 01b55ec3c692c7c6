/**
 * The design files CHORUS reads besides `.f` filelists, told apart by name: one table that the reader
 * (`src/hdl/project`) and the editor's filelist discovery both use, so a format is recognised the same way wherever
 * a design file is given (`--filelist`, `chorus.filelist`, or found in the workspace).
 */

/** `filelist`: an EDA `.f` list (and anything not named below, as simulators read any `-f` file). */
export type DesignFileKind = 'filelist' | 'bender' | 'fusesoc' | 'slang' | 'verible';

/** The last path segment, for `/` and `\` paths alike (the browser bundle has no `node:path`). */
function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/** Which reader a design file takes, by its name alone. Pure. */
export function designFileKind(path: string): DesignFileKind {
  const name = baseName(path);
  if (name === 'Bender.yml') return 'bender';
  if (name.endsWith('.core')) return 'fusesoc';
  if (name === 'verible.filelist') return 'verible';
  const parent = baseName(path.slice(0, path.length - name.length - 1));
  if (name === 'server.json' && parent === '.slang') return 'slang';
  return 'filelist';
}

/** The glob discovery searches a workspace folder with: `.f` lists and every project file above. */
export const DESIGN_FILE_GLOB = '**/{*.f,Bender.yml,*.core,verible.filelist,.slang/server.json}';

/**
 * Folders discovery never searches: dependencies and version control, and the checkouts of Bender (`.bender`) and
 * FuseSoC (`fusesoc_libraries`), whose manifests describe the dependencies rather than the user's design.
 */
export const DESIGN_FILE_EXCLUDE = '{**/node_modules/**,**/.git/**,**/.bender/**,**/fusesoc_libraries/**}';
