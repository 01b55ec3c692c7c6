/** The prover's name and version, as a waiver's proof records it (`yosys 0.55.944 (@yowasp/yosys)`). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

let cached: string | undefined;

/** Read once from the installed `@yowasp/yosys` package (its exports hide package.json, so it is found by path). */
export function proverVersion(): string {
  if (cached) return cached;
  let version = 'unknown';
  try {
    let dir = dirname(require.resolve('@yowasp/yosys'));
    for (let i = 0; i < 4 && version === 'unknown'; i++, dir = dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (pkg.name === '@yowasp/yosys' && pkg.version) version = pkg.version;
      } catch {
        // No package.json at this level: one folder up.
      }
    }
  } catch {
    // Not installed: the formal engine says so when it runs; the label stays `unknown`.
  }
  cached = `yosys ${version} (@yowasp/yosys)`;
  return cached;
}
