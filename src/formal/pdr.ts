/**
 * Proofs that need an invariant over several registers: ABC's PDR (IC3), linked into Yosys, on the flags that
 * k-induction left open. A flag that only a relation between registers keeps at 0 ("this request register is set
 * only with that mode register", "a misaligned second access never has address bits 00") has an induction
 * counterexample at every length (a stall that holds the unreachable pair); PDR builds the relation itself.
 *
 * The first Yosys run writes the open flags' cones as one netlist of gates and registers (`MODEL`), has ABC reduce it
 * (`REDUCED`) and its bounded model check rule out, on every output at once, the flags reached within a few cycles;
 * the next runs hand each remaining flag's cone of the reduced model to PDR alone (`&cone`), each bounded in time.
 * ABC reads and writes files only through an inline script (`-script +…`); a script file of its own, or reading an
 * AIGER file, stops the WebAssembly build. ABC runs inside Yosys' `abc` pass on a one-gate carrier module, and the script reads the
 * carrier back at its end, so the pass ends as it began.
 */
import type { FileTree, YosysWorker } from './worker';
import { wireUnion } from './yosys';

/** The open flags' cones as Yosys writes them, and as ABC writes them back reduced (what the PDR runs read). */
const MODEL = 'chorus_pdr.blif';
const REDUCED = 'chorus_pdr_reduced.blif';
const CARRIER = 'chorus_pdr_carrier.blif';
/** One AND gate as RTLIL: read with no techmap (whose library Yosys parses in each run it is used in). */
const CARRIER_SOURCE = [
  'module \\chorus_pdr_carrier',
  '  wire input 1 \\a',
  '  wire input 2 \\b',
  '  wire output 3 \\y',
  '  cell $_AND_ \\g',
  '    connect \\A \\a',
  '    connect \\B \\b',
  '    connect \\Y \\y',
  '  end',
  'end',
  '',
].join('\n');
/** Cycles the bounded model check covers before PDR: most flags a model reaches are reached within them. */
const BMC_FRAMES = 10;
/** The bounded check's bound, seconds: on cv32e40p_core's few hundred open flags (reduced) it takes about 2 s. */
const BMC_MAX_SECONDS = 8;
/**
 * PDR's time in one Yosys run, from the run's memory bound: in the WebAssembly builds the JavaScript heap grows with
 * PDR's solving until the run ends (by 65 MiB a second over cv32e40p_core's flags, by up to 340 MiB a second on a
 * counter's), so a run holds as many cones as their bounds fit in, with `PDR_BASE_MB` for the model itself. One
 * run reads the model again (0.8 s on the core).
 */
const PDR_HEAP_MB_PER_S = 340;
const PDR_BASE_MB = 768;
export function pdrRunMs(memoryMb: number): number {
  return Math.min(6000, Math.max(1000, ((memoryMb - PDR_BASE_MB) / PDR_HEAP_MB_PER_S) * 1000));
}
/**
 * PDR's frames at most: the relations it proves close within a few (cv32e40p_core's by frame 4), and on a counter it
 * would otherwise go on for thousands of frames, its memory growing until the process dies.
 */
const PDR_FRAMES = 64;
/**
 * PDR's bound per flag in each round, ms: on cv32e40p_core's open flags most proofs take 0.15-0.3 s, a few 0.5-2 s,
 * and a flag PDR does not decide (most of them reachable past the bounded check's cycles) takes its whole bound.
 */
const ROUND_MS = [250, 1500];
/** What a PDR run costs besides its cones: starting Yosys and reading the reduced model (0.3 s on cv32e40p_core). */
const BATCH_READ_MS = 500;

/** The cells ABC's BLIF reader takes: simple gates and one clock's registers. Anything else is cut out (free). */
const GATES = [
  '$_BUF_',
  '$_NOT_',
  '$_AND_',
  '$_NAND_',
  '$_OR_',
  '$_NOR_',
  '$_XOR_',
  '$_XNOR_',
  '$_ANDNOT_',
  '$_ORNOT_',
  '$_MUX_',
  '$_NMUX_',
  '$_DFF_P_',
  '$_DFF_N_',
];
const keptCells = () => [...GATES.map((g) => `t:${g}`), ...GATES.slice(1).map(() => '%u')].join(' ');

/** ABC commands as `-script +…` takes them: `;` between commands, `,` for spaces. */
const inline = (commands: string[]) => `"+${commands.map((c) => c.split(' ').join(',')).join(';')}"`;

/** The carrier module the `abc` pass runs on, and the pass with `commands` run between reading it and writing it. */
function abcRun(log: string, commands: string[]): string[] {
  return [
    'design -reset',
    'read_rtlil chorus_pdr_carrier.il',
    `tee -q -o ${log} abc -script ${inline([`write_blif ${CARRIER}`, ...commands, `read_blif ${CARRIER}`])}`,
  ];
}

export const CARRIER_FILES = { 'chorus_pdr_carrier.il': CARRIER_SOURCE };

