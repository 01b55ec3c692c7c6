/** The `chorus.*` settings as one typed value, and how they become a `chorus/generate` request. Pure. */
import type { ChorusSettings, EngineName, GenerateParams } from '../protocol';
export {
  DEFAULT_SETTINGS,
  NO_DESIGN_SETTINGS,
  SETTINGS_SECTION,
  readSettings,
  safeRelativeFolder,
  sanitizeTargets,
} from '../protocol';
export type { ChorusSettings, ConfigurationLike, EngineSetting, GpuSetting } from '../protocol';

export function hasModel(s: ChorusSettings): boolean {
  return s.model !== '' || s.endpoint !== '';
}

/**
 * The engine to request; `auto` requests none, so the server picks as the CLI does (`llm` when a model is
 * configured or found in models/, otherwise `random`).
 */
export function resolveEngine(s: ChorusSettings): EngineName | undefined {
  return s.engine === 'auto' ? undefined : s.engine;
}

/**
 * The engine a run with these settings uses: the one chosen, else the one the server says `auto` stands for
 * (`ModelStatusParams.autoEngine`: the engine decides, counting a GGUF found in models/ too).
 */
export function runEngine(s: ChorusSettings, autoEngine: EngineName): EngineName {
  return resolveEngine(s) ?? autoEngine;
}

/**
 * True when an explicitly chosen engine cannot run without a model and there is none. Whether there is one is the
 * engine's decision, sent by the server (`ModelStatusParams.modelAvailable`, which counts a GGUF found in models/);
 * only before the server's first status does the client fall back to the settings it can see.
 */
export function needsModel(s: ChorusSettings, modelAvailable?: boolean): boolean {
  const e = resolveEngine(s);
  return e !== undefined && e !== 'random' && !(modelAvailable ?? hasModel(s));
}

export interface RunTarget {
  /** The DUT document, as a URI string. */
  uri: string;
  runId: string;
  top?: string | undefined;
  files?: string[];
}

/**
 * The request for one run: what this run chose (its document, top, files, and an engine picked for it alone, such
 * as "Use the model-free search"). Targets, rounds, model and the configured engine are settings: the server reads
 * them for the document, once, so they are not copied here. The client writes the testbench, so no `testbenchUri`.
 */
export function generateParams(run: RunTarget, engine?: EngineName): GenerateParams {
  const params: GenerateParams = { uri: run.uri, runId: run.runId };
  if (engine) params.engine = engine;
  if (run.top) params.top = run.top;
  if (run.files?.length) params.files = [...run.files];
  return params;
}
