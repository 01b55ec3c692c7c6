/**
 * `measure`: one given testbench against the DUT (what `chorus coverage` reports): build, run, read the DUT's
 * coverage, find the holes. Holes and points name their file by its absolute path, as every result does.
 */
import { resolve } from 'node:path';
import { fsmModelsOfFiles } from '../hdl';
import { jailWarning, measureCoverage, toCobertura, toLcov, type CoberturaOptions, type MeasureResult } from '../sim';
import type { CoveragePoint, Logger } from '../protocol';
import { parameterizedTestbench } from './parameterizedTestbench';
import { selectDut, type DutSelection } from './plan';

export type { MeasureResult };

export interface MeasureRequest {
  /** DUT source files. */
  rtlFiles: string[];
  testbench: string;
  /** DUT top module: coverage is scoped to its instances when given. */
  top?: string | undefined;
  includeDirs?: string[] | undefined;
  /** The design's `+define+` macros (`-D`, a filelist). */
  defines?: Record<string, string | undefined> | undefined;
  /** Top parameter overrides (`-G`): applied to the testbench's instantiations of `top`, in a copy. */
  parameters?: Record<string, string> | undefined;
  plusargs?: string[];
  timeoutMs?: number | undefined;
  maxSimTime?: number | undefined;
}

export interface MeasureServices {
  logger: Logger;
  signal: AbortSignal;
  verilatorPath?: string | undefined;
  /** Includes outside this folder are rejected by the sandbox check. */
  workspaceRoot?: string;
  /** Most memory CHORUS and a tool building or running the testbench may hold; default 4 GiB. */
  memoryLimitBytes?: number | undefined;
  /** Byte cap of the build cache; default 2 GiB. */
  cacheMaxBytes?: number | undefined;
}

/** `selected`: the DUT selection a caller already made for these files (`selectDut`), used instead of a second. */
export async function measure(
  req: MeasureRequest,
  services: MeasureServices,
  selected?: DutSelection,
): Promise<MeasureResult> {
  // Loudly, once per measurement: without bubblewrap the testbench is not jailed.
  const unjailed = jailWarning();
  if (unjailed) services.logger.warn(unjailed);
  if (!Object.keys(req.parameters ?? {}).length) return measureAsGiven(req, services);
  // The overrides name parameters the top declares, and go on a copy of the testbench (Verilator's -G reaches
  // only the top module, here the testbench); messages about the copy name the user's file.
  const { top } =
    selected ??
    (await selectDut({
      files: req.rtlFiles,
      top: req.top,
      design: { includeDirs: req.includeDirs, defines: req.defines, parameters: req.parameters },
      verilatorPath: services.verilatorPath,
      signal: services.signal,
    }));
  const copy = await parameterizedTestbench(req.testbench, top.name, req.parameters ?? {});
  try {
    const result = await measureAsGiven({ ...req, top: top.name, testbench: copy.path }, services);
    const original = (file: string) => (resolve(file) === copy.path ? req.testbench : file);
    return {
      ...result,
      diagnostics: result.diagnostics.map((d) => ({
        ...d,
        file: original(d.file),
        message: d.message.replaceAll(copy.path, req.testbench),
      })),
    };
  } finally {
    await copy.dispose();
  }
}

async function measureAsGiven(req: MeasureRequest, services: MeasureServices): Promise<MeasureResult> {
  // The simulator gets the paths as given, so its errors name files as the user typed them.
  const result = await measureCoverage(
    {
      dutFiles: req.rtlFiles,
      testbench: req.testbench,
      dutTop: req.top,
      // FSM state and arc coverage from CHORUS's own FSM analysis (src/hdl/fsm.ts).
      fsms: await fsmModelsOfFiles(req.rtlFiles),
      includeDirs: req.includeDirs,
      plusargs: req.plusargs,
      timeoutMs: req.timeoutMs,
      maxSimTime: req.maxSimTime,
    },
    {
      verilatorPath: services.verilatorPath,
      logger: services.logger,
      signal: services.signal,
      workspaceRoot: services.workspaceRoot,
      memoryLimitBytes: services.memoryLimitBytes,
      cacheMaxBytes: services.cacheMaxBytes,
      design: req.defines ? { defines: req.defines } : undefined,
    },
  );
  return {
    ...result,
    holes: result.holes.map((h) => ({ ...h, file: resolve(h.file) })),
    points: result.points.map((p) => ({ ...p, file: resolve(p.file) })),
  };
}

/** An lcov tracefile of measured points; `name` writes each `SF:` path (default: as the points name it). */
export function lcov(points: CoveragePoint[], name?: (file: string) => string): string {
  return toLcov(points, name);
}

/** Cobertura XML of measured points (src/sim/coverage/cobertura.ts). */
export function cobertura(points: CoveragePoint[], options: CoberturaOptions): string {
  return toCobertura(points, options);
}
