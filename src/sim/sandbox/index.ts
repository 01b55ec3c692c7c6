/** The sandbox for untrusted testbenches: a static check of the preprocessed text, and a jail to run in. */
export {
  checkTestbench,
  checkPreprocessedText,
  preprocessTestbench,
  formatViolations,
  rejectionError,
  violationDiagnostics,
} from './check';
export type { SandboxCheckOptions, SandboxViolation, PreprocessedTestbench, PreprocessLimits } from './check';
export { jailCommand, scrubbedEnv, bwrapAvailable, jailWarning } from './jail';
export type { JailLimits, JailOptions, JailSpec } from './jail';
