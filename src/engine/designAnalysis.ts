/**
 * Analysis that sees what the compiler sees: a file the text analysis cannot parse (macro calls such as
 * `` `FFLARNC(…) ``, macros from include files) is read again as Verilator's preprocessor expands it, line for
 * line, so every position still names the user's file and line.
 */
import { analyzeFiles, analyzeSources, readSourceText } from '../hdl';
import type { DesignAnalysis, SourceFile } from '../protocol';
import { preprocessDesignFile, type DesignFlags } from '../sim';

export interface DesignAnalysisOptions {
  top?: string | undefined;
  /** The design's include folders and macros, for the preprocessor; its top parameter overrides, for the analysis. */
  design?: DesignFlags | undefined;
  verilatorPath?: string | undefined;
  signal?: AbortSignal;
}

/** Analyses `files` (absolute); files with syntax errors are expanded by Verilator and analysed again. */
export async function analyzeDesign(files: string[], opts: DesignAnalysisOptions = {}): Promise<DesignAnalysis> {
  const parameters = opts.design?.parameters;
  if (parameters && Object.keys(parameters).length && opts.top === undefined) {
    // Overrides apply to the top: found first with the defaults, then the design is read again with them.
    const plain = await analyzeDesign(files, { ...opts, design: { ...opts.design, parameters: undefined } });
    return plain.top ? analyzeDesign(files, { ...opts, top: plain.top }) : plain;
  }
  const top = { top: opts.top, parameters, defines: opts.design?.defines };
  const first = await analyzeFiles(files, top);
  if (!first.errors.length) return first;
  const failing = new Set(first.errors.map((e) => e.file));
  const sources: SourceFile[] = [];
  for (const file of files) {
    const expanded = failing.has(file)
      ? await preprocessDesignFile(file, opts.design ?? {}, {
          verilatorPath: opts.verilatorPath,
          signal: opts.signal,
        }).catch(() => undefined)
      : undefined;
    // Unchanged files were read (and checked) by the first analysis already.
    sources.push({ name: file, content: expanded ?? (await readSourceText(file)) });
  }
  const second = analyzeSources(sources, top);
  // When expansion does not help, the errors of the text as written are the ones to show.
  return second.errors.length ? first : second;
}
