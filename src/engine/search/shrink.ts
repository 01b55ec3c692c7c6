/**
 * From the kept candidates to the testbench's sequences: the fewest that cover every point the search reached
 * (greedy set cover), each shortened while it still reaches the points it was chosen for.
 */
import type { KeptSequence } from './emit';
import { MAX_CYCLES, prefixRows, toCycles, toRows, totalCycles, type Candidate, type Row } from './stimulus';

export interface Kept extends KeptSequence {
  covered: Set<string>;
  /** Wall time of the run that found it: what measuring it again costs. */
  ms?: number | undefined;
}

/**
 * What measuring a kept sequence again takes at `cycles` of its length (all of it by default): its own run's time
 * in proportion, or `estimate` for one whose run was not timed.
 */
export function remeasureMs(kept: Kept, estimate: (cycles: number) => number, cycles?: number): number {
  const full = totalCycles(kept.candidate.rows);
  return full ? ((kept.ms ?? estimate(full)) * (cycles ?? full)) / full : 0;
}

export interface Chosen {
  kept: Kept;
  /** The points this sequence was chosen for: no sequence before it covers them. */
  gain: Set<string>;
}

/** Keeps the fewest sequences that still cover every point the search reached (greedy set cover). */
export function minimize(kept: Kept[]): Chosen[] {
  const left = new Set<string>();
  for (const k of kept) for (const p of k.covered) left.add(p);
  const chosen: Chosen[] = [];
  const pool = [...kept];
  while (left.size && pool.length) {
    let bestIdx = 0;
    let bestGain = -1;
    pool.forEach((k, i) => {
      let g = 0;
      for (const p of k.covered) if (left.has(p)) g++;
      // Equal gain: the shorter sequence, so the testbench stays small and quick to re-simulate.
      if (
        g > bestGain ||
        (g === bestGain && totalCycles(k.candidate.rows) < totalCycles(pool[bestIdx].candidate.rows))
      ) {
        bestGain = g;
        bestIdx = i;
      }
    });
    if (bestGain <= 0) break;
    const [k] = pool.splice(bestIdx, 1);
    const gain = new Set<string>();
    for (const p of k.covered) if (left.delete(p)) gain.add(p);
    chosen.push({ kept: k, gain });
  }
  // Found order reads better than gain order; every sequence starts from reset, so order does not change coverage.
  if (!chosen.length && kept.length) chosen.push({ kept: kept[0], gain: new Set() });
  return chosen.sort((a, b) => kept.indexOf(a.kept) - kept.indexOf(b.kept));
}

export interface ShrinkBounds {
  /** Runs this sequence may spend. */
  runs: number;
  /** Whether to stop now (cancelled, or out of time). */
  over: () => boolean;
  /** Cycles of reset at the start that every probe keeps. */
  prologue: number;
  /**
   * The fewest cycles a probe is worth saving (1 by default): where a run's start is costly, a probe that could
   * save less than that start only lengthens the run (a 2,000-cycle sequence cut to the cycle took 11 probes, 3 s, to
   * save 30 ms of a core's measurement).
   */
  minStep?: number;
}

/**
 * Shrinks a kept sequence while it still reaches the points it was chosen for: the shortest prefix (binary
 * search), then chunks deleted from the middle, halving the chunk size, within a run budget. A long hold is
 * only cut at its end: its length is what reaches the points.
 */
export async function shorten(
  c: Chosen,
  bounds: ShrinkBounds,
  reaches: (rows: Row[], gain: Set<string>) => Promise<boolean>,
): Promise<Candidate> {
  const cand = c.kept.candidate;
  // A whole plain random segment stays as it is: the testbench regenerates it in one line at any length, so a
  // shorter one reads no better, and a probe of a prefix costs about what that prefix would save the final
  // measurement (a core's 50,000-cycle segments took 4 s of probes and saved nothing).
  if (cand.random && cand.random.start + cand.random.cycles >= totalCycles(cand.rows)) return cand;
  let spent = 0;
  const probe = (rows: Row[]) => {
    spent++;
    return reaches(rows, c.gain);
  };
  const more = () => spent < bounds.runs && !bounds.over();
  const step = Math.max(1, bounds.minStep ?? 1);
  let rows = cand.rows;
  if (totalCycles(rows) > MAX_CYCLES) {
    // A long hold: every probe costs a long run, so only whole rows are cut from the end.
    let lo = 1;
    let hi = rows.length;
    while (lo < hi && more()) {
      const mid = Math.floor((lo + hi) / 2);
      if (await probe(rows.slice(0, mid))) hi = mid;
      else lo = mid + 1;
    }
    rows = rows.slice(0, hi);
    if (totalCycles(rows) > MAX_CYCLES) return { rows, origin: cand.origin };
  }
  let lo = bounds.prologue + 1;
  let hi = totalCycles(rows);
  while (hi - lo >= step && more()) {
    const mid = Math.floor((lo + hi) / 2);
    if (await probe(prefixRows(rows, mid))) hi = mid;
    else lo = mid + 1;
  }
  rows = prefixRows(rows, hi);
  let cycles = toCycles(rows);
  for (let chunk = Math.floor((cycles.length - bounds.prologue) / 2); chunk >= step; chunk = Math.floor(chunk / 2)) {
    let i = bounds.prologue;
    while (i < cycles.length && more()) {
      const without = [...cycles.slice(0, i), ...cycles.slice(i + chunk)];
      if (without.length > bounds.prologue && (await probe(toRows(without)))) cycles = without;
      else i += chunk;
    }
    if (!more()) break;
  }
  return { rows: toRows(cycles), origin: cand.origin };
}
