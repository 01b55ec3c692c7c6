/** The simulation core's public shapes: what callers pass in and get back. */
import type { CoveragePoint, CoverageReport, Diagnostic, FsmModel, Logger } from '../protocol';

/** What Verilator needs besides the files to read a design as the user's own flow does (`-I`, `-D`, filelists). */
export interface DesignFlags {
  /** `+incdir` folders (absolute, or relative to the working folder). */
  includeDirs?: string[] | undefined;
  /** `+define+NAME[=VALUE]` macros; an `undefined` value defines the name alone. */
  defines?: Record<string, string | undefined> | undefined;
  /** Top-module parameter overrides (`-G`), as Verilog literals: applied where the DUT is the top (the design lint). */
  parameters?: Record<string, string> | undefined;
}

export interface SimOptions {
  /** The design's include folders and macros, added to every build (and its cache key). */
  design?: DesignFlags | undefined;
  /** Verilator executable; `verilator` on PATH when omitted. */
  verilatorPath?: string | undefined;
  /** Build cache root; CHORUS_CACHE_DIR, else $XDG_CACHE_HOME/chorus, else ~/.cache/chorus. */
  cacheDir?: string | undefined;
  logger?: Logger;
  /** Cancels builds and runs: the whole process group is killed. */
  signal?: AbortSignal;
  /** Includes outside this folder are rejected by the sandbox check. */
  workspaceRoot?: string | undefined;
  /**
   * Most memory CHORUS and a tool that reads the testbench (preprocessor, Verilator, the C++ compile, the
   * simulator) may hold together (limits.ts). Default CHORUS_MEMORY_LIMIT, else 4 GiB.
   */
  memoryLimitBytes?: number | undefined;
  /** Byte cap of the build cache (simulators, runtime objects, precompiled headers, ccache). Default CHORUS_CACHE_MAX, else 2 GiB. */
  cacheMaxBytes?: number | undefined;
}

export interface VerilatorInfo {
  path: string;
  version: string;
  major: number;
  minor: number;
  /** The installation's data folder (VERILATOR_ROOT as Verilator itself resolves it); '' when it did not say. */
  root: string;
  features: VerilatorFeatures;
}

/** What one Verilator accepts, probed once per binary (src/sim/verilator/verilator.ts). */
export interface VerilatorFeatures {
  version: string;
  /** `--coverage-line --coverage-toggle --coverage-user` (all supported versions: what `--coverage` meant in 5.006). */
  coverageSplit: boolean;
  /** `--coverage-expr` (5.034+). */
  coverageExpr: boolean;
  /** `--coverage-fsm` (5.048+). */
  coverageFsm: boolean;
  /** `--unroll-limit` (generate loops and constant functions; `--unroll-count` then limits procedural loops only). */
  unrollLimit: boolean;
  /** Toggle points count `0->1` and `1->0` separately (5.040+); CHORUS merges them into one point per bit. */
  toggleDirections: boolean;
  /** `--xml-only` (dropped by 5.050, which has `--json-only`): how the design lint reads elaborated port widths. */
  xmlOnly: boolean;
}

export interface BuildInput {
  /** DUT source files, as the user gave them (relative to the current folder or absolute). */
  dutFiles: string[];
  /** Path of the testbench file. */
  testbench: string;
  /** Top module of the testbench; found from the testbench file when omitted. */
  tbTop?: string;
  /** Extra Verilator arguments (part of the cache key). */
  extraFlags?: string[];
  /** `+incdir` folders for `include; part of the cache key. */
  includeDirs?: string[] | undefined;
  /** Wall-clock bound for the whole build (Verilator and the C++ compile); default 10 minutes. */
  buildTimeoutMs?: number;
  /**
   * The testbench is CHORUS's own generated harness, which reads its stimulus file: the sandbox's file-reading
   * rules do not apply to it (every other rule does).
   */
  ownHarness?: boolean;
}

/** `resource_limit`: a build step passed its memory, CPU, file-size or process bound and was stopped. */
export type BuildStatus = 'ok' | 'compile_error' | 'rejected' | 'resource_limit';

