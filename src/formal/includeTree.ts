/**
 * The header files a design's include folders offer, copied into Yosys' virtual file system. Subfolders come
 * along: real IP includes headers by a path below its include folder (`include "common_cells/assertions.svh"`).
 * Bounded in files, bytes and depth; hidden folders are skipped.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readUserText } from '../protocol/userFile';
import type { FileTree } from './worker';

const HEADER_EXT = /\.(v|sv|vh|svh|h|inc|vinc)$/i;
const MAX_INCLUDE_FILES = 400;
const MAX_INCLUDE_BYTES = 4 * 1024 * 1024;
/** Folders below an include folder that are searched (a symbolic link back up cannot loop past it). */
const MAX_INCLUDE_DEPTH = 4;

interface Budget {
  files: number;
  bytes: number;
}

async function copyHeaders(dir: string, into: FileTree, depth: number, budget: Budget): Promise<void> {
  let entries: string[];
  try {
    entries = (await readdir(dir)).sort();
  } catch {
    return;
  }
  for (const e of entries) {
    if (budget.files >= MAX_INCLUDE_FILES) return;
    if (e.startsWith('.')) continue;
    const p = join(dir, e);
    const s = await stat(p).catch(() => undefined);
    if (s?.isDirectory()) {
      if (depth >= MAX_INCLUDE_DEPTH) continue;
      const sub: FileTree = {};
      await copyHeaders(p, sub, depth + 1, budget);
      if (Object.keys(sub).length) into[e] = sub;
    } else if (s?.isFile() && HEADER_EXT.test(e) && budget.bytes + s.size <= MAX_INCLUDE_BYTES) {
      into[e] = await readUserText(p, { maxBytes: MAX_INCLUDE_BYTES, what: 'header' });
      budget.files++;
      budget.bytes += s.size;
    }
  }
}

/** Copies each folder's headers into `tree` as `inc<i>`; returns those names, in order, for Yosys' `-I`. */
export async function includeTree(dirs: string[], tree: FileTree): Promise<string[]> {
  const budget: Budget = { files: 0, bytes: 0 };
  const names: string[] = [];
  for (const [i, dir] of dirs.entries()) {
    const name = `inc${i}`;
    names.push(name);
    const folder: FileTree = {};
    await copyHeaders(dir, folder, 0, budget);
    if (Object.keys(folder).length) tree[name] = folder;
  }
  return names;
}

/** Every header text in a tree (where a flagged arm's macro may be defined). */
export function headerTexts(tree: FileTree): string[] {
  return Object.values(tree).flatMap((d) => (typeof d === 'string' ? [d] : headerTexts(d)));
}
