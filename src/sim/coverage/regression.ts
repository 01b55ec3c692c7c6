/**
 * A user's regression coverage (`generate --merge <coverage.dat…>`): each file read with the one reader
 * (coverageFile.ts), its DUT points renamed below the DUT whatever testbench hierarchy holds it (`TOP.tb_top.dut.u_x`
 * and CHORUS's `TOP.tb_<top>.uut.u_x` are both `u_x`), and files that could not have come from one build refused.
 *
 * What is compared: coverage.dat carries no Verilator version or flag header (`# SystemC::Coverage-3` only), so a
 * file's build is told by the point kinds it holds (`--coverage-line`, `-branch`, `-toggle`, `-expr`, user covers)
 * and by the DUT points themselves: every file's DUT points must be the same set (file, line, column, kind,
 * comment, instance below the DUT). Another Verilator version or other flags change that set, and the refusal names
 * the kinds and the first points that differ.
 */
import { ChorusError, type CoveragePoint } from '../../protocol';
import { readUserText } from '../../protocol/userFile';
import { parseCoverageDat } from './coverageFile';
import { mergePoints, pointId } from './summary';

export interface RegressionRun {
  file: string;
  /** The DUT's points, `hierarchy` below the DUT (`''` the DUT itself). */
  points: CoveragePoint[];
}

/** The DUT's instance path in a file: the shortest instance of the top module (the testbench's own modules are not it). */
function dutRoot(points: CoveragePoint[], top: string, file: string): string {
  const roots = points.filter((p) => p.module === top).map((p) => p.hierarchy);
  if (!roots.length)
    throw new ChorusError(
      'bad_input',
      `No coverage point of module ${top} in this file: it is not from a build of this design with --coverage; check --top.`,
      { file },
    );
  return roots.reduce((a, b) => (b.split('.').length < a.split('.').length ? b : a));
}

/** Points renamed below the DUT: `TOP.tb_top.dut.u_x` with root `TOP.tb_top.dut` is `u_x`. */
export function belowDut(points: CoveragePoint[], top: string, file: string): CoveragePoint[] {
  const root = dutRoot(points, top, file);
  return points
    .filter((p) => p.hierarchy === root || p.hierarchy.startsWith(`${root}.`))
    .map((p) => ({ ...p, hierarchy: p.hierarchy.slice(root.length + 1) }));
}

const kindsOf = (points: CoveragePoint[]) => [...new Set(points.map((p) => p.kind))].sort();

/** Refuses runs whose DUT points differ from the first one's, naming the kinds and points that differ. */
export function checkSameBuild(runs: RegressionRun[]): void {
  const [first, ...rest] = runs;
  if (!first) return;
  const ids = new Set(first.points.map(pointId));
  const firstKinds = kindsOf(first.points).join(', ');
  for (const r of rest) {
    const kinds = kindsOf(r.points).join(', ');
    const mine = new Set(r.points.map(pointId));
    const missing = first.points.filter((p) => !mine.has(pointId(p)));
    const extra = r.points.filter((p) => !ids.has(pointId(p)));
    if (kinds === firstKinds && !missing.length && !extra.length) continue;
    const show = (p: CoveragePoint) =>
      `${p.kind} ${p.comment} at line ${p.line}${p.hierarchy ? ` in ${p.hierarchy}` : ''}`;
    const diff = [
      kinds !== firstKinds ? `kinds ${kinds} against ${firstKinds} in ${first.file} (other --coverage flags)` : '',
      missing.length
        ? `${missing.length} point(s) of ${first.file} missing (${missing.slice(0, 3).map(show).join('; ')})`
        : '',
      extra.length ? `${extra.length} point(s) not in ${first.file} (${extra.slice(0, 3).map(show).join('; ')})` : '',
    ].filter(Boolean);
    throw new ChorusError(
      'bad_input',
      `Not from the same build of the design as ${first.file}: ${diff.join('; ')}. Merge only files of one Verilator ` +
        'version, one set of coverage flags and one version of the RTL.',
      { file: r.file },
    );
  }
}

/** A regression's coverage.dat is far larger than a source file (a large design's runs to hundreds of MiB); one string holds at most this. */
const MAX_COVERAGE_FILE_BYTES = 512 * 1024 ** 2;

/** Reads, renames and checks the regression's files; the merged DUT points (counts summed, as verilator_coverage does). */
export async function readRegression(
  files: string[],
  dutFiles: string[],
  top: string,
): Promise<{ runs: RegressionRun[]; merged: CoveragePoint[] }> {
  const runs: RegressionRun[] = [];
  for (const file of files) {
    const text = await readUserText(file, { what: 'coverage file (--merge)', maxBytes: MAX_COVERAGE_FILE_BYTES });
    runs.push({ file, points: belowDut(parseCoverageDat(text, dutFiles, file), top, file) });
  }
  checkSameBuild(runs);
  return { runs, merged: mergePoints(...runs.map((r) => r.points)) };
}

/**
 * The regression's merged DUT points named in another build's hierarchy (CHORUS's harness), after checking that
 * build holds the same DUT points: a regression of other coverage flags or another Verilator is refused here too.
 * `own` are that build's points; its FSM points come from CHORUS's own probe, never from a coverage.dat.
 */
export function inHierarchyOf(
  regression: RegressionRun,
  own: CoveragePoint[],
  top: string,
  ownName: string,
): CoveragePoint[] {
  const fromDat = own.filter((p) => p.kind !== 'fsm_state' && p.kind !== 'fsm_arc');
  const root = dutRoot(fromDat, top, ownName);
  checkSameBuild([{ file: ownName, points: belowDut(fromDat, top, ownName) }, regression]);
  return regression.points.map((p) => ({ ...p, hierarchy: p.hierarchy ? `${root}.${p.hierarchy}` : root }));
}
