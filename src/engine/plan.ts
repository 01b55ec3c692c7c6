/**
 * Which files make up a run's DUT and which module is its top: decided here once, for the CLI (the files it is
 * given) and the language server (a document, plus the sibling sources that define the modules its top
 * instantiates, transitively; testbenches beside it are left out).
 */
import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { filesNeeded, indexModules, moduleByName, readSourceText } from '../hdl';
import { checkParameterValues, ChorusError, type DesignAnalysis, type EngineName, type ModuleInfo } from '../protocol';
import type { DesignFlags } from '../sim';
import type { GenerateRequest } from './api';
import { analyzeDesign } from './designAnalysis';
import { decideEngine, missingModelError, type ModelProvider } from './models';
import { rankedChoices } from './tops';

const HDL = /\.(sv|v)$/i;
const TESTBENCH = /(^tb_|_tb\.|testbench|^chorus_)/i;
/** Sibling files looked at beside a document: enough for a design folder, bounded for a huge one. */
const MAX_SIBLINGS = 64;

export interface DutRequest {
  /** The DUT files (any form of path): used as given, no search. */
  files?: string[] | undefined;
  /** The document a run starts from, when no files are named: it and the sibling sources its top needs. */
  document?: string | undefined;
  /** The top module; found by analysis when omitted. */
  top?: string | undefined;
  /**
   * The design's include folders and macros (files the text analysis cannot parse are read as Verilator expands
   * them) and top parameter overrides (the analysis reads the top with them).
   */
  design?: DesignFlags;
  /** The Verilator whose preprocessor expands those files (default: the one a run builds with). */
  verilatorPath?: string | undefined;
  signal?: AbortSignal;
}

export interface DutSelection {
  /** Absolute paths, the document (when one was given) first. */
  files: string[];
  top: ModuleInfo;
  analysis: DesignAnalysis;
}

function throwSyntaxError(analysis: DesignAnalysis): void {
  if (!analysis.errors.length) return;
  const e = analysis.errors[0];
  const more = analysis.errors.length > 1 ? ` (and ${analysis.errors.length - 1} more)` : '';
  throw new ChorusError('bad_input', `${e.message}${more}`, { file: e.file, line: e.line, column: e.column });
}

/** The top module: the one asked for, else the one analysis found; an error saying what to pass otherwise. */
export function findTop(analysis: DesignAnalysis, files: string[], requested?: string): ModuleInfo {
  const name = requested ?? analysis.top;
  if (!name) {
    const c = analysis.topCandidates;
    const inner = rankedChoices(analysis).filter((m) => !c.includes(m));
    throw new ChorusError(
      'bad_input',
      c.length
        ? `Several top module candidates (${c.join(', ')}): pass --top <module>${inner.length ? `; a module they instantiate can be the top too: ${inner.join(', ')}` : ''}.`
        : `No module found in ${files.join(', ')}: pass the RTL files that define the DUT.`,
    );
  }
  const top = moduleByName(analysis, name);
  if (!top) throw new ChorusError('bad_input', `Top module '${name}' is not defined in the given RTL files.`);
  return top;
}

async function siblings(file: string): Promise<string[]> {
  const dir = dirname(file);
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((n) => HDL.test(n) && !TESTBENCH.test(n))
    .slice(0, MAX_SIBLINGS)
    .map((n) => join(dir, n));
}

/**
 * Overrides name parameters the top declares (not localparams): one Verilator would ignore is an error here. Their
 * values are constants (`parameterValueError`): whichever adapter they came from, none reaches a harness otherwise.
 */
