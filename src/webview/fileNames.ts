/**
 * Short file names for the panel: results carry absolute paths; a row shows the base name, or as many trailing
 * folders as tell apart two files of the same base name. String operations only (this runs in a browser).
 */
function segments(path: string): string[] {
  return path.split(/[\\/]/).filter(Boolean);
}

/** A namer for a set of paths: each by its shortest unique tail of path segments. */
export function shortNames(paths: readonly string[]): (path: string) => string {
  const all = [...new Set(paths)].map(segments);
  return (path) => {
    const mine = segments(path);
    for (let n = 1; n < mine.length; n++) {
      const tail = mine.slice(-n).join('/');
      if (all.every((s) => s.join('/') === mine.join('/') || s.slice(-n).join('/') !== tail)) return tail;
    }
    return mine.join('/') || path;
  };
}
