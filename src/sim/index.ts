/** The simulation core: Verilator build (cached), bounded run, exact DUT coverage, holes, lcov, Cobertura. */
export type {
  SimOptions,
  VerilatorFeatures,
  VerilatorInfo,
  BuildInput,
  BuildResult,
  BuildStatus,
  RunInput,
  RunResult,
  RunStatus,
  MeasureInput,
  MeasureResult,
} from './types';
export { detectVerilator, MIN_VERILATOR, parseVerilatorVersion } from './verilator/verilator';
export {
  buildSimulation,
  BASE_FLAGS,
  buildFlags,
  COVERAGE_FLAGS,
  UNROLL_FLAGS,
  type BuildResultDetail,
} from './verilator/build';
export { runSimulation, DEFAULT_MAX_SIM_TIME, DEFAULT_RUN_TIMEOUT_MS } from './verilator/run';
export { readCoverageFile, parseCoverageDat, pointLines } from './coverage/coverageFile';
export { mergePoints, summarize, summarizeByInstance, emptySummary, pointId, isCovered } from './coverage/summary';
export { findHoles, holesFeedback, holeDetail } from './coverage/holes';
export { lineCoverage } from './coverage/lineCoverage';
export { toLcov } from './coverage/lcov';
export { readRegression, belowDut, checkSameBuild, inHierarchyOf, type RegressionRun } from './coverage/regression';
export { toCobertura, COBERTURA_HEADER, type CoberturaOptions } from './coverage/cobertura';
export { measureCoverage, scopeToTop } from './coverage/measure';
export { buildWithFsm, readCoverageWithFsm, type FsmPlan } from './coverage/fsmMeasure';
export { cacheRoot } from './cache/cacheDir';
export { cacheInfo, clearCache, trimCache, type CacheInfo } from './cache/cacheSize';
export {
  DEFAULT_CACHE_MAX_BYTES,
  DEFAULT_MEMORY_LIMIT_BYTES,
  cacheMaxBytes,
  formatBytes,
  memoryLimitBytes,
  parseByteSize,
  toolMemoryBytes,
} from './process/limits';
export { findTestbenchTop } from './verilator/testbenchTop';
export { fileNamer, parseVerilatorOutput, parseRuntimeOutput } from './verilator/diagnostics';
export { lintDesign, designFlagArgs, type DesignFlags, type LintInput, type LintOptions } from './verilator/lintDesign';
export { splitDesignWarnings } from './verilator/designWarnings';
export { preprocessDesignFile, alignPreprocessed } from './verilator/preprocessDesign';
export { jailWarning, preprocessTestbench, violationDiagnostics, bwrapAvailable } from './sandbox';
export { killAllGroups } from './process/processGroup';
export { machineFault } from './verilator/infrastructure';