export function checkOverrides(top: ModuleInfo, parameters: Record<string, string> | undefined): void {
  checkParameterValues(parameters, (name) => `-G ${name}`);
  for (const name of Object.keys(parameters ?? {})) {
    const p = top.params.find((q) => q.name === name);
    if (p?.local) {
      const open = top.params.filter((q) => !q.local).map((q) => q.name);
      const where = `${top.file}:${p.line ?? top.line}`;
      throw new ChorusError(
        'bad_input',
        `-G ${name}: '${name}' is a localparam of ${top.name} (${where}), which cannot be overridden: ${open.length ? `override one of its parameters (${open.join(', ')}) instead` : `${top.name} has no overridable parameters`}.`,
        { file: top.file, line: p.line ?? top.line },
      );
    }
    if (!p) {
      const open = top.params.filter((q) => !q.local).map((q) => q.name);
      throw new ChorusError(
        'bad_input',
        `-G ${name}: ${top.name} has no parameter '${name}' (${open.length ? `its parameters: ${open.join(', ')}` : 'it has no parameters'}).`,
        { file: top.file, line: top.line },
      );
    }
  }
}

function analysisOptions(req: DutRequest) {
  return { design: req.design, verilatorPath: req.verilatorPath, ...(req.signal ? { signal: req.signal } : {}) };
}

/**
 * The DUT of a run, a measurement or a proof: its files and top, from one analysis that is passed on (to
 * `prepareRun`, `measure`), not made again.
 */
export async function selectDut(req: DutRequest): Promise<DutSelection> {
  if (req.files?.length) {
    const files = req.files.map((f) => resolve(f));
    const analysis = await analyzeDesign(files, { ...analysisOptions(req), top: req.top });
    throwSyntaxError(analysis);
    const top = findTop(analysis, files, req.top);
    checkOverrides(top, req.design?.parameters);
    return { files, top, analysis };
  }
  if (!req.document) throw new ChorusError('bad_input', 'No RTL files given: pass the DUT source files.');
  const doc = resolve(req.document);
  const own = await analyzeDesign([doc], { ...analysisOptions(req), top: req.top });
  throwSyntaxError(own);
  // A document with several unrelated modules runs on its first one unless a top is named (a code lens names it).
  const topName = req.top ?? own.top ?? own.modules[0]?.name;
  if (!topName) throw new ChorusError('bad_input', 'No module in this file to generate stimulus for.', { file: doc });

  let files = [doc];
  let analysis = own;
  const others = (await siblings(doc)).filter((f) => f !== doc);
  if (others.length) {
    // Each sibling indexed on its own: one that does not analyse never hides another's modules.
    const index = await indexModules([doc, ...others], readSourceText);
    files = [doc, ...filesNeeded(index, topName, doc).filter((f) => f !== doc)];
    if (files.length > 1) {
      // Read as a run reads them (macro files as Verilator's preprocessor expands them): this is the run's analysis.
      const wide = await analyzeDesign(files, { ...analysisOptions(req), top: topName });
      // A needed file the analysis cannot read (macros, …) may still build: the document's analysis serves then.
      if (!wide.errors.length) analysis = wide;
    }
  }
  const top = findTop(analysis, files, topName);
  checkOverrides(top, req.design?.parameters);
  return { files, top, analysis };
}

/** What an adapter asks for: a `GenerateRequest` whose DUT files, top and engine are still to be decided. */
export type RunInput = Omit<GenerateRequest, 'rtlFiles' | 'engine'> &
  DutRequest & { engine?: EngineName | 'auto' | undefined };

export interface RunPlan {
  request: GenerateRequest;
  dut: DutSelection;
}

/** The engine's one decision of a run: its DUT files and top (`selectDut`) and its engine and model need (`decideEngine`). */
export async function planRun(input: RunInput, models: ModelProvider): Promise<RunPlan> {
  const { files, document, engine, ...rest } = input;
  const dut = await selectDut({
    files,
    document,
    top: input.top,
    design: { includeDirs: input.includeDirs, defines: input.defines, parameters: input.parameters },
  });
  const decided = decideEngine(engine, models);
  if (decided.missingModel) throw missingModelError(decided.engine);
  return { dut, request: { ...rest, rtlFiles: dut.files, top: dut.top.name, engine: decided.engine } };
}
