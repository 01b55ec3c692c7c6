/**
 * Specification files found beside the design when the user named none: `<name>.md` / `<name>.txt` next to an RTL
 * file or named after the top module, or a file in a `spec/` or `docs/` folder there whose name contains the
 * top module's name. The model reads them as the trained prompt's spec files.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

const SPEC_EXTENSIONS = new Set(['.md', '.txt', '.rst', '.adoc']);
/** A spec larger than this is not a spec the prompt can carry; it is skipped. */
const MAX_SPEC_BYTES = 64 * 1024;
const MAX_SPECS = 4;

async function isSmallFile(path: string): Promise<boolean> {
  try {
    const s = await stat(path);
    return s.isFile() && s.size > 0 && s.size <= MAX_SPEC_BYTES;
  } catch {
    return false;
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

export async function findSpecFiles(rtlFiles: string[], top: string): Promise<string[]> {
  const found: string[] = [];
  const add = async (path: string) => {
    if (!found.includes(path) && found.length < MAX_SPECS && (await isSmallFile(path))) found.push(path);
  };
  const topName = top.toLowerCase();
  for (const dir of [...new Set(rtlFiles.map((f) => dirname(f)))]) {
    const stems = [
      ...new Set([top, ...rtlFiles.filter((f) => dirname(f) === dir).map((f) => basename(f, extname(f)))]),
    ];
    for (const stem of stems) for (const ext of ['.md', '.txt']) await add(join(dir, `${stem}${ext}`));
    for (const sub of ['spec', 'docs']) {
      for (const name of await listDir(join(dir, sub))) {
        if (SPEC_EXTENSIONS.has(extname(name).toLowerCase()) && name.toLowerCase().includes(topName))
          await add(join(dir, sub, name));
      }
    }
  }
  return found;
}
