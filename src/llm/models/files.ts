/** GGUF files in the model folders. */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface FoundModel {
  path: string;
  sizeBytes: number;
}

/** Every `*.gguf` directly in each folder, folders in order, names sorted; missing folders are skipped. */
export function findGgufFiles(modelDirs: string[]): FoundModel[] {
  const found: FoundModel[] = [];
  const seen = new Set<string>();
  for (const dir of modelDirs) {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.toLowerCase().endsWith('.gguf')) continue;
      const path = resolve(dir, name);
      if (seen.has(path)) continue;
      try {
        const st = statSync(path);
        if (!st.isFile()) continue;
        seen.add(path);
        found.push({ path, sizeBytes: st.size });
      } catch {
        // vanished or unreadable: not a candidate
      }
    }
  }
  return found;
}

/** The first file in the folders with exactly this name. */
export function findByName(modelDirs: string[], name: string): FoundModel | undefined {
  for (const dir of modelDirs) {
    try {
      const path = resolve(join(dir, name));
      const st = statSync(path);
      if (st.isFile()) return { path, sizeBytes: st.size };
    } catch {
      // not there
    }
  }
  return undefined;
}
