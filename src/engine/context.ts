/** What every engine needs about one run: the DUT sources, its analysis, where to write, how to measure. */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import {
  ChorusError,
  DEFAULT_TARGETS,
  type CoveragePoint,
  type DesignAnalysis,
  type ModuleInfo,
  type SourceFile,
  type Targets,
  takesRegression,
} from '../protocol';
import { readUserText } from '../protocol/userFile';
import { readSourceText } from '../hdl';
import { readRegression, type DesignFlags } from '../sim';
import type { GenerateRequest } from './api';
import { FormalLedger } from './closure/ledger';
import { designNames } from './names';
import { selectDut, type DutSelection } from './plan';
import { findSpecFiles } from './llm/specFiles';
import { readWaiverFile } from './waivers/file';
import { NO_WAIVERS, standingWaivers, type WaiverOf } from './waivers/standing';

/** The DUT's instance name in CHORUS's testbench when the request names none (`--instance`). */
export const DEFAULT_INSTANCE = 'uut';

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
  /** Renders a file's name in text for the model (`designNames`); data keeps absolute paths. */
  displayName: (file: string) => string;
  /** The design's include folders, macros and top parameters, for every build and the design lint. */
  design: DesignFlags;
  /** What the formal engine decided in this run: every measurement of the run labels its holes from it. */
  formal: FormalLedger;
  /** The user's regression (`--merge`), read once: its files and merged DUT points, named below the DUT. */
  regression?: { files: string[]; points: CoveragePoint[] };
  /** The waiver file's entries that stand as the run starts (`--waivers`): what they waive counts as excluded. */
  waiverOf: WaiverOf;
}

/**
 * The run's context. `planned` is the DUT selection `planRun` made for this request: the design is analysed once
 * per run, and a selection for other files or another top is not reused.
 */
export async function prepareRun(req: GenerateRequest, planned?: DutSelection): Promise<RunContext> {
  if (!req.rtlFiles.length) throw new ChorusError('bad_input', 'No RTL files given: pass the DUT source files.');
  if (req.regression?.length && !takesRegression(req.engine))
    throw new ChorusError(
      'bad_input',
      `Generating on top of a regression (--merge, chorus.regressionCoverage) is only supported by the model-free engine for now, and this run's engine is ${req.engine}: choose --engine random (chorus.engine: random), or leave the regression out.`,
    );
  const reuse =
    planned &&
    planned.top.name === req.top &&
    planned.files.length === req.rtlFiles.length &&
    planned.files.every((f, i) => f === resolve(req.rtlFiles[i] ?? ''));
  const {
    files: rtlFiles,
    top,
    analysis,
  } = reuse
    ? planned
    : await selectDut({
        files: req.rtlFiles,
        top: req.top,
        design: { includeDirs: req.includeDirs, defines: req.defines, parameters: req.parameters },
      });
  // None named: the spec beside the design (`<name>.md`, `<name>.txt`, spec/ or docs/ files naming the module).
  const specFiles = req.specFiles?.length
    ? req.specFiles.map((f) => resolve(f))
    : await findSpecFiles(rtlFiles, top.name);
  const displayName = designNames(rtlFiles);
  const sources = new Map<string, string>();
  const rtl: SourceFile[] = [];
  for (const f of rtlFiles) {
    const content = await readSourceText(f);
    sources.set(f, content);
    rtl.push({ name: displayName(f), content });
  }
  const specs: SourceFile[] = [];
  for (const f of specFiles) {
    try {
      specs.push({ name: basename(f), content: await readUserText(f, { what: 'spec file' }) });
    } catch (err) {
      throw new ChorusError(
        'bad_input',
        `Cannot read spec file ${f}: ${(err as Error).message}`,
        { file: f },
        { cause: err },
      );
    }
  }
  // Read before the run folder is made: a refused file leaves nothing behind.
  const regression = req.regression?.length
    ? { files: req.regression, points: (await readRegression(req.regression, rtlFiles, top.name)).merged }
    : undefined;
  const instance = req.instanceName ?? DEFAULT_INSTANCE;
  // The waiver file too: a malformed one is refused now, naming its line, not after the run. Whether CHORUS may
  // write it back is the adapter's to check before the run (it knows every input and names its own option).
  const waivers = req.waivers ? resolve(req.waivers.file) : undefined;
  const waiverOf = waivers ? await standingWaivers(waivers, await readWaiverFile(waivers), instance) : NO_WAIVERS;
  const workDir = req.workDir ?? (await mkdtemp(join(tmpdir(), 'chorus-run-')));
  return {
    rtlFiles,
    specFiles,
    rtl,
    specs,
    analysis,
    top,
    instance,
    targets: Object.keys(req.targets ?? {}).length ? req.targets : DEFAULT_TARGETS,
    workDir,
    sources,
    displayName,
    design: { includeDirs: req.includeDirs, defines: req.defines, parameters: req.parameters },
    formal: new FormalLedger(instance),
    ...(regression ? { regression } : {}),
    waiverOf,
  };
}
