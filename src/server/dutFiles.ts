/**
 * Which files make up the DUT of a document: the document, plus the sibling sources that define the modules its
 * top instantiates (transitively). Testbenches beside it are left out.
 */
import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { analyzeFiles, moduleByName } from '../hdl';
import { ChorusError, type DesignAnalysis } from '../protocol';

const HDL = /\.(sv|v)$/i;
const TESTBENCH = /(^tb_|_tb\.|testbench|^chorus_)/i;

async function siblings(file: string): Promise<string[]> {
  const dir = dirname(file);
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => HDL.test(n) && !TESTBENCH.test(n)).slice(0, 64).map((n) => join(dir, n));
}

export interface DutSelection {
  files: string[];
  top: string;
  analysis: DesignAnalysis;
}

export async function selectDutFiles(document: string, top: string | undefined, explicit?: string[]): Promise<DutSelection> {
  const doc = resolve(document);
  if (explicit?.length) {
    const analysis = await analyzeFiles(explicit, { top });
    const t = top ?? analysis.top;
    if (!t) throw new ChorusError('bad_input', `Several top module candidates (${analysis.topCandidates.join(', ')}): pick one.`);
    return { files: explicit, top: t, analysis };
  }
  const own = await analyzeFiles([doc], { top });
  if (own.errors.length) {
    const e = own.errors[0];
    throw new ChorusError('bad_input', e.message, { file: e.file, line: e.line, column: e.column });
  }
  const topName = top ?? own.top ?? own.modules[0]?.name;
  if (!topName) throw new ChorusError('bad_input', 'No module in this file to generate stimulus for.', { file: doc });

  // Bring in the files that define instantiated modules not defined here.
  let files = [doc];
  let analysis = own;
  const others = (await siblings(doc)).filter((f) => resolve(f) !== doc);
  if (others.length) {
    const wide = await analyzeFiles([doc, ...others]).catch(() => null);
    if (wide && !wide.errors.length) {
      const needed = new Set<string>();
      const visit = (name: string) => {
        const m = moduleByName(wide, name);
        if (!m || needed.has(m.file)) return;
        needed.add(m.file);
        m.instances.forEach((i) => visit(i.module));
      };
      visit(topName);
      files = [doc, ...[...needed].filter((f) => resolve(f) !== doc)];
      if (files.length > 1) analysis = await analyzeFiles(files, { top: topName });
    }
  }
  return { files, top: topName, analysis };
}
