/**
 * An editor document's analysis, from its text (unsaved edits included). When the text uses macros or includes
 * (`` `FFLARNC(…) ``, `` [`WIDTH-1:0] ``: the text analysis cannot parse the one and cannot size the other), it is
 * expanded by Verilator's preprocessor with the design's include folders and macros, line for line, and analysed
 * again, so symbols, lenses and hovers keep working and every position is still a line of the document.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { analyzeSources } from '../hdl';
import type { DesignAnalysis } from '../protocol';
import { preprocessDesignFile, type DesignFlags } from '../sim';

/** Directives that change no text the analysis reads (conditionals are left to the text analysis as written). */
const PLAIN_DIRECTIVES = new Set([
  'define',
  'undef',
  'undefineall',
  'ifdef',
  'ifndef',
  'else',
  'elsif',
  'endif',
  'timescale',
  'default_nettype',
  'resetall',
  'celldefine',
  'endcelldefine',
  'pragma',
  'line',
  'begin_keywords',
  'end_keywords',
  'unconnected_drive',
  'nounconnected_drive',
]);

/** True when the text uses a macro or includes a file: a backtick name that is no plain directive. */
export function usesMacros(text: string): boolean {
  for (const m of text.matchAll(/`([A-Za-z_][A-Za-z0-9_$]*)/g)) if (!PLAIN_DIRECTIVES.has(m[1])) return true;
  return false;
}

export interface DocumentAnalysisOptions {
  /** The design's include folders, macros and top parameters. */
  design?: DesignFlags;
  verilatorPath?: string | undefined;
  signal?: AbortSignal;
}

/** Analyses `text`, the content of `file` (absolute); see the file comment. Never throws for bad text: errors are in the result. */
export async function analyzeDocumentText(
  file: string,
  text: string,
  opts: DocumentAnalysisOptions = {},
): Promise<DesignAnalysis> {
  const first = analyzeSources([{ name: file, content: text }], { defines: opts.design?.defines });
  if (!usesMacros(text)) return first;
  // The editor's text, not the file on disk, is expanded: a copy in a private folder, with the document's own
  // folder first among the include folders (as Verilator searches the including file's folder).
  const work = await mkdtemp(join(tmpdir(), 'chorus-doc-'));
  try {
    const copy = join(work, basename(file));
    await writeFile(copy, text);
    const design: DesignFlags = { ...opts.design, includeDirs: [dirname(file), ...(opts.design?.includeDirs ?? [])] };
    const expanded = await preprocessDesignFile(copy, design, {
      verilatorPath: opts.verilatorPath,
      signal: opts.signal,
    }).catch(() => undefined);
    if (expanded === undefined) return first;
    const second = analyzeSources([{ name: file, content: expanded }]);
    // When expansion does not help, the errors of the text as written are the ones to show.
    return second.errors.length ? first : second;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
