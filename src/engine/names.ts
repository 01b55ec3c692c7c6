/** How text for people and the model names the design's files: made where text is rendered, never stored. */
import { basename, dirname, relative, sep } from 'node:path';

/**
 * A namer for the files of one design: a DUT file by its base name, unless two DUT files share it, then by its
 * path from the folder all DUT files have in common (`a/fifo.sv`, `b/fifo.sv`). Other files (a testbench in the
 * run folder) by their base name.
 */
export function designNames(dutFiles: readonly string[]): (file: string) => string {
  const count = new Map<string, number>();
  for (const f of dutFiles) count.set(basename(f), (count.get(basename(f)) ?? 0) + 1);
  const root = commonFolder(dutFiles);
  return (file) => {
    if ((count.get(basename(file)) ?? 0) < 2 || !dutFiles.includes(file)) return basename(file);
    return root ? relative(root, file) : file;
  };
}

function commonFolder(files: readonly string[]): string | undefined {
  if (!files.length) return undefined;
  let parts = dirname(files[0]).split(sep);
  for (const f of files.slice(1)) {
    const other = dirname(f).split(sep);
    let i = 0;
    while (i < parts.length && i < other.length && parts[i] === other[i]) i++;
    parts = parts.slice(0, i);
  }
  const root = parts.join(sep);
  return root || (parts.length ? sep : undefined);
}
