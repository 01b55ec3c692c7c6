/** Formal closure with Yosys (WebAssembly): prove uncovered points unreachable, or find a witness trace. */
export { isolateSites, isolationReads, prove, type ProveServices } from './prove';
export { instrument, rewriteXCompares, FLAG_PREFIX, type Instrumented } from './instrument';
export type {
  FormalTarget,
  ProveRequest,
  ProveResult,
  StartState,
  StimulusRow,
  TargetVerdict,
  Verdict,
  Witness,
} from './types';
export { proverVersion } from './version';
export { MAX_START_CYCLES } from './deepWitness';
