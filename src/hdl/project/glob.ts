/**
 * File globs as project files write them (`src/*.sv`, `src/**\/*.sv`, `rtl/fifo_?.v`, `[ab].sv`): `*` and `?` within
 * a path segment, `**` across segments. Matches are regular files, sorted by path (as Bender's glob crate returns them).
 */
import { readdir } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';

/** Whether `path` holds a glob character. */
export function isGlob(path: string): boolean {
  return /[*?[]/.test(path);
}

function segmentRegex(segment: string): RegExp {
  let re = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = segment.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        const body = segment.slice(i + 1, end);
        re += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The files `pattern` (relative to `base`, or absolute) matches, sorted; none when nothing does. */
export async function expandGlob(pattern: string, base: string): Promise<string[]> {
  const full = resolve(base, pattern);
  const parts = full.split(sep);
  const first = parts.findIndex(isGlob);
  const root = parts.slice(0, first).join(sep) || sep;
  const rest = parts.slice(first);
  const out: string[] = [];
  const walk = async (dir: string, i: number): Promise<void> => {
    if (i >= rest.length) return;
    const segment = rest[i];
    const last = i === rest.length - 1;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (segment === '**') {
      await walk(dir, i + 1);
      for (const e of entries) if (e.isDirectory()) await walk(join(dir, e.name), i);
      return;
    }
    const re = segmentRegex(segment);
    for (const e of entries) {
      if (!re.test(e.name)) continue;
      const path = join(dir, e.name);
      if (last ? e.isFile() : e.isDirectory()) {
        if (last) out.push(path);
        else await walk(path, i + 1);
      }
    }
  };
  await walk(root, 0);
  return [...new Set(out)].sort();
}
