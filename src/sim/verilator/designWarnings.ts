/**
 * Lint is not failure: Verilator's warnings about the user's RTL (WIDTH, UNUSED, CASEINCOMPLETE, …) are the
 * design's, reported once to the user and never fed back to whoever wrote the testbench. Only the testbench's
 * own messages (and every error) stay with the build.
 */
import { resolve } from 'node:path';
import type { Diagnostic } from '../../protocol';

export interface SplitDiagnostics {
  /** Messages about the testbench, and every error (an error fails the build whatever file it is in). */
  build: Diagnostic[];
  /** Warnings located in any file other than the testbench: the DUT's files and the headers they include. */
  design: Diagnostic[];
}

/** What to do about an error Verilator reports in the design rather than the testbench. */
export const DESIGN_ERROR_HINT =
  'this is in the design, not the testbench: Verilator cannot build this construct, so change it (or guard it with `ifndef VERILATOR), or leave this file out';

/** The hint for an error in the design: a missing include or module is a missing flag, not a bad construct. */
export function designErrorHint(message: string): string {
  if (/Cannot find include file/i.test(message))
    return 'this is in the design: pass the folder of that header with -I <dir> (CLI) or +incdir+<dir> in a filelist';
  if (/Cannot find file containing module/i.test(message))
    return 'this is in the design: add the file that defines that module to the sources or the filelist';
  return DESIGN_ERROR_HINT;
}

/**
 * Splits a build's messages by where they point. `file` is compared as an absolute path (relative ones are
 * resolved against `cwd`, where Verilator ran); a message with no location stays with the build.
 */
export function splitDesignWarnings(list: Diagnostic[], testbench: string, cwd = process.cwd()): SplitDiagnostics {
  const tb = resolve(testbench);
  const build: Diagnostic[] = [];
  const design: Diagnostic[] = [];
  for (const d of list) {
    const inDesign = d.line > 0 && resolve(cwd, d.file) !== tb;
    if (inDesign && d.severity === 'warning') design.push(d);
    else if (inDesign && d.severity === 'error' && !d.message.includes('(this is in the design'))
      build.push({ ...d, message: `${d.message} (${designErrorHint(d.message)})` });
    else build.push(d);
  }
  return { build, design };
}