export interface BuildResult {
  status: BuildStatus;
  /** The simulator executable (inside the cache), when the build succeeded. */
  binary?: string;
  /** The testbench's messages, and every error. */
  diagnostics: Diagnostic[];
  /** Lint warnings located in the design's files (not the testbench): reported to the user, never fatal. */
  designWarnings?: Diagnostic[] | undefined;
  ms: number;
  cacheHit: boolean;
  notes: string[];
  /** Content key of the build (sources, flags, Verilator version). */
  key: string;
}

export interface RunInput {
  binary: string;
  /** Where the run writes coverage.dat (atomically); an older file there is removed first. */
  coverageFile: string;
  /** Extra plusargs for the testbench, such as `+stim=vectors.txt`. */
  plusargs?: string[] | undefined;
  /** Wall-clock bound; default 60 s. The simulator stops itself shortly before and still writes coverage. */
  timeoutMs?: number | undefined;
  /** Simulated-time bound in the testbench top's time unit (the unit of `#1`); default 10,000,000. 0: none. */
  maxSimTime?: number | undefined;
  /** Working folder of the simulator (writable inside the jail); default: the coverage file's folder. */
  cwd?: string;
  /** Output kept: the first and last halves of this many bytes; default 256 KiB. */
  outputCapBytes?: number;
  /** Files or folders the simulator may read besides its work folder (stimulus files elsewhere). */
  readPaths?: string[];
  /**
   * The testbench is CHORUS's own generated code (the vector harness), not model or third-party output: run it
   * without the bubblewrap jail, which costs a process start per run. Resource limits still apply.
   */
  trusted?: boolean;
  /**
   * Simulated time, in the testbench top's time unit, between looks at the points hit: the result then says when
   * one was new (`freshAt`, the last as `grewAt`).
   */
  checkpointUnits?: number | undefined;
  /**
   * With checkpoints: the points earlier runs of this simulator hit (a file it reads, one byte per counter, and
   * writes back with this run's): only points none of them hit count as new. Absent: new to this run.
   */
  knownPointsFile?: string | undefined;
  /** The simulator's standard input (a testbench reading `/dev/stdin` takes its stimulus as it is written). */
  stdin?: NodeJS.ReadableStream | undefined;
}

export type RunStatus = 'ok' | 'sim_error' | 'timeout' | 'resource_limit';

export interface RunResult {
  status: RunStatus;
  ms: number;
  /** Simulator output (stdout and stderr), capped. */
  output: string;
  diagnostics: Diagnostic[];
  /** True when the run stopped at the simulated-time or wall-clock bound rather than at `$finish` or idle. */
  bounded: boolean;
  coverageWritten: boolean;
  /** Why the simulator stopped, as it reported it: finish, idle, simtime, deadline, error; 'killed' or 'crashed' otherwise. */
  stop?: string;
  /** Simulated time reached, in the testbench's time precision (when reported). */
  simTime?: number | undefined;
  /** With `checkpointUnits`: the time, in time units, of the last checkpoint at which a point was new. */
  grewAt?: number | undefined;
  /** With `checkpointUnits`: the times of every checkpoint at which a point was new, in order. */
  freshAt?: number[] | undefined;
}

export interface MeasureInput extends BuildInput {
  timeoutMs?: number | undefined;
  maxSimTime?: number | undefined;
  /** DUT top module: coverage is scoped to its instances (and their sub-instances) when given. */
  dutTop?: string | undefined;
  /** Extra plusargs for the run. */
  plusargs?: string[] | undefined;
  /** The DUT's FSMs (src/hdl/fsm.ts): measured as `fsm_state`/`fsm_arc` points by a bound probe. */
  fsms?: FsmModel[];
}

export type MeasureResult = CoverageReport & {
  /** The DUT's coverage points (after scoping), for merging, lcov and editor overlays. */
  points: CoveragePoint[];
  /** The simulator's output (capped), when it ran. */
  simOutput?: string;
  /** The simulator came from the build cache (a warm build): what a server counts as a cache hit. */
  cacheHit?: boolean;
  /** Verilator's own FSM points (5.048+), as read, before merging with CHORUS's: for checks that the two agree. */
  nativeFsm?: CoveragePoint[];
};
