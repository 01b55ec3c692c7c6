/** The simulation core: Verilator build (cached), bounded run, exact DUT coverage, holes, lcov. */
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
export { detectVerilator, MIN_VERILATOR, parseVerilatorVersion } from './verilator';
export { buildSimulation, BASE_FLAGS, buildFlags, COVERAGE_FLAGS, UNROLL_FLAGS, type BuildResultDetail } from './build';
export { runSimulation, DEFAULT_MAX_SIM_TIME, DEFAULT_RUN_TIMEOUT_MS } from './run';
export { readCoverageFile, parseCoverageDat, pointLines } from './coverageFile';
export { mergePoints, summarize, summarizeByInstance, emptySummary, pointId, isCovered } from './summary';
export { findHoles, holesFeedback, holeDetail } from './holes';
export { lineCoverage } from './lineCoverage';
export { toLcov } from './lcov';
export { measureCoverage, scopeToTop } from './measure';
export { buildWithFsm, readCoverageWithFsm, type FsmPlan } from './fsmMeasure';
export { cacheRoot } from './cacheDir';
export { cacheInfo, clearCache, trimCache, type CacheInfo } from './cacheSize';
export {
  DEFAULT_CACHE_MAX_BYTES,
  DEFAULT_MEMORY_LIMIT_BYTES,
  cacheMaxBytes,
  formatBytes,
  memoryLimitBytes,
  parseByteSize,
} from './limits';
export { findTestbenchTop } from './testbenchTop';
export { parseVerilatorOutput, parseRuntimeOutput } from './diagnostics';
export { lintDesign, designFlagArgs, type DesignFlags, type LintInput, type LintOptions } from './lintDesign';
export { splitDesignWarnings } from './designWarnings';
export { preprocessDesignFile, alignPreprocessed } from './preprocessDesign';
export { jailWarning } from './sandbox';
export { killAllGroups } from './processGroup';
export { machineFault } from './infrastructure';
