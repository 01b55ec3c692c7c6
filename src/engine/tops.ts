/** Which modules of one HDL document a testbench could drive: the editor's top picker asks this (`chorus/tops`). */
import { analyzeFiles, analyzeSources } from '../hdl';
import type { DesignAnalysis, TopsResult } from '../protocol';

/** Every module, ranked for a picker: the uninstantiated ones first, then the cores inside them. */
export function rankedChoices(analysis: DesignAnalysis): string[] {
  const modules = [...new Set(analysis.modules.map((m) => m.name))];
  const ranked = analysis.topChoices ?? [...analysis.topCandidates];
  return [...ranked, ...modules.filter((m) => !ranked.includes(m))];
}

/**
 * The document's modules, and the top choice: the one module no other instantiates when there is one (the top is
 * clear), else every module ranked, so a core with several wrappers can be picked too.
 */
export function topsOf(analysis: DesignAnalysis): TopsResult {
  const modules = [...new Set(analysis.modules.map((m) => m.name))];
  const candidates = rankedChoices(analysis);
  return {
    modules,
    tops: analysis.topCandidates.length === 1 ? [...analysis.topCandidates] : candidates,
    candidates,
  };
}

/**
 * The tops of `file` (an absolute path): from `content` when given (an editor's unsaved text), else read from
 * disk (a missing, binary or huge file is a ChorusError naming it).
 */
export async function findTops(file: string, content?: string): Promise<TopsResult> {
  const analysis = content === undefined ? await analyzeFiles([file]) : analyzeSources([{ name: file, content }]);
  return topsOf(analysis);
}
