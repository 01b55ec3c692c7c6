/**
 * `chorus prove`, formal closure as a use case: find the holes a user would see (a given testbench's, or what the
 * model-free search leaves), then decide each with the formal engine. It runs whole runs, so nothing a run imports
 * may import it: the search hands its holes to `provePoints` directly.
 */
import { resolve } from 'node:path';
import { ChorusError, DEFAULT_TARGETS, type CoveragePoint, type CoverageSummary } from '../../protocol';
import { generateToEnd } from '../generate';
import { measure } from '../measure';
import { selectDut } from '../plan';
import { provePoints, type FormalOptions, type FormalServices, type TargetVerdict } from './provePoints';

export interface ProveHolesRequest extends FormalOptions {
  rtlFiles: string[];
  top?: string | undefined;
  /** Measure this testbench for the holes; without it the model-free search finds them. */
  testbench?: string | undefined;
  /** Model-free search budget, seconds (default 20). */
  budgetSeconds?: number | undefined;
  seed?: number | undefined;
}

export interface ProveHolesReport {
  top: string;
  /** How the holes were found. */
  holesFrom: 'testbench' | 'search';
  coverage: CoverageSummary;
  verdicts: TargetVerdict[];
  /** Time in Yosys and in finding the holes, ms. */
  yosysMs: number;
  searchMs: number;
  failure?: string;
}

/** `chorus prove`: find the holes a user would see, then decide each with the formal engine. */
export async function proveHoles(
  req: ProveHolesRequest,
  services: FormalServices & { verilatorPath?: string | undefined; cacheDir?: string },
): Promise<ProveHolesReport> {
  // The holes are found on the design as it is built: its include folders, macros and top parameters. The DUT is
  // selected once, here, and the measurement or the search gets that selection.
  const design = { includeDirs: req.includeDirs, defines: req.defines, parameters: req.parameters };
  const dut = await selectDut({
    files: req.rtlFiles,
    top: req.top,
    design,
    verilatorPath: services.verilatorPath,
    signal: services.signal,
  });
  const rtlFiles = dut.files;
  const top = dut.top.name;
  const started = Date.now();
  let points: CoveragePoint[];
  let coverage: CoverageSummary;
  if (req.testbench) {
    const m = await measure(
      { rtlFiles, testbench: resolve(req.testbench), top, ...design },
      { logger: services.logger, signal: services.signal, verilatorPath: services.verilatorPath },
      dut,
    );
    if (m.status !== 'ok')
      throw new ChorusError(
        'failed',
        `The testbench did not run (${m.status}): run \`chorus coverage\` on it to see why.`,
      );
    points = m.points;
    coverage = m.coverage;
  } else {
    const r = await generateToEnd(
      // The search's own formal stage is off: every hole it leaves is decided below, with this command's bounds.
      {
        rtlFiles,
        top,
        ...design,
        engine: 'random',
        targets: DEFAULT_TARGETS,
        budgetSeconds: req.budgetSeconds ?? 20,
        seed: req.seed,
        formal: false,
      },
      {
        logger: services.logger,
        signal: services.signal,
        verilatorPath: services.verilatorPath,
        cacheDir: services.cacheDir,
      },
      undefined,
      dut,
    );
    points = r.points;
    coverage = r.coverage;
  }
  const searchMs = Date.now() - started;
  const result = await provePoints(points, { rtlFiles, top }, req, services);
  return {
    top,
    holesFrom: req.testbench ? 'testbench' : 'search',
    coverage,
    verdicts: result.verdicts,
    yosysMs: result.yosysMs,
    searchMs,
    ...(result.failure ? { failure: result.failure } : {}),
  };
}
