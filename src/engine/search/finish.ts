/**
 * The search's last steps: the testbench's table measured through the harness binary (the same rows and timing as
 * the testbench's own loop, so the same points, without a second build), the order of sequences for a DUT without
 * a reset, and the merge with the user's regression.
 */
import { readSourceText } from '../../hdl';
import { findHoles, mergePoints, scopeToTop, summarize, summarizeByInstance } from '../../sim';
import { type CoveragePoint, type CoverageReport, type RegressionReport, pointId } from '../../protocol';
import type { RunContext } from '../context';
import { explainHoles } from '../evaluate';
import { tableStimulus, testbenchRows, type KeptSequence, type TableRow } from './emit';
import type { HarnessRunner, RowsRun } from './runner';

/** Orderings tried for a DUT without a reset input (see orderWithoutReset). */
const MAX_REORDERS = 3;

export const hitKeys = (pts: CoveragePoint[]) => new Set(pts.filter((p) => p.count > 0).map(pointId));

export interface TableMeasure {
  report: CoverageReport;
  points: CoveragePoint[];
  /** Every point the table hit, in the harness's hierarchy (the search's keys), for the faithfulness check. */
  hit: Set<string>;
}

export async function dutSources(ctx: RunContext): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  for (const f of ctx.rtlFiles) sources.set(f, ctx.sources.get(f) ?? (await readSourceText(f).catch(() => '')));
  return sources;
}

/** The holes of a measurement, labelled with what analysis and the run's formal ledger know now. */
export async function labelledHoles(ctx: RunContext, points: CoveragePoint[]) {
  return explainHoles(ctx, findHoles(points, await dutSources(ctx)), points);
}

/** Runs a table through the harness and reads its coverage; the report is the testbench's (file `tbPath`). */
export async function measureTable(
  ctx: RunContext,
  runner: HarnessRunner,
  table: TableRow[],
  tbPath: string,
): Promise<TableMeasure> {
  const n = table.reduce((a, r) => a + r.cycles, 0);
  const run = await runner.runText(tableStimulus(table), n);
  return tableMeasure(ctx, run, () => runner.lastPoints(), tbPath);
}

/** The testbench's report from the run of its table (a run of its own, or the live one) and that run's points. */
export async function tableMeasure(
  ctx: RunContext,
  run: RowsRun,
  readPoints: () => Promise<CoveragePoint[]>,
  tbPath: string,
): Promise<TableMeasure> {
  const failed = (message: string): TableMeasure => ({
    report: {
      status: run.status === 'timeout' ? 'timeout' : 'sim_error',
      coverage: summarize([]),
      instances: {},
      holes: [],
      diagnostics: [{ file: tbPath, line: 0, column: 0, severity: 'error', message }],
      ms: { build: 0, sim: run.ms },
    },
    points: [],
    hit: new Set(),
  });
  if (!run.written)
    return failed(`The emitted testbench's stimulus wrote no coverage (${run.status}): ${run.output.slice(-400)}`);
  const raw = await readPoints();
  const points = scopeToTop(raw, ctx.top.name);
  if (!points.length) return failed(`No coverage of the DUT top module '${ctx.top.name}' was measured.`);
  const report: CoverageReport = {
    status: run.status === 'ok' ? 'ok' : run.status === 'timeout' ? 'timeout' : 'sim_error',
    coverage: summarize(points),
    instances: summarizeByInstance(points),
    holes: await labelledHoles(ctx, points),
    diagnostics: [],
    ms: { build: 0, sim: run.ms },
  };
  return { report, points, hit: hitKeys(raw) };
}

/**
 * Without a reset input each sequence starts from the state the one before it left, not from the state it was
 * found from: a point a sequence reached from power-up may be missed after another. Moves the sequence whose
 * points the whole table misses most to the front (power-up state), a few times, checking with harness runs; the
 * order of the sequences' indices.
 */
export async function orderWithoutReset(
  runner: HarnessRunner,
  seqs: KeptSequence[],
  gains: Set<string>[],
  over: () => boolean,
): Promise<number[]> {
  const order = seqs.map((_, i) => i);
  if (seqs.length < 2) return order;
  for (let attempt = 0; attempt < MAX_REORDERS && !over(); attempt++) {
    const rows = testbenchRows(order.map((i) => seqs[i]));
    const run = await runner.runText(
      tableStimulus(rows),
      rows.reduce((a, r) => a + r.cycles, 0),
    );
    if (!run.written) return order;
    const hit = hitKeys(await runner.lastPoints());
    const missed = (i: number) => [...gains[i]].filter((k) => !hit.has(k)).length;
    let best = 0;
    for (let pos = 1; pos < order.length; pos++) if (missed(order[pos]) > (best ? missed(order[best]) : 0)) best = pos;
    if (!best) break;
    order.unshift(...order.splice(best, 1));
  }
  return order;
}

/**
 * The testbench's measurement merged with the regression, counts summed as `verilator_coverage --write` sums
 * them: the run's report, holes and verdict are the merge's; the regression, the testbench and what it adds are
 * reported beside it.
 */
export async function onRegression(
  ctx: RunContext,
  regression: CoveragePoint[],
  regressionHit: Set<string>,
  tb: { report: CoverageReport; points: CoveragePoint[] },
): Promise<{ report: CoverageReport; points: CoveragePoint[]; regression: RegressionReport }> {
  const points = mergePoints(regression, tb.points);
  const added = points.map((p) => (regressionHit.has(pointId(p)) ? { ...p, count: 0 } : p));
  const report: CoverageReport = {
    ...tb.report,
    coverage: summarize(points),
    instances: summarizeByInstance(points),
    holes: await labelledHoles(ctx, points),
  };
  return {
    report,
    points,
    regression: {
      files: ctx.regression?.files ?? [],
      coverage: summarize(regression),
      testbench: tb.report.coverage,
      added: summarize(added),
    },
  };
}
