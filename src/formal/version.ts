/** The prover's name and version, as a waiver's proof records it (`yosys 0.55.944 (@yowasp/yosys)`). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const cached = new Map<string, string>();

/** A package's version, read from its package.json by path (the package's exports hide it). */
function packageVersion(specifier: string): string {
  let version = 'unknown';
  try {
    let dir = dirname(require.resolve(specifier));
    for (let i = 0; i < 4 && version === 'unknown'; i++, dir = dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        // The slang build is installed under an npm alias: its package.json still names `@yowasp/yosys`.
        if (pkg.name === '@yowasp/yosys' && pkg.version) version = pkg.version;
      } catch {
        // No package.json at this level: one folder up.
      }
    }
  } catch {
    // Not installed: the formal engine says so when it runs; the label stays `unknown`.
  }
  return version;
}

let lastUsed: 'slang' | 'verilog' = 'verilog';

/** Records the front end a formal run read the design with: the label a later waiver records names it. */
export function noteFrontEnd(frontEnd: 'slang' | 'verilog'): void {
  lastUsed = frontEnd;
}

/**
 * The Yosys that proves with this front end: `yosys 0.55.944 (@yowasp/yosys)` for `read_verilog -sv`, `yosys
 * 0.70.62-dev.1236 (@yowasp/yosys, read_slang)` for slang. Without one, that of this process's last formal run (the
 * 0.55 build's before any).
 */
export function proverVersion(frontEnd: 'slang' | 'verilog' = lastUsed): string {
  let label = cached.get(frontEnd);
  if (!label) {
    label =
      frontEnd === 'slang'
        ? `yosys ${packageVersion('@yowasp/yosys-slang')} (@yowasp/yosys, read_slang)`
        : `yosys ${packageVersion('@yowasp/yosys')} (@yowasp/yosys)`;
    cached.set(frontEnd, label);
  }
  return label;
}