/**
 * The first run: the flags' cones of `prepared.il` (a netlist with one clock and edge in each cone) as `MODEL`, every
 * flag an output; register start values as the simulator's (zeros, initializers kept: `zinit` makes each a zero by
 * inverting the ones); memories and every cell ABC does not take cut out, so their outputs are free at every
 * cycle, as undriven wires are. Then the bounded model check over every output, and the outputs' order.
 */
export function pdrModelScript(wires: string[], bmcSeconds: number): string {
  return [
    'read_rtlil prepared.il',
    `select -set chorus_pdr_flags ${wireUnion(wires)}`,
    'select -set chorus_pdr_cone @chorus_pdr_flags %ci*',
    'delete @chorus_pdr_cone %n',
    'delete -output w:*',
    'expose @chorus_pdr_flags',
    'setattr -unset keep w:*',
    'dffunmap',
    'techmap',
    `delete t:* ${keptCells()} %d`,
    'setundef -undriven -expose',
    'opt_clean',
    'zinit -all',
    // Short names: the BLIF writer takes seconds over a core's long ones. Only the flags and inputs keep theirs.
    'rename -hide w:* @chorus_pdr_flags %d i:* %d',
    'rename -enumerate',
    `write_blif ${MODEL}`,
    ...abcRun('chorus_bmc.log', [
      `read_blif ${MODEL}`,
      'strash',
      // The outputs' names before the reduction, which keeps their order but not their names.
      'print_io -f',
      // Registers that are constant or copies of others merged (`&scl`), the logic rewritten (`&dc2`): on
      // cv32e40p_core a third smaller; the bounded check takes 1.7 s there instead of 3.3, PDR's proofs 0.1 s
      // instead of 0.3.
      '&get -n',
      '&scl',
      '&dc2',
      '&put',
      `bmc3 -a -F ${BMC_FRAMES} -T ${Math.max(1, Math.round(bmcSeconds))}`,
      `write_blif ${REDUCED}`,
    ]),
  ].join('\n');
}

/**
 * The second run: PDR on each listed output's cone (0-based indices of `MODEL`'s outputs), `ms` each (`-H`, the
 * per-output bound, is taken only with `-a`; on a cone of one output, `-a` changes nothing else).
 */
export function pdrProofScript(outputs: number[], ms: number): string {
  const each = outputs.flatMap((i) => [
    '&loadaig',
    `&cone -O ${i}`,
    '&put',
    `pdr -a -F ${PDR_FRAMES} -H ${Math.max(1, Math.round(ms))}`,
  ]);
  return abcRun('chorus_pdr.log', [`read_blif ${MODEL}`, 'strash', '&get -n', '&saveaig', ...each]).join('\n');
}

/** Model outputs, by index, as ABC's `print_io -f` lists them. */
export function modelOutputs(log: string | undefined): string[] {
  const m = /Primary outputs \(\d+\):\s*(.*)$/m.exec(log ?? '');
  if (!m) return [];
  const names: string[] = [];
  for (const part of m[1].trim().split(/\s+/)) {
    const eq = part.indexOf('=');
    if (eq > 0) names[Number(part.slice(0, eq))] = part.slice(eq + 1);
  }
  return names;
}

/** The outputs the bounded model check reached (`Output N was asserted in frame F`). */
export function bmcReached(log: string | undefined): Set<number> {
  return new Set([...(log ?? '').matchAll(/Output\s+(\d+) was asserted in frame/g)].map((m) => Number(m[1])));
}

export type PdrOutcome = 'proven' | 'reachable' | 'undecided';

/** Each output's PDR verdict, from the log of `pdrProofScript` (the `&cone -O N` echo opens each output's part). */
export function pdrOutcomes(log: string | undefined): Map<number, PdrOutcome> {
  const out = new Map<number, PdrOutcome>();
  let current: number | undefined;
  for (const line of (log ?? '').split('\n')) {
    const cone = /\+ &cone -O (\d+)/.exec(line);
    if (cone) {
      current = Number(cone[1]);
      out.set(current, 'undecided');
      continue;
    }
    if (current === undefined) continue;
    // Only PDR's own line counts: an output "proved" when its frames converged to an inductive invariant.
    if (/Proved output 0 in frame/.test(line)) out.set(current, 'proven');
    else if (/was asserted in frame/.test(line)) out.set(current, 'reachable');
  }
  return out;
}

/** The open flags' cones as one netlist for ABC, and what its bounded check reached. */
export interface PdrModel {
  blif: string;
  /** Flag wires by output index. */
  outputs: string[];
  /** Flags the bounded check reached: no proof exists for them in this netlist. */
  reached: Set<string>;
  /** What building it and the check took, ms. */
  ms: number;
}

/**
 * The first run (`pdrModelScript`) on `wires`, flags of the netlist `prepared.il` in `base` whose cones are each in
 * one clock domain; undefined when Yosys or ABC could not make it.
 */
