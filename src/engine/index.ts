export * from './api';
export { systemClock, type Clock } from './clock';
export { generate, generateToEnd, DEFAULT_ROUNDS } from './generate';
export { parseTargets, meetsTargets, overallPct, formatSummary, formatTargets } from './targets';
export { judge, isExcluded, type VerdictInput } from './verdict';
export { readWaiverFile } from './waivers/file';
export { toVlt, lcovWithoutExcluded, coberturaWithoutExcluded, excludedPoints } from './waivers/exports';
export { toUrgEl, toImcTcl, type SignoffPlace } from './waivers/signoffExports';
export { DEFAULT_INSTANCE } from './context';
export { summaryJson, summaryMarkdown } from './summaries';
export { parseWaivers, formatWaivers, type WaiverEntry } from './waivers/file';
export { writeTestbench, writeFileAtomic, mayOverwrite, checkTestbenchTarget, GENERATED_MARKER } from './fs';
// The consent rule of every output file option (--out, --lcov, bench --out).
export {
  checkOutputTarget,
  writeOutput,
  checkBenchOutputs,
  BENCH_OUTPUTS,
  type OutputTarget,
  type OutputKind,
} from './outputs';
export { buildOpeningMessages } from './llm/prompt';
export { parseReply } from './llm/reply';
export { parsePatch, applyPatch } from './llm/patch';
export { prepareRun } from './context';
// Run planning: DUT files, top and engine decided once for every adapter.
export {
  planRun,
  selectDut,
  findTop,
  checkOverrides,
  type RunInput,
  type RunPlan,
  type DutRequest,
  type DutSelection,
} from './plan';
export {
  chooseEngine,
  decideEngine,
  missingModelError,
  type EngineDecision,
  findModel,
  openModel,
  openModelExperts,
  type ModelProvider,
  type OpenedExperts,
} from './models';
export { GPU_CANDIDATES } from './llm/experts';
export { ask, askMessages, type AskRequest } from './ask';
export { measure, lcov, cobertura, type MeasureRequest, type MeasureServices, type MeasureResult } from './measure';
export { designNames } from './names';
// The reward server (`chorus serve`): the sandbox rules on an untrusted design, the reward and the next round's feedback.
export { checkDesign, type DesignCheckOptions } from './designCheck';
export { rewardOf, coveredFraction, nextRoundFeedback, type Reward } from './reward';
export { detectVerilator } from '../sim';
// The build cache (`chorus cache`) and the resource limits' units.
export * from './cache';
// Model management for adapters (`chorus model`, the server's model list and its warm backend pool).
export { BackendPool, listModels, pullModel, modelInfo, type ChatBackend, type ModelInfo } from '../llm';
// Design analysis: of files for `chorus inspect`, of an editor's unsaved text for the language server.
export { analyzeFiles, analyzeSources, moduleByName, readSourceText } from '../hdl';
export { libraryFilesNeeded, readFilelist, type Filelist, type Libraries } from '../hdl';
export { analyzeDesign } from './designAnalysis';
export { analyzeDocumentText } from './documentAnalysis';
export { findTops, rankedChoices, topsOf } from './tops';
// Per-instance coverage of a result's points, for adapters that check per-instance targets (`chorus bench`).
export { summarizeByInstance as coverageByInstance } from '../sim';
export { machineFault } from '../sim';
// For an adapter that must end now (the CLI's second Ctrl-C, or a first one not answered in time): every tool's tree killed.
export { killAllGroups } from '../sim';
// Formal closure (Yosys in WebAssembly): proven-unreachable points, witness traces, `chorus prove`.
export { proveHoles, type ProveHolesRequest, type ProveHolesReport } from './closure/proveHoles';
export { proofText } from './closure/ledger';
export {
  provePoints,
  type FormalOptions,
  type FormalServices,
  type TargetVerdict,
  type Witness,
  type Verdict,
  type StimulusRow,
  type StartState,
  type FormalTarget,
} from './closure/provePoints';
