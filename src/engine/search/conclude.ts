/**
 * From the kept candidates to the emitted testbench and its own measurement: the fewest sequences that cover what
 * the search reached, each shortened within the time left, ordered for a DUT without a reset, emitted, and
 * measured. Faithful: where the measured table misses a point the search reached (a shortened sequence that only
 * reached it from the state its own run left), that sequence is put back whole and the table measured again.
 */
import { join } from 'node:path';
import type { CoveragePoint, CoverageReport, StopReason } from '../../protocol';
import { evaluateTestbench } from '../evaluate';
import { writeFileAtomic } from '../fs';
import { emitTestbench, testbenchRows, type KeptSequence, type TableRow } from './emit';
import type { SearchParts } from './explore';
import { hitKeys, measureTable, orderWithoutReset, tableMeasure } from './finish';
import { HALF_PERIOD } from './harness';
import { minimize, remeasureMs, shorten } from './shrink';
import { PLAIN_RESET_RATE, totalCycles, type Candidate, type Row } from './stimulus';

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
  /** Kept sequences in the testbench (the plain random tail not counted). */
  sequences: number;
  /** Whether a plain random tail ends the testbench. */
  tail: boolean;
  own: { report: CoverageReport; points: CoveragePoint[] };
  shrinkMs: number;
  finalMs: number;
}

/** A tail shorter than this is not worth its lines; longer than the most is more table than it is worth. */
const TAIL_MIN_CYCLES = 1_000;
const TAIL_MAX_CYCLES = 200_000;

/** Plain random for what is left of the budget beyond the final measurement's need, or none. */
function plainTail(parts: SearchParts, finalMs: number): { candidate: Candidate | undefined; spareMs: number } {
  const { budget, runner, gen } = parts;
  const spareMs = budget.finalSpare(finalMs);
  // The tail runs in the same simulation as the table: cycles only, no run start of its own.
  const cycles = Math.min(TAIL_MAX_CYCLES, Math.floor(spareMs / runner.perCycleMs(true)));
  const candidate = cycles >= TAIL_MIN_CYCLES ? gen.plain(cycles, gen.hasReset ? PLAIN_RESET_RATE : 0) : undefined;
  return { candidate, spareMs };
}

/**
 * The finish of a table measured as it was written (liveTable.ts): the tail appended, the rows closed, that run's
 * coverage the testbench's. Undefined where the live run did not end well (the finish then measures the table on its
 * own).
 */
async function concludeLive(
  parts: SearchParts,
  meta: { tbName: string; filename: string; stopReason: StopReason },
): Promise<Concluded | undefined> {
  const { ctx, opts, progress, live, logger } = parts;
  const tFinal = Date.now();
  live.sync(progress.kept);
  const spare = meta.stopReason === 'budget' ? plainTail(parts, live.backlogMs()) : undefined;
  if (spare?.candidate) {
    logger.debug(`search: a plain random tail of ${totalCycles(spare.candidate.rows)} cycles fills the time left`);
    live.append({ candidate: spare.candidate, newPoints: 0 });
  }
  const seqs = [...live.sequences];
  const testbench = emitTestbench(parts.plan, seqs, { seed: opts.seed, tbName: meta.tbName });
  const table = testbenchRows(seqs);
  const tbPath = join(ctx.workDir, meta.filename);
  await writeFileAtomic(tbPath, testbench);
  const { run, points } = await live.finish();
  // Ended before its rows: the design stopped the run itself (a `$finish` in a kept sequence), perhaps after the
  // search last looked; the finish chooses and measures the table on its own, and may leave that sequence out.
  if (run.cycles !== undefined && run.cycles < live.length) {
    logger.debug(
      `search: the live table's run ended before its rows (at cycle ${run.cycles} of ${live.length}); the finish measures the table on its own`,
    );
    return undefined;
  }
  logger.debug(`search: the live table's run simulated ${run.cycles ?? '?'} cycles of ${live.length}`);
  const measured = await tableMeasure(ctx, run, points, tbPath);
  if (measured.report.status !== 'ok') {
    logger.debug(
      `search: the live table's run ended ${run.status}; the table is measured on its own: ${run.output.trim().slice(-400)}`,
    );
    return undefined;
  }
  const missing = progress.reachedByTheSearch().filter((k) => !measured.hit.has(k));
  if (missing.length)
    logger.debug(
      `search: the emitted testbench misses ${missing.length} point(s) the search reached (a sequence reached them only from reset after a power-up, not after the sequences before it)`,
    );
  logger.debug(
    `search: the live table: ${seqs.length} sequence(s), ${live.length} cycles, its run ended ${Date.now() - tFinal} ms after the search`,
  );
  const tail = Boolean(spare?.candidate);
  return {
    testbench,
    table,
    sequences: seqs.length - (tail ? 1 : 0),
    tail,
    own: measured,
    shrinkMs: 0,
    finalMs: Date.now() - tFinal,
  };
}

