/** What every engine needs about one run: the DUT sources, its analysis, where to write, how to measure. */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { analyzeFiles, moduleByName } from '../hdl';
import { ChorusError, DEFAULT_TARGETS, type DesignAnalysis, type ModuleInfo, type SourceFile, type Targets } from '../protocol';
import type { GenerateRequest } from './api';

export interface RunContext {
  rtlFiles: string[];
  specFiles: string[];
  rtl: SourceFile[];
  specs: SourceFile[];
  analysis: DesignAnalysis;
  top: ModuleInfo;
  instance: string;
  targets: Targets;
  workDir: string;
  /** DUT file text by absolute path, for hole source lines. */
  sources: Map<string, string>;
  displayName: (file: string) => string;
}

export async function prepareRun(req: GenerateRequest): Promise<RunContext> {
  if (!req.rtlFiles.length) throw new ChorusError('bad_input', 'No RTL files given: pass the DUT source files.');
  const rtlFiles = req.rtlFiles.map((f) => resolve(f));
  const specFiles = (req.specFiles ?? []).map((f) => resolve(f));
  const analysis = await analyzeFiles(rtlFiles, { top: req.top });
  if (analysis.errors.length) {
    const e = analysis.errors[0];
    const more = analysis.errors.length > 1 ? ` (and ${analysis.errors.length - 1} more)` : '';
    throw new ChorusError('bad_input', `${e.message}${more}`, { file: e.file, line: e.line, column: e.column });
  }
  const topName = req.top ?? analysis.top;
  if (!topName) {
    const c = analysis.topCandidates;
    throw new ChorusError(
      'bad_input',
      c.length
        ? `Several top module candidates (${c.join(', ')}): pass --top <module>.`
        : `No module found in ${rtlFiles.join(', ')}: pass the RTL files that define the DUT.`,
    );
  }
  const top = moduleByName(analysis, topName);
  if (!top) throw new ChorusError('bad_input', `Top module '${topName}' is not defined in the given RTL files.`);
  const sources = new Map<string, string>();
  const rtl: SourceFile[] = [];
  for (const f of rtlFiles) {
    const content = await readFile(f, 'utf8');
    sources.set(f, content);
    rtl.push({ name: basename(f), content });
  }
  const specs: SourceFile[] = [];
  for (const f of specFiles) {
    try {
      specs.push({ name: basename(f), content: await readFile(f, 'utf8') });
    } catch {
      throw new ChorusError('bad_input', `Cannot read spec file ${f}.`, { file: f });
    }
  }
  const workDir = req.workDir ?? (await mkdtemp(join(tmpdir(), 'chorus-run-')));
  const byBase = new Map<string, number>();
  for (const f of rtlFiles) byBase.set(basename(f), (byBase.get(basename(f)) ?? 0) + 1);
  return {
    rtlFiles,
    specFiles,
    rtl,
    specs,
    analysis,
    top,
    instance: req.instanceName ?? 'uut',
    targets: Object.keys(req.targets ?? {}).length ? req.targets : DEFAULT_TARGETS,
    workDir,
    sources,
    // Base names unless two DUT files share one.
    displayName: (file) => ((byBase.get(basename(file)) ?? 0) > 1 ? file : basename(file)),
  };
}