export async function buildPdrModel(
  worker: YosysWorker,
  base: FileTree,
  wires: string[],
  timeLeftMs: number,
): Promise<PdrModel | undefined> {
  const started = Date.now();
  if (!wires.length || timeLeftMs < 2000) return undefined;
  const out = await worker.run(['-q', '-s', 'chorus_pdr_model.ys'], {
    ...base,
    ...CARRIER_FILES,
    'chorus_pdr_model.ys': pdrModelScript(wires, Math.min(BMC_MAX_SECONDS, timeLeftMs / 4000)),
  });
  const blif = out.files[REDUCED];
  const log = out.files['chorus_bmc.log'];
  const outputs = modelOutputs(log);
  if (out.code !== 0 || blif === undefined || !outputs.length) return undefined;
  const reached = new Set([...bmcReached(log)].flatMap((i) => (outputs[i] ? [outputs[i]] : [])));
  return { blif, outputs, reached, ms: Date.now() - started };
}

/** `wires` with their instances (the path before the flag's name) taking turns, each in the order given. */
export function byInstanceInTurn(wires: readonly string[]): string[] {
  const groups = new Map<string, string[]>();
  for (const w of wires) {
    const instance = w.slice(0, Math.max(0, w.lastIndexOf('.')));
    groups.set(instance, [...(groups.get(instance) ?? []), w]);
  }
  const lists = [...groups.values()];
  const out: string[] = [];
  for (let i = 0; out.length < wires.length; i++) for (const l of lists) if (i < l.length) out.push(l[i]);
  return out;
}

/** What PDR decided on a model's flags. */
export interface PdrResult {
  proven: Set<string>;
  reached: Set<string>;
  /** Flags PDR was given within the time left. */
  tried: number;
  ms: number;
}

/**
 * PDR on `wires` (flags of `model` its bounded check did not reach; the likeliest proofs first), within
 * `timeLeftMs()`: a flag is proven only where PDR says its frames converged (an inductive invariant).
 */
export async function provePdr(
  worker: YosysWorker,
  model: PdrModel,
  wires: string[],
  opts: { timeLeftMs: () => number; memoryMb: number; debug?: (message: string) => void },
): Promise<PdrResult> {
  const started = Date.now();
  const result: PdrResult = { proven: new Set(), reached: new Set(), tried: 0, ms: 0 };
  const { outputs } = model;
  // In the caller's order within each instance, the instances taking turns: the time may run out before the last,
  // and one module's arms that the design reaches past the bounded check's cycles (a controller's states) would
  // otherwise take the whole round.
  const indexOf = new Map(outputs.map((name, i) => [name, i]));
  let open = byInstanceInTurn(wires).flatMap((w) => {
    const i = indexOf.get(w);
    return i !== undefined && !model.reached.has(w) ? [i] : [];
  });
  // Short bounds first (most proofs take a fraction of a second; a flag that stays open takes its whole bound), then
  // longer ones for what is left, once every flag has had its short one. In batches of `pdrRunMs`. A longer round
  // takes half the time left at its start: what PDR leaves open, other proofs may still close. A batch's cost
  // beyond its bounds (reading the model, extracting each cone) is measured as batches run.
  let overheadMs = 50;
  const runMs = pdrRunMs(opts.memoryMb);
  for (const [round, boundMs] of ROUND_MS.entries()) {
    const undecided: number[] = [];
    const roundEnd = Date.now() + (round === 0 ? opts.timeLeftMs() : opts.timeLeftMs() / 2);
    let at = 0;
    while (at < open.length) {
      const left = Math.min(opts.timeLeftMs(), roundEnd - Date.now()) - BATCH_READ_MS;
      const fits = Math.floor(left / (boundMs + overheadMs));
      const chosen = open.slice(at, at + Math.min(Math.max(1, Math.floor(runMs / boundMs)), fits));
      if (!chosen.length) break;
      at += chosen.length;
      const batchStart = Date.now();
      const run = await worker.run(['-q', '-s', 'chorus_pdr.ys'], {
        [MODEL]: model.blif,
        ...CARRIER_FILES,
        'chorus_pdr.ys': pdrProofScript(chosen, boundMs),
      });
      const outcomes = pdrOutcomes(run.files['chorus_pdr.log']);
      result.tried = Math.max(result.tried, at);
      overheadMs = Math.max(overheadMs, (Date.now() - batchStart - BATCH_READ_MS) / chosen.length - boundMs);
      opts.debug?.(
        `PDR: ${chosen.length} flag(s) at ${boundMs} ms each in ${Date.now() - batchStart} ms: ${chosen.map((i) => `${outputs[i]} ${outcomes.get(i) ?? 'undecided'}`).join(', ')}`,
      );
      for (const i of chosen) {
        const outcome = outcomes.get(i);
        if (outcome === 'proven') result.proven.add(outputs[i]);
        else if (outcome === 'reachable') result.reached.add(outputs[i]);
        else undecided.push(i);
      }
    }
    // Out of time before every flag had this round's bound: a longer bound for some is worth less than that.
    if (at < open.length) break;
    open = undecided;
    if (!open.length) break;
  }
  return { ...result, ms: Date.now() - started };
}
