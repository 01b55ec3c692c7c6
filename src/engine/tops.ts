/** Which modules of one HDL document a testbench could drive: the editor's top picker asks this (`chorus/tops`). */
import { analyzeFiles, analyzeSources } from '../hdl';
import type { DesignAnalysis, TopsResult } from '../protocol';

/** The document's modules, and those no other module of it instantiates (all of them when each one is). */
export function topsOf(analysis: DesignAnalysis): TopsResult {
  const modules = [...new Set(analysis.modules.map((m) => m.name))];
  return { modules, tops: analysis.topCandidates.length ? [...analysis.topCandidates] : modules };
}

/**
 * The tops of `file` (an absolute path): from `content` when given (an editor's unsaved text), else read from
 * disk (a missing, binary or huge file is a ChorusError naming it).
 */
export async function findTops(file: string, content?: string): Promise<TopsResult> {
  const analysis = content === undefined ? await analyzeFiles([file]) : analyzeSources([{ name: file, content }]);
  return topsOf(analysis);
}
