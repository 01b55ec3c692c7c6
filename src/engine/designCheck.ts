/**
 * The sandbox rules on a design's own files, for a design nobody vouches for (a reward server's request). The build
 * judges only the testbench's part of the preprocessed text, since a user's own design is trusted; a server request's
 * design is as untrusted as its testbench, so each of its files is preprocessed and judged as a testbench would be
 * (`$system`, DPI, `$c`, file output and reads, includes outside the request's folder), with the files before it on
 * the command line as the build orders them, so their macros reach it exactly as in the build.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { memoryLimitBytes, preprocessTestbench, toolMemoryBytes, violationDiagnostics } from '../sim';
import type { Diagnostic } from '../protocol';

export interface DesignCheckOptions {
  verilatorPath?: string | undefined;
  /** The only folder the design's includes may reach. */
  workspaceRoot: string;
  signal: AbortSignal;
  /** The request's memory limit (the engine's default when unset): the preprocessor runs under it as the build does. */
  memoryLimitBytes?: number | undefined;
}

/** Designs (by content and order) already found clean: many rollouts of one prompt share a design. */
const clean = new Set<string>();
const CLEAN_MEMO = 1024;

/** The sandbox violations in a design's files, as error diagnostics; [] when it may be built. */
export async function checkDesign(files: string[], opts: DesignCheckOptions): Promise<Diagnostic[]> {
  const key = await designKey(files, opts.workspaceRoot);
  if (clean.has(key)) return [];
  for (const [i, file] of files.entries()) {
    const { violations } = await preprocessTestbench(file, {
      verilatorPath: opts.verilatorPath || process.env.CHORUS_VERILATOR || 'verilator',
      workspaceRoot: opts.workspaceRoot,
      designFiles: files.slice(0, i),
      signal: opts.signal,
      limits: { memoryBytes: toolMemoryBytes(memoryLimitBytes(opts.memoryLimitBytes)) },
    });
    if (violations.length) return violationDiagnostics(violations);
  }
  if (clean.size >= CLEAN_MEMO) clean.clear();
  clean.add(key);
  return [];
}

/** The files' names and contents in order: the same design in another request's folder is the same key. */
async function designKey(files: string[], root: string): Promise<string> {
  const hash = createHash('sha256');
  for (const f of files) {
    hash.update(relative(root, f)).update('\0');
    hash.update(await readFile(f)).update('\0');
  }
  return hash.digest('hex');
}
