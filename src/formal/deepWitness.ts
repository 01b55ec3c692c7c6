/**
 * Witnesses from deep states, as HyPFuzz pairs a fuzzer with its formal tool: a point no bounded search from reset
 * reaches (a protocol arm hundreds of cycles after reset) is searched for from the end of a sequence the simulation
 * ran. The nearest sequences are those that covered the most lines of the point's file that few others covered (the
 * rare progress that leads towards it). The trace Yosys finds holds the sequence's inputs and then its own; the
 * engine replays it whole in Verilator, so a witness never rests on Yosys' view of the prefix, and proofs stay from
 * reset.
 */
import { resolve } from 'node:path';
import type { ModuleInfo } from '../protocol';
import type { FormalTarget, StartState } from './types';
import type { FileTree, YosysWorker } from './worker';
import { deepWitnessScript, isPlainArg, parseWitness, type HeldInput } from './yosys';

/** Longest prefix searched from: Yosys unrolls every cycle of it (inputs fixed; about 3 ms a cycle on a small design). */
export const MAX_START_CYCLES = 1_024;
/**
 * Cells times cycles one prefix may unroll: the SAT problem grows with both (axis_gmii_tx, 348 cells with a CRC's
 * XOR network, passed 2 GiB at 1,024 cycles; link_train, 22 cells, takes 4 s there).
 */
const MAX_CELL_CYCLES = 100_000;
/** Time a problem is not started without, beside its SAT bound: reading the netlist and unrolling the prefix. */
const MIN_UNROLL_MS = 3_000;
/** Start states tried per point, nearest first. */
const STARTS_PER_POINT = 3;

export interface DeepCall {
  wire: string;
  target: FormalTarget;
}

/**
 * The starts to try for a target, nearest first: by the sum, over the lines of the target's file a start covered,
 * of one over how many starts covered that line; ties go to the shorter start. A start that covered nothing of the
 * file is not tried.
 */
export function nearestStarts(target: FormalTarget, starts: StartState[], limit = STARTS_PER_POINT): number[] {
  const file = resolve(target.file);
  const linesOf = starts.map(
    (s) => new Set(s.reached.filter((r) => resolve(r.file) === file && r.line <= target.line).map((r) => r.line)),
  );
  const reachedBy = new Map<number, number>();
  for (const lines of linesOf) for (const l of lines) reachedBy.set(l, (reachedBy.get(l) ?? 0) + 1);
  return linesOf
    .map((lines, i) => ({ i, score: [...lines].reduce((a, l) => a + 1 / reachedBy.get(l)!, 0) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || starts[a.i].rows.length - starts[b.i].rows.length)
    .slice(0, limit)
    .map((s) => s.i);
}

/**
 * A start's first cycles as held inputs: the top's own input ports only (the clock and names Yosys cannot take
 * left free). A longer start is cut at `maxCycles`: the state there is one the simulation reached too.
 */
function prefixOf(top: ModuleInfo, start: StartState, maxCycles: number): { cycles: number; held: HeldInput[] } {
  const widths = new Map(
    top.ports
      .filter((p) => p.direction === 'input' && p.name !== top.clock && isPlainArg(p.name))
      .map((p) => [p.name, p.width]),
  );
  const rows = start.rows.slice(0, maxCycles);
  const held: HeldInput[] = [];
  rows.forEach((row, cycle) => {
    for (const [name, value] of Object.entries(row)) {
      const width = widths.get(name);
      if (width && /^[0-9a-f]+$/i.test(value)) held.push({ cycle, name, width, value });
    }
  });
  return { cycles: rows.length, held };
}

type Trace = NonNullable<ReturnType<typeof parseWitness>['trace']>;

export interface DeepSearch {
  /** Traces found, by flag wire. */
  traces: Map<string, Trace>;
  /** Per wire searched without a trace: how many starts were tried. */
  tried: Map<string, number>;
  /** Yosys problems run, and whether the run's time ended the search before every start was tried. */
  problems: number;
  outOfTime: boolean;
}

/** Whether a trace sets the wire after the prefix. */
const setsAfter = (trace: Trace, wire: string, cycles: number) =>
  trace.steps.slice(cycles).some((s) => (s.get(wire) ?? '').includes('1'));

/**
 * Searches `steps` cycles past each call's nearest starts while `timeLeftMs()` allows another point's bound. Per
 * start, one problem for all its open wires at once (the prefix is unrolled once per problem): each model gives its
 * trace to every wire it sets, and the search goes on for the others until no model is left.
 */
export async function searchFromStarts(
  worker: YosysWorker,
  base: FileTree,
  top: ModuleInfo,
  calls: DeepCall[],
  starts: StartState[],
  bounds: { steps: number; pointTimeoutS: number; timeLeftMs: () => number },
): Promise<DeepSearch> {
  const traces: DeepSearch['traces'] = new Map();
  const tried = new Map<string, number>();
  const byStart = new Map<number, DeepCall[]>();
  for (const c of calls)
    for (const s of nearestStarts(c.target, starts)) byStart.set(s, [...(byStart.get(s) ?? []), c]);
  // Starts serving the most points first.
  const order = [...byStart.entries()].sort((a, b) => b[1].length - a[1].length);
  const netlist = base['prepared.il'];
  const cells = typeof netlist === 'string' ? (netlist.match(/^\s*cell /gm)?.length ?? 0) : 0;
  const maxCycles = Math.min(MAX_START_CYCLES, Math.floor(MAX_CELL_CYCLES / Math.max(1, cells)));
  let problem = 0;
  let outOfTime = false;
  for (const [s, waiting] of order) {
    const prefix = prefixOf(top, starts[s], maxCycles);
    let open = waiting.map((c) => c.wire).filter((w) => !traces.has(w));
    while (open.length) {
      // The SAT bound shrinks to the time left; unrolling the prefix takes seconds of its own.
      const timeoutS = Math.min(bounds.pointTimeoutS, Math.floor((bounds.timeLeftMs() - MIN_UNROLL_MS) / 1000));
      if (timeoutS < 1) {
        outOfTime = true;
        break;
      }
      const log = `d${problem++}.log`;
      const script = deepWitnessScript(open, log, prefix, bounds.steps, timeoutS);
      const out = await worker.run(['-q', '-s', 'deep.ys'], { ...base, 'deep.ys': script });
      const trace = parseWitness(out.files[log]).trace;
      const hit = trace ? open.filter((w) => setsAfter(trace, w, prefix.cycles)) : [];
      for (const w of hit) traces.set(w, trace!);
      if (!hit.length) {
        for (const w of open) tried.set(w, (tried.get(w) ?? 0) + 1);
        break;
      }
      open = open.filter((w) => !hit.includes(w));
    }
  }
  for (const w of traces.keys()) tried.delete(w);
  return { traces, tried, problems: problem, outOfTime };
}
