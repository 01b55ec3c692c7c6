/**
 * The one reader of a design file, whatever its format: a `.f` filelist, a Bender manifest, a FuseSoC core,
 * `.slang/server.json` or `verible.filelist` (told apart by name, `designFileKind`). Each yields the same `Filelist`:
 * files in order, include folders, macros, libraries, and every file read.
 */
import { dirname, resolve } from 'node:path';
import { designFileKind } from '../../protocol';
import { readDotFilelist, type Filelist, type FilelistOptions } from '../filelist';
import { readBender } from './bender';
import { readFusesoc } from './fusesoc';
import { readSlang } from './slang';

/** Reads a design file. `path` is relative to `cwd`, as a top-level `-f` is; a project file's paths are its own. */
export async function readFilelist(path: string, opts: FilelistOptions = {}): Promise<Filelist> {
  const full = resolve(opts.cwd ?? process.cwd(), path);
  switch (designFileKind(full)) {
    case 'bender':
      return readBender(full, opts);
    case 'fusesoc':
      return readFusesoc(full, opts);
    case 'slang':
      return readSlang(full, opts);
    case 'verible':
      // Verible's list: one path per line (and +incdir+/+define+), relative to the list's own folder.
      return readDotFilelist(full, { ...opts, cwd: dirname(full) });
    case 'filelist':
      return readDotFilelist(full, opts);
  }
}
