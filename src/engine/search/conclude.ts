/**
 * From the kept candidates to the emitted testbench and its own measurement: the fewest sequences that cover what
 * the search reached, each shortened within the time left, ordered for a DUT without a reset, emitted, and
 * measured. Faithful: where the measured table misses a point the search reached (a shortened sequence that only
 * reached it from the state its own run left), that sequence is put back whole and the table measured again.
 */
import { join } from 'node:path';
import type { CoveragePoint, CoverageReport } from '../../protocol';
import { evaluateTestbench } from '../evaluate';
import { writeFileAtomic } from '../fs';
import { emitTestbench, testbenchRows, type KeptSequence, type TableRow } from './emit';
import type { SearchParts } from './explore';
import { hitKeys, measureTable, orderWithoutReset } from './finish';
import { HALF_PERIOD } from './harness';
import { minimize, shorten } from './shrink';
import { totalCycles, type Row } from './stimulus';

/** Shrinking budgets, in runs (not time, so a seed gives the same testbench on any machine). */
const SHRINK_RUNS_PER_SEQUENCE = 30;
const SHRINK_RUNS_TOTAL = 80;
const MIN_SHRINK_RUNS = 6;
/** Repairs of a shrunk table that misses points the search reached (each restores the original sequences). */
const MAX_REPAIRS = 2;
/** Wall-clock allowance per simulated cycle when the emitted testbench is rebuilt and re-simulated on its own. */
const MS_PER_MILLION_CYCLES = 20_000;

export interface Concluded {
  testbench: string;
  table: TableRow[];
  sequences: number;
  own: { report: CoverageReport; points: CoveragePoint[] };
  shrinkMs: number;
  finalMs: number;
}

export async function conclude(parts: SearchParts, meta: { tbName: string; filename: string }): Promise<Concluded> {
  const { ctx, opts, budget, runner, progress, gen, signal, logger } = parts;
  const searchRuns = runner.runs;
  const tShrink = Date.now();
  const chosen = minimize(progress.kept);
  const finalEstimate = () => runner.estimateMs(chosen.reduce((a, c) => a + totalCycles(c.kept.candidate.rows), 0));
  const over = () => signal.aborted || budget.remaining() <= finalEstimate();
  const reaches = async (rows: Row[], gain: Set<string>): Promise<boolean> => {
    const hit = hitKeys((await parts.run({ rows, origin: '' })) ?? []);
    for (const k of gain) if (!hit.has(k)) return false;
    return true;
  };
  const sequences: KeptSequence[] = [];
  // Shrinking only makes the testbench shorter to read: a run budget per sequence and for all of them, no more
  // than the search itself took (a design closed by the first candidate is not worth a dozen more runs).
  const shrinkTotal = Math.min(SHRINK_RUNS_TOTAL, Math.max(MIN_SHRINK_RUNS, searchRuns));
  for (const c of chosen) {
    const left = shrinkTotal - (runner.runs - searchRuns);
    sequences.push({
      candidate:
        left > 0 && !over()
          ? await shorten(c, { runs: Math.min(SHRINK_RUNS_PER_SEQUENCE, left), over, prologue: gen.prologue }, reaches)
          : c.kept.candidate,
      newPoints: c.gain.size,
    });
  }
  const shrinkMs = Date.now() - tShrink;
  // Without a reset each sequence starts where the one before it left off: the order matters (orderWithoutReset).
  const order =
    gen.prologue || sequences.length < 2
      ? sequences.map((_, i) => i)
      : await orderWithoutReset(
          runner,
          sequences,
          chosen.map((c) => c.gain),
          over,
        );
  const ordered = order.map((i) => ({ sequence: sequences[i], chosen: chosen[i] }));

  const tFinal = Date.now();
  const tbPath = join(ctx.workDir, meta.filename);
  for (let repair = 0; ; repair++) {
    const seqs = ordered.map((o) => o.sequence);
    const testbench = emitTestbench(parts.plan, seqs, { seed: opts.seed, tbName: meta.tbName });
    const table = testbenchRows(seqs);
    const cycles = table.reduce((a, r) => a + r.cycles, 0);
    const done = (own: { report: CoverageReport; points: CoveragePoint[] }): Concluded => ({
      testbench,
      table,
      sequences: seqs.length,
      own,
      shrinkMs,
      finalMs: Date.now() - tFinal,
    });
    if (opts.rebuildTestbench) {
      return done(
        await evaluateTestbench(ctx, testbench, {
          filename: meta.filename,
          sim: parts.sim,
          timeoutMs: Math.max(opts.simTimeoutMs, 60_000) + Math.ceil((cycles / 1e6) * MS_PER_MILLION_CYCLES),
          maxSimTime: (cycles + 16) * 2 * HALF_PERIOD,
        }),
      );
    }
    await writeFileAtomic(tbPath, testbench);
    const measured = await measureTable(ctx, runner, table, tbPath);
    const missing = progress.reachedByTheSearch().filter((k) => !measured.hit.has(k));
    if (!missing.length || measured.report.status !== 'ok' || repair >= MAX_REPAIRS || signal.aborted) {
      if (missing.length)
        logger.debug(`search: the emitted testbench misses ${missing.length} point(s) the search reached`);
      return done(measured);
    }
    const lost = new Set(missing);
    let restored = 0;
    for (const o of ordered) {
      if (o.sequence.candidate === o.chosen.kept.candidate || ![...o.chosen.gain].some((k) => lost.has(k))) continue;
      o.sequence = { candidate: o.chosen.kept.candidate, newPoints: o.sequence.newPoints };
      restored++;
    }
    logger.debug(
      `search: the shrunk testbench missed ${missing.length} point(s) the search reached; ${restored} sequence(s) restored whole`,
    );
    if (!restored) return done(measured);
  }
}