export async function conclude(
  parts: SearchParts,
  meta: { tbName: string; filename: string; stopReason: StopReason },
): Promise<Concluded> {
  if (parts.live.active) {
    const live = await concludeLive(parts, meta);
    if (live) return live;
  } else if (parts.live.endedEarly)
    parts.logger.debug("search: the live table's run ended before its rows; the finish measures the table on its own");
  const { ctx, opts, budget, runner, progress, gen, signal, logger } = parts;
  const searchRuns = runner.runs;
  const tShrink = Date.now();
  const chosen = minimize(progress.kept);
  // The final measurement's estimate: what each sequence's own run took, in proportion to its length as it
  // shrinks (the slowest measured speed for one without a measured run).
  const lengths = chosen.map((c) => totalCycles(c.kept.candidate.rows));
  const slowest = (cycles: number) => runner.estimateMs(cycles, true);
  const finalEstimate = () => chosen.reduce((a, c, i) => a + remeasureMs(c.kept, slowest, lengths[i]), 0);
  logger.debug(
    `search: the testbench keeps ${chosen.length} of ${progress.kept.length} sequences, ${lengths.join(' + ')} cycles (about ${Math.round(finalEstimate())} ms to measure, ${Math.round(budget.remaining())} ms left)`,
  );
  // Shrinking stops at its own share of the budget, or where the final measurement would no longer fit.
  const shrinkUntil = tShrink + budget.finishAllowance();
  const over = () =>
    signal.aborted || budget.remaining() <= budget.finalNeed(finalEstimate()) || Date.now() >= shrinkUntil;
  const reaches = async (rows: Row[], gain: Set<string>): Promise<boolean> => {
    const hit = hitKeys((await parts.run({ rows, origin: '' })) ?? []);
    for (const k of gain) if (!hit.has(k)) return false;
    return true;
  };
  const sequences: KeptSequence[] = [];
  // Shrinking only makes the testbench shorter to read: a run budget per sequence and for all of them, no more
  // than the search itself took (a design closed by the first candidate is not worth a dozen more runs).
  const shrinkTotal = Math.min(SHRINK_RUNS_TOTAL, Math.max(MIN_SHRINK_RUNS, searchRuns));
  for (const [i, c] of chosen.entries()) {
    const left = shrinkTotal - (runner.runs - searchRuns);
    const candidate =
      left > 0 && !over()
        ? await shorten(
            c,
            {
              runs: Math.min(SHRINK_RUNS_PER_SEQUENCE, left),
              over,
              prologue: gen.prologue,
              minStep: runner.startCycles(),
            },
            reaches,
          )
        : c.kept.candidate;
    lengths[i] = totalCycles(candidate.rows);
    sequences.push({ candidate, newPoints: c.gain.size });
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
  // A search stopped by its budget has time left here that the final measurement can still use: a plain random
  // tail fills it, measured with the rest, so the run's last seconds find points instead of waiting.
  const spare = meta.stopReason === 'budget' && !opts.rebuildTestbench ? plainTail(parts, finalEstimate()) : undefined;
  const tail = spare?.candidate;
  if (spare && !tail)
    logger.debug(
      `search: no plain random tail: ${Math.round(spare.spareMs)} ms spare holds fewer than ${TAIL_MIN_CYCLES} cycles`,
    );
  if (tail) {
    logger.debug(`search: a plain random tail of ${totalCycles(tail.rows)} cycles fills the time left`);
    ordered.push({
      sequence: { candidate: tail, newPoints: 0 },
      chosen: { kept: { candidate: tail, newPoints: 0, covered: new Set() }, gain: new Set() },
    });
  }

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
      sequences: seqs.length - (tail && seqs[seqs.length - 1]?.candidate === tail ? 1 : 0),
      tail: Boolean(tail && seqs[seqs.length - 1]?.candidate === tail),
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
    // A repair measures the table again, so it runs only where that fits in what is left of the budget (the run
    // ends on time, reporting the testbench's own figure).
    if (budget.remaining() < measured.report.ms.sim) {
      logger.debug(
        `search: the emitted testbench misses ${missing.length} point(s) the search reached; no time left to measure a repaired table (${Math.round(measured.report.ms.sim)} ms)`,
      );
      return done(measured);
    }
    // The tail has had its time.
    if (tail && ordered[ordered.length - 1]?.sequence.candidate === tail) ordered.pop();
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
