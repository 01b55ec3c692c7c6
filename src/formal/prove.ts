/**
 * The formal engine: for each uncovered line or branch point, an instrumented copy of the DUT is handed to Yosys
 * (the values its registers can hold, then k-induction, prove the arm unreachable: registerValues.ts; a bounded
 * search after reset finds a witness trace, and one from a state
 * the simulation reached where that falls short: deepWitness.ts). One prepared netlist serves every point; points go
 * to Yosys in small batches so a stopped run keeps what it decided.
 */
import { basename, dirname } from 'node:path';
import { analyzeSources } from '../hdl';
import { ChorusError, silentLogger, type Logger, type ModuleInfo } from '../protocol';
import { clockGates, clockModelProblem, flagDomains, isSingleDomain, type Domain } from './clocks';
import { registerValues } from './registerValues';
import { GATED_PREP_SCRIPT, gatedNetlist } from './gatedModel';
import { searchFromStarts, type DeepCall, type DeepSearch } from './deepWitness';
import { buildPdrModel, provePdr, type PdrModel } from './pdr';
import { headerTexts as textsOf, includeTree } from './includeTree';
import { instrument } from './instrument';
import { macroCallsAsStatements } from './siteText';
import type { FormalTarget, ProveRequest, ProveResult, StimulusRow, TargetVerdict, Verdict, Witness } from './types';
import { slangFrontEnd } from './runtime';
import { noteFrontEnd, proverVersion } from './version';
import { YosysStopped, YosysWorker, type FileTexts, type FileTree, type YosysOutput } from './worker';
import {
  isPlainArg,
  jointProofScript,
  lastError,
  listedNames,
  parseProof,
  parseWitness,
  MULTI_CLOCK_SCRIPT,
  prepScript,
  proofScript,
  type PrepInput,
  witnessScript,
  type ProofOutcome,
  LOCAL_LAYERS,
} from './yosys';

export interface ProveServices {
  signal: AbortSignal;
  logger?: Logger;
  /**
   * Called once the read shows several clocks: the run will prove only, and hand back no witness (a search beside
   * it need not wait for it to end).
   */
  onProofsOnly?: () => void;
}

const BATCH = 4;
/** Points still open after the shallow pass go to Yosys in smaller batches: a run stopped at its bound keeps more. */
const DEEP_BATCH = 6;
/**
 * Largest cone (cells of the prepared netlist) proven in the multi-clock model: cv32e40p_core's cones across its
 * domains, about 2,800 cells (4,000 in the multi-clock netlist), take 33 s and 1 GiB for an induction of 2 steps
 * there, 77 s and 1.6 GiB for 4.
 */
const MULTI_CLOCK_MAX_CELLS = 1000;
/**
 * Cones cut a few registers back (`cutCone` in yosys.ts): the largest tried, in bits of logic (`Domain.localBits`; about 20
 * SAT variables a bit on cv32e40p_core, where a cut cone with the multiplier is 18,000 bits, 300,000 variables and
 * 5 s), how many go to Yosys at once (its read of the netlist, 1 s on the core, is shared), and the induction depth.
 */
const LOCALIZED_MAX_BITS = 10_000;
const LOCALIZED_BATCH = 16;
const LOCALIZED_DEPTH = 1;
/** What one batch of cut cones takes on cv32e40p_core beside a search, ms. */
const CUT_BATCH_MS = 2000;
/** Yosys' memory bound where the request names none, MiB. */
const DEFAULT_MEMORY_MB = 2048;
/** What the PDR stage leaves of the run for the verdicts. */
const PDR_RESERVE_MS = 3000;
/** PDR's share of the time left on a design whose witnesses are searched after it. */
const PDR_SHARE_BEFORE_WITNESSES = 0.5;
/** Longest script passed as a `-p` argument; a longer one goes as a file (`-s`). */
const INLINE_SCRIPT_MAX = 32 * 1024;
/** The first induction pass stops at this length: most proofs close within it, and a deep point cannot hold the rest up. */
const SHALLOW_DEPTH = 4;
function hex(bits: string): string {
  const clean = bits.replace(/[^01]/g, '0');
  return clean ? BigInt(`0b${clean}`).toString(16) : '0';
}

/** A proof, or a base-case trace from the start state: nothing more to try on the flag. */
const isDecided = (o: ProofOutcome | undefined) => o?.kind === 'proven' || o?.kind === 'reachable';

/** An induction that ran out of length (not of time): a deeper pass may still close it. */
const isDepthBound = (o: ProofOutcome | undefined) => o?.kind === 'unknown' && /within \d+ cycles/.test(o.reason);

/** Why a prepared netlist's clocking is not modelled (several clocks, both edges); undefined when it is. */
function clockProblem(files: FileTexts): string | undefined {
  const clocks = listedNames(files['clocks.txt']);
  if (clocks.length > 1)
    return `several clocks (${clocks.slice(0, 4).join(', ')}): only single-clock designs are modelled`;
  if (listedNames(files['negedge.txt']).length && listedNames(files['posedge.txt']).length)
    return 'registers on both clock edges: not modelled';
  return undefined;
}

/** Why a flag the multi-clock model reaches is not a witness. */
export const MULTI_CLOCK_REACHED =
  'reachable in the multi-clock model (clocks as free inputs); witnesses are not searched on designs with several clocks: simulation decides it';
/** Why a flag the gated-clock model reaches (and no other model decides) is not a witness. */
export const GATED_REACHED =
  "reachable in the gated-clock model (the registers behind a clock gate updated at a free choice of its input clock's edges); witnesses are not searched on designs with several clocks: simulation decides it";
/** Why a flag its clock domain's model reaches (in a design with several clocks) is not a witness. */
export const DOMAIN_REACHED =
  "reachable from the start state in its clock domain's model; witnesses are not searched on designs with several clocks: simulation decides it";

function unknownAll(targets: FormalTarget[], reason: string): TargetVerdict[] {
  return targets.map((target) => ({ target, verdict: { status: 'unknown', reason } }));
}

/**
 * Reads and prepares one copy of the design (the instrumented sources in `tree`): the one place the front end is
 * invoked.
 */
function readDesign(worker: YosysWorker, input: Omit<PrepInput, 'mapMemories'>, tree: FileTree, mapMemories: boolean) {
  return worker.run(['-p', prepScript({ ...input, mapMemories })], tree);
}

/** The multi-clock model of a design: its netlist and why it is not trusted, if it is not. */
interface MultiClock {
  netlist: string;
  problem: string | undefined;
}

/** The multi-clock model of a read (from its `flat.il`), or why there is none. */
async function multiClockOf(
  worker: YosysWorker,
  read: YosysOutput,
): Promise<(MultiClock & { prepared: string; files: FileTexts }) | { failure: string }> {
  const flat = read.files['flat.il'];
  const out = flat ? await worker.run(['-q', '-p', MULTI_CLOCK_SCRIPT], { 'flat.il': flat }) : undefined;
  const netlist = out?.files['multiclock.il'];
  if (read.code !== 0 || !out || out.code !== 0 || !netlist || !read.files['prepared.il'])
    return {
      failure: `several clocks, and Yosys could not build their model (clk2fflogic): ${lastError(out?.log ?? read.log) ?? `exit ${out?.code ?? read.code}`}`,
    };
  return { netlist, problem: clockModelProblem(read.files), prepared: read.files['prepared.il'], files: read.files };
}

/**
 * The gated-clock model (gatedModel.ts) of a read, prepared as `prepared.il` is; undefined
 * where the design has no register behind a clock gate on an input clock, or Yosys could not prepare it (logged).
 */
async function gatedModelOf(worker: YosysWorker, files: FileTexts, logger: Logger): Promise<string | undefined> {
  const found = clockGates(files);
  const flat = files['flat.il'];
  if ('unlisted' in found || !found.gates.length || !flat) return undefined;
  const gated = gatedNetlist(flat, found.gates);
  if (!gated) return undefined;
  const out = await worker.run(['-q', '-p', GATED_PREP_SCRIPT], { 'gated_flat.il': gated.netlist });
  const netlist = out.files['gated.il'];
  if (out.code !== 0 || !netlist) {
    logger.warn(
      `formal: the gated-clock model could not be prepared (${lastError(out.log) ?? `exit ${out.code}`}): the flags across clock domains go to the multi-clock model alone`,
    );
    return undefined;
  }
  logger.debug(
    `formal: gated-clock model: ${gated.moved.reduce((a, b) => a + b, 0)} register(s) behind ${found.gates.length} clock gate(s) moved onto their input clocks with a free enable`,
  );
  return netlist;
}

/** A flag's name inside its module from a name that may start with instance paths (see localflags.txt). */
function withinModule(name: string): string {
  const parts = name.split('.');
  const scope = parts.findIndex((p) => /^chorus_scope_\d+$/.test(p));
  return scope > 0 ? parts.slice(scope - 1).join('.') : parts[parts.length - 1];
}

/** The file and line of Yosys' first error, when it names one. */
function errorPlace(log: string): { name: string; line: number } | undefined {
  const m = /^(\S+):(\d+): ERROR: /m.exec(log);
  return m ? { name: m[1], line: Number(m[2]) } : undefined;
}

/** Reads of the instrumented copy the search for rejected sites may make, past two (the first one, the one of none). */
export const isolationReads = (sites: number) => 2 * Math.ceil(Math.log2(Math.max(2, sites))) + 2;

export interface Isolation {
  /** The prepared design with every flag in `enabled`. */
  prep: YosysOutput;
  enabled: Set<string>;
  /** Flags left out, with why. */
  dropped: Map<string, string>;
  /** Reads of the design made (the first, of every flag, included). */
  reads: number;
}

/**
 * When Yosys rejects the instrumented copy: the sites responsible are found and left out, so the others are still
 * decided. A read costs as much as preparing the design (seconds to minutes on a large one), so the sites an error
 * names (a flag in its message, or inserted text on its line) are left out first, one read per error. When an
 * error names none, the copy with no site is read: if Yosys rejects that too, the design itself is beyond the front
 * end (every point unknown with its message). Otherwise the rest is split, guided by each error's sites, else
 * halved; each read either adds a part to the known-good set or narrows the suspects to it, and a suspect alone is
 * a rejected site. The reads are bounded: past the bound the sites not yet cleared are left out as well. Every set
 * kept is one Yosys read whole.
 */
export async function isolateSites(
  all: string[],
  first: YosysOutput,
  read: (enabled: ReadonlySet<string>) => Promise<YosysOutput>,
  hint: (log: string) => string[],
  message: (log: string) => string,
  /** When the search stops starting reads (a share of the run's bound: the points kept still need proofs). */
  stopAt = Infinity,
): Promise<Isolation | { failure: string }> {
  const ok = (o: YosysOutput) => o.code === 0 && o.files['prepared.il'] !== undefined;
  let reads = 1;
  const dropped = new Map<string, string>();
  const bound = 2 + isolationReads(all.length);
  let limit = bound;
  const spent = () => {
    if (Date.now() > stopAt) limit = Math.min(limit, reads);
    return reads >= limit;
  };
  // Named sites first: with one error per rejected site, one read each.
  let remaining = all;
  let lastLog = first.log;
  while (reads < bound - 1 && Date.now() <= stopAt) {
    const named = hint(lastLog).filter((f) => remaining.includes(f));
    if (!named.length || named.length === remaining.length) break;
    for (const f of named) dropped.set(f, `could not be instrumented: ${message(lastLog)}`);
    remaining = remaining.filter((f) => !named.includes(f));
    const r = await read(new Set(remaining));
    reads++;
    if (ok(r)) return { prep: r, enabled: new Set(remaining), dropped, reads };
    lastLog = r.log;
  }
  const none = await read(new Set());
  reads++;
  if (!ok(none)) return { failure: `Yosys could not read the design: ${message(none.log)}` };
  let prep = none;
  const good = new Set<string>();
  // Suspect sets, each with the log of a read that failed with it; `known`: it fails on top of the good set.
  const pending: { cand: string[]; log: string; known: boolean }[] = [{ cand: remaining, log: lastLog, known: true }];
  const tryRead = async (set: string[]) => {
    const r = await read(new Set([...good, ...set]));
    reads++;
    if (!ok(r)) return r.log;
    for (const f of set) good.add(f);
    prep = r;
    return undefined;
  };
  for (let p = pending.shift(); p; p = pending.shift()) {
    if (!p.known) {
      // Every part not yet tried goes in one read: with one rejected site, that read clears them all.
      const untried = pending.filter((q) => !q.known);
      p = { cand: [...p.cand, ...untried.flatMap((q) => q.cand)], log: p.log, known: false };
      pending.splice(0, pending.length, ...pending.filter((q) => q.known));
    }
    let { cand, log } = p;
    if (!p.known) {
      if (spent()) {
        pending.unshift(p);
        break;
      }
      const failed = await tryRead(cand);
      if (failed === undefined) continue;
      log = failed;
    }
    while (cand.length > 1 && !spent()) {
      const h = hint(log).filter((f) => cand.includes(f));
      const cut = Math.ceil(cand.length / 2);
      const [part, rest] =
        h.length && h.length < cand.length
          ? [cand.filter((f) => !h.includes(f)), h]
          : [cand.slice(0, cut), cand.slice(cut)];
      const failed = await tryRead(part);
      if (failed === undefined) cand = rest;
      else {
        // Something in the part fails; the rest is tried later, on top of the good set then.
        pending.unshift({ cand: rest, log, known: false });
        cand = part;
        log = failed;
      }
    }
    if (cand.length === 1) dropped.set(cand[0], `could not be instrumented: ${message(log)}`);
    else {
      pending.unshift({ cand, log, known: true });
      break;
    }
  }
  // Past the bound: what was not cleared is left out.
  for (const p of pending)
    for (const f of p.cand)
      dropped.set(
        f,
        `could not be instrumented: Yosys rejected the instrumented copy (${message(p.log)}), and the search for the sites responsible stopped after ${reads} reads before clearing this one`,
      );
  return { prep, enabled: good, dropped, reads };
}

/** The witness rows for a trace: every input but the clock, per cycle, up to the cycle that sets the flag. */
function witnessOf(
  top: ModuleInfo,
  steps: Map<string, string>[],
  wire: string,
  resetCycles: number,
): Witness | undefined {
  const hit = steps.findIndex((s) => (s.get(wire) ?? '').includes('1'));
  if (hit < 0) return undefined;
  const inputs = top.ports
    .filter((p) => p.direction === 'input' && p.name !== top.clock)
    .map((p) => ({ name: p.name, width: p.width || steps[0]?.get(p.name)?.length || 1 }));
  // The whole reset pulse is kept even when the point is reached during it: a witness always starts with it.
  const rows: StimulusRow[] = steps
    .slice(0, Math.max(hit + 1, resetCycles))
    .map((s) => Object.fromEntries(inputs.map((i) => [i.name, hex(s.get(i.name) ?? '0')])));
  return { inputs, rows, hitAt: hit, resetCycles };
}

/** One point's verdict from its flag wires (one per instance it stands for): proven only when every one is. */
function decide(
  wires: string[],
  proofs: Map<string, ProofOutcome>,
  traces: Map<string, ReturnType<typeof parseWitness>>,
  top: ModuleInfo,
  resetCycles: number,
  /** Why a point Yosys never got to is undecided (the run's bound, say). */
  stopped: string | undefined,
  /** Traces from states the simulation reached, for points no trace from reset reached. */
  deep?: DeepSearch,
): Verdict {
  if (!wires.length)
    return {
      status: 'unknown',
      reason:
        'Yosys removed the arm or its instance (it found it constant or unused), or its instance name cannot be passed to Yosys: not decided',
    };
  const results = wires.map(
    (w): ProofOutcome => proofs.get(w) ?? { kind: 'unknown', reason: stopped ?? 'not decided' },
  );
  if (results.every((r) => r.kind === 'proven')) {
    const depth = Math.max(...results.map((r) => (r.kind === 'proven' ? r.depth : 0)));
    // Every instance by the register values: said so; any by an induction on its flag: the induction's depth.
    const byValues = results.every((r) => r.kind === 'proven' && r.byRegisterValues);
    const byInvariant = results.some((r) => r.kind === 'proven' && r.byInvariant);
    return {
      status: 'unreachable',
      depth,
      ...(byValues ? { byRegisterValues: true as const } : {}),
      ...(byInvariant ? { byInvariant: true as const } : {}),
    };
  }
  let why: string | undefined;
  for (const w of wires) {
    const t = traces.get(w);
    // From reset first, else from a state the simulation reached.
    const trace = t?.trace ?? deep?.traces.get(w);
    const witness = trace ? witnessOf(top, trace.steps, w, resetCycles) : undefined;
    if (witness) return { status: 'witness', witness };
    if (t?.reason) why ??= `reachable from the start state, but ${t.reason}`;
    else if (!t && proofs.get(w)?.kind === 'reachable')
      why ??= `reachable from the start state; no witness searched (${stopped ?? 'not decided'})`;
  }
  const unknown = results.find((r) => r.kind === 'unknown');
  const reason = why ?? (unknown?.kind === 'unknown' ? unknown.reason : 'not decided');
  const starts = Math.max(0, ...wires.map((w) => deep?.tried.get(w) ?? 0));
  return {
    status: 'unknown',
    reason: starts ? `${reason}; no trace either from ${starts} state(s) the simulation reached` : reason,
  };
}

export async function prove(req: ProveRequest, services: ProveServices): Promise<ProveResult> {
  const logger = services.logger ?? silentLogger;
  const started = Date.now();
  const maxDepth = req.maxDepth ?? 24;
  const pointTimeout = req.pointTimeoutSeconds ?? 10;
  const resetCycles = req.resetCycles ?? 2;
  const analysis = analyzeSources(
    req.sources.map((s) => ({ name: s.file, content: macroCallsAsStatements(s.content) })),
    // `ifdef branches as Yosys compiles them (-D below): the arm of a define-enabled block is found and flagged.
    { top: req.top, defines: req.defines },
  );
  const top = analysis.modules.find((m) => m.name === req.top);
  if (!top) throw new ChorusError('bad_input', `No module '${req.top}' in the design: check --top.`);
  const targets = req.targets;
  // Virtual file system: sources under distinct names, each source's folder and the include folders as -I.
  const headers: FileTree = {};
  const names = req.sources.map((s, i) => `src${i}_${basename(s.file).replace(/[^\w.-]/g, '_')}`);
  const folders = [...new Set([...req.sources.map((s) => dirname(s.file)), ...(req.includeDirs ?? [])])];
  const includeDirs = await includeTree(folders, headers);
  const headerTexts = textsOf(headers);
  // Where an arm's macro may be defined: the sources, their headers, the run's defines.
  const defineTexts = Object.entries(req.defines ?? {}).map(([k, v]) => `\`define ${k} ${v}`);
  const inst = instrument(analysis, req.sources, targets, [...headerTexts, ...defineTexts]);
  const treeOf = (files: Map<string, string>): FileTree => {
    const tree: FileTree = { ...headers };
    req.sources.forEach((s, i) => (tree[names[i]] = files.get(s.file) ?? s.content));
    return tree;
  };
  let tree = treeOf(inst.files);

  const verdicts: TargetVerdict[] = targets.map((target, i) => {
    const f = inst.flags[i];
    return 'reason' in f
      ? { target, verdict: { status: 'unknown', reason: f.reason } }
      : { target, site: f.label, verdict: { status: 'unknown', reason: 'not decided' } };
  });
  const flagged = [...new Set(inst.flags.flatMap((f) => ('flag' in f ? [f.flag] : [])))];
  if (!flagged.length) return { verdicts, yosysMs: 0 };

  let deadline = started + (req.runTimeoutSeconds ?? 120) * 1000;
  const memoryMb = req.memoryMb ?? DEFAULT_MEMORY_MB;
  const slang = await slangFrontEnd(logger);
  const startWorker = (front: typeof slang) =>
    new YosysWorker({
      signal: services.signal,
      deadlineMs: Math.max(1, deadline - Date.now()),
      memoryMb,
      slang: front,
    });
  let worker = startWorker(slang);
  let frontEnd: 'slang' | 'verilog' = slang ? 'slang' : 'verilog';
  const outcome = new Map<number, Verdict>();
  let failure: string | undefined;
  let isolation: ProveResult['isolation'];
  /** Flags whose site Yosys rejected, with why. */
  let dropped = new Map<string, string>();
  // Filled as Yosys answers: a run stopped at its bound keeps the points decided before.
  let flagWires: string[] | undefined;
  const proofs = new Map<string, ProofOutcome>();
  const traces = new Map<string, ReturnType<typeof parseWitness>>();
  // Points left without a proof or a trace from reset, with the netlist they were decided on: searched from the
  // simulation's states once every point has had its proof.
  const deepJobs: { calls: DeepCall[]; base: FileTree }[] = [];
  const deep: DeepSearch = { traces: new Map(), tried: new Map(), problems: 0, outOfTime: false };
  const targetOfFlag = new Map<string, FormalTarget>();
  inst.flags.forEach((f, i) => {
    if ('flag' in f && !targetOfFlag.has(f.flag)) targetOfFlag.set(f.flag, targets[i]);
  });
  const reset =
    top.reset && top.ports.some((p) => p.name === top.reset!.name && p.direction === 'input') ? top.reset : null;
  const wiresOf = (flag: string) => (flagWires ?? []).filter((w) => w === flag || w.endsWith(`.${flag}`));
  // A flag's names inside its module: `chorus_flag_3`, or one per copy of a generate block
  // (`g_lane[0].chorus_scope_0.chorus_flag_3`); a flattened wire is an instance path and one of them.
  let localFlags: string[] | undefined;
  const instanceOf = (wire: string, flag: string): string | undefined => {
    const locals = (localFlags ?? [flag]).filter((l) => l === flag || l.endsWith(`.${flag}`));
    for (const l of locals) {
      if (wire === l) return '';
      if (wire.endsWith(`.${l}`)) return wire.slice(0, wire.length - l.length - 1);
    }
    return undefined;
  };
  try {
    /** Every point unknown with why: the design (or its model) could not be read. */
    const unreadable = (reason: string): ProveResult => ({
      verdicts: unknownAll(targets, reason),
      yosysMs: Date.now() - started,
      failure: reason,
      prover: proverVersion(frontEnd),
    });
    const prepInput = {
      files: names,
      top: req.top,
      defines: req.defines ?? {},
      includeDirs,
      parameters: req.parameters ?? {},
    };
    // Name the user's files, not their copies in Yosys' file system.
    const message = (log: string) =>
      names.reduce((m, n, i) => m.split(n).join(req.sources[i].file), lastError(log) ?? 'Yosys stopped');
    // Memories stay memory cells here: a big memory mapped to registers is tens of thousands of bits, and most flags
    // (a parameter-disabled arm, a pointer compare) never read a memory.
    let prep = await readDesign(worker, { ...prepInput, frontEnd }, tree, false);
    if (frontEnd === 'slang' && (prep.code !== 0 || !prep.files['prepared.il'])) {
      // slang is stricter than Yosys 0.55 in places: a design only the older parser takes is still proven there.
      const retry = startWorker(undefined);
      const old = await readDesign(retry, { ...prepInput, frontEnd: 'verilog' }, tree, false);
      if (old.code === 0 && old.files['prepared.il']) {
        logger.info(
          `formal: read_slang could not read the design (${lastError(prep.log) ?? `exit ${prep.code}`}); read_verilog -sv did`,
        );
        worker.close();
        [worker, prep, frontEnd] = [retry, old, 'verilog'];
      } else retry.close();
    }
    if (prep.code !== 0 || !prep.files['prepared.il']) {
      // One site Yosys rejects must not cost every point: find it, leave it out, decide the rest.
      const isolateStart = Date.now();
      const reader = worker;
      const front = frontEnd;
      const found = await isolateSites(
        flagged,
        prep,
        (enabled) => readDesign(reader, { ...prepInput, frontEnd: front }, treeOf(inst.render(enabled)), false),
        (log) => {
          const at = errorPlace(log);
          const i = at ? names.indexOf(at.name) : -1;
          // Flags the message names (`for signal \chorus_flag_3`), else those whose text is on the error's line.
          const named = [...log.matchAll(/ERROR: .*/g)].flatMap((m) => m[0].match(/chorus_flag_\d+/g) ?? []);
          if (named.length) return [...new Set(named)];
          return i >= 0 && at ? inst.flagsAt(req.sources[i].file, at.line) : [];
        },
        message,
        // Half the run's bound at most: the points kept still need their proofs.
        started + ((req.runTimeoutSeconds ?? 120) * 1000) / 2,
      );
      if ('failure' in found) {
        failure = found.failure;
        return unreadable(failure);
      }
      isolation = { reads: found.reads, dropped: found.dropped.size, ms: Date.now() - isolateStart };
      logger.warn(
        `formal: Yosys rejected ${found.dropped.size} instrumented site(s); the other ${found.enabled.size} are decided (${found.reads} reads, ${isolation.ms} ms)`,
      );
      dropped = found.dropped;
      prep = found.prep;
      tree = treeOf(inst.render(found.enabled));
    }
    noteFrontEnd(frontEnd);
    // Several clocks, or both edges of one: the multi-clock model from the flattened design (proofs only).
    let multi: MultiClock | undefined;
    const clocking = clockProblem(prep.files);
    if (clocking) {
      const model = await multiClockOf(worker, prep);
      if ('failure' in model) {
        failure = model.failure;
        return unreadable(failure);
      }
      services.onProofsOnly?.();
      // No witness will come back for the search to run: the proofs may take the time it kept for them.
      const proofsOnlyDeadline = started + (req.proofsOnlyTimeoutSeconds ?? 0) * 1000;
      if (proofsOnlyDeadline > deadline) {
        logger.debug(
          `formal: proofs only: the run's bound moves from ${Math.round((deadline - started) / 1000)} s to ${req.proofsOnlyTimeoutSeconds} s`,
        );
        deadline = proofsOnlyDeadline;
        worker.extendDeadline(deadline - Date.now());
      }
      logger.info(
        `formal: ${clocking.replace(/: only single-clock designs are modelled|: not modelled/, '')}; proofs only, each flag in its clock domain's model or in the multi-clock one${model.problem ? ` (not trusted: ${model.problem})` : ''}`,
      );
      multi = model;
    }
    const prepared = prep.files['prepared.il']!;

    flagWires = listedNames(prep.files['flags.txt']).filter(isPlainArg);
    if (prep.files['localflags.txt'] !== undefined) {
      localFlags = listedNames(prep.files['localflags.txt']);
      // read_slang hands Yosys an elaborated hierarchy whose names already carry instance paths: a flag's own name
      // starts at its generate block (the component before `chorus_scope_N`), or is the flag itself.
      if (frontEnd === 'slang') localFlags = [...new Set(localFlags.map(withinModule))];
    }
    // Proofs, in batches: each flag wire (one per instance of its module) by k-induction; a shallow pass over every
    // point first, then the points it left open up to the full depth.
    const passes = maxDepth > SHALLOW_DEPTH ? [SHALLOW_DEPTH, maxDepth] : [maxDepth];
    let group = 0;
    /** Proves a set of flags on a netlist; `groups`: a joint induction first. */
    const proveOn = async (set: { flag: string; wire: string }[], net: FileTree, depths: number[], groups: boolean) => {
      // Groups first: arms a parameter disables come in dozens, and one induction proves a whole group of them.
      const proveGroup = async (calls: typeof set): Promise<void> => {
        if (calls.length <= BATCH) return;
        const log = `g${group++}.log`;
        const script = jointProofScript(
          calls.map((c) => c.wire),
          log,
          depths[0],
          pointTimeout,
        );
        // Hundreds of flags make a long line: a `-p` argument of about 64 KiB stops the WebAssembly build.
        const out =
          script.length > INLINE_SCRIPT_MAX
            ? await worker.run(['-q', '-s', 'group.ys'], { ...net, 'group.ys': script })
            : await worker.run(['-q', '-p', script], net);
        const joint = parseProof(out.files[log], depths[0]);
        if (joint.kind === 'proven') for (const c of calls) proofs.set(c.wire, joint);
        // A reachable flag in the group: its halves may still hold proofs. Anything else is left to single proofs.
        else if (joint.kind === 'reachable') {
          const half = Math.ceil(calls.length / 2);
          await proveGroup(calls.slice(0, half));
          await proveGroup(calls.slice(half));
        }
      };
      if (groups) await proveGroup(set);
      for (const [pass, depth] of depths.entries()) {
        const open =
          pass === 0 ? set.filter((c) => !proofs.has(c.wire)) : set.filter((c) => isDepthBound(proofs.get(c.wire)));
        const size = pass === 0 ? BATCH : DEEP_BATCH;
        for (let i = 0; i < open.length; i += size) {
          const batch = open.slice(i, i + size).map((c, j) => ({ ...c, log: `p${pass}_${i + j}.log` }));
          const out = await worker.run(['-q', '-p', proofScript(batch, depth, pointTimeout)], net);
          for (const c of batch) proofs.set(c.wire, parseProof(out.files[c.log], depth));
        }
      }
    };
    /** What the PDR stage may use: the run's time less what the verdicts take. */
    const pdrTimeLeft = () => deadline - Date.now() - PDR_RESERVE_MS;
    /**
     * The PDR stage's share of the time left: all of it on a design with several clocks (proofs only), half where
     * the witness searches after it (from reset, from reached states) need the rest.
     */
    const pdrShare = () => (multi ? 1 : PDR_SHARE_BEFORE_WITNESSES);
    /** When the PDR stage of a netlist ends: set as its model is built, its share of the time left then. */
    let pdrEnd = 0;
    const pdrLeft = () => Math.min(pdrTimeLeft(), pdrEnd - Date.now());
    /** PDR's model of the flags of `set` that k-induction left open, in the netlist `net` (every cone in one clock domain). */
    const pdrModelOf = (set: { wire: string }[], net: FileTree) => {
      pdrEnd = Date.now() + pdrTimeLeft() * pdrShare();
      return buildPdrModel(
        worker,
        net,
        set.filter((c) => !isDecided(proofs.get(c.wire))).map((c) => c.wire),
        pdrLeft(),
      );
    };
    /**
     * PDR (pdr.ts) on the flags of `set` still open (in this order), in `model`: a relation between registers proves
     * what no induction length does.
     */
    const provePdrOn = async (
      set: { wire: string }[],
      model: PdrModel | undefined,
      what: string,
    ): Promise<ReadonlySet<string>> => {
      if (!model) return new Set();
      const open = set.filter((c) => !isDecided(proofs.get(c.wire)));
      const found = await provePdr(
        worker,
        model,
        open.map((c) => c.wire),
        { timeLeftMs: pdrLeft, memoryMb, debug: (m) => logger.debug(`formal: ${m}`) },
      );
      for (const w of found.proven) proofs.set(w, { kind: 'proven', depth: 1, byInvariant: true });
      logger.debug(
        `formal: PDR on ${open.length} open flag(s) of the ${what}: ${model.reached.size + found.reached.size} reached in the model (${model.ms} ms for the model and its bounded check), ${found.proven.size} proven, ${found.tried} tried (${found.ms} ms)`,
      );
      return found.reached;
    };
    // Behind a reset a register drives, the model skips an instant the simulator has: no proof is claimed there.
    const noProofBehindRegisteredReset = (set: { wire: string }[], prepFiles: FileTexts) => {
      const behindRegisteredReset = new Set(listedNames(prepFiles['asyncflags.txt']));
      if (!behindRegisteredReset.size) return;
      const sources = listedNames(prepFiles['asyncsources.txt']);
      const named = `${sources.slice(0, 3).join(', ')}${sources.length > 3 ? ', …' : ''}`;
      for (const c of set)
        if (behindRegisteredReset.has(c.wire) && proofs.get(c.wire)?.kind === 'proven')
          proofs.set(c.wire, {
            kind: 'unknown',
            reason: `the point is downstream of an asynchronous reset (or set, or load) that a register drives (${named}): it can change at a clock edge, and the registers it resets hold their clocked values for an instant the formal model (the reset made synchronous) skips, so no proof is claimed`,
          });
    };
    /**
     * Flags whose cone crosses clock domains, with the multi-clock model they are proven in: decided after every
     * other flag (one induction of a whole core in that model can pass the memory bound, which ends the run).
     */
    const crossingJobs: {
      calls: { flag: string; wire: string }[];
      model: MultiClock;
      prepFiles: FileTexts;
      domains: Map<string, Domain>;
    }[] = [];
    /** Proofs of a netlist's flags; with several clocks, those in one clock domain now, the others queued. */
    const proveSet = async (
      proofCalls: { flag: string; wire: string }[],
      base: FileTree,
      prepFiles: FileTexts,
      multiModel: MultiClock | undefined,
    ) => {
      if (!multiModel) {
        await proveOn(proofCalls, base, passes, true);
        await provePdrOn(proofCalls, await pdrModelOf(proofCalls, base), 'design');
        return;
      }
      // A flag whose cone is one clock domain (registers on one clock net and edge, no latch, reached through data)
      // is proven in the single-clock model, as in a design with one clock; the others in the multi-clock model.
      const domains = flagDomains(
        typeof base['prepared.il'] === 'string' ? base['prepared.il'] : '',
        proofCalls.map((c) => c.wire),
      );
      const single = proofCalls.filter((c) => isSingleDomain(domains.get(c.wire)));
      // Smaller cones first: a problem past the memory bound ends the run, and larger cones are likelier to.
      const state = (w: string) => {
        const d = domains.get(w);
        return d ? d.posedge + d.negedge + d.other : Infinity;
      };
      const crossing = proofCalls
        .filter((c) => !isSingleDomain(domains.get(c.wire)))
        .sort((a, b) => state(a.wire) - state(b.wire));
      logger.debug(
        `formal: ${single.length} flag(s) in one clock domain, ${crossing.length} across domains (the multi-clock model)`,
      );
      await proveOn(single, base, passes, true);
      await provePdrOn(single, await pdrModelOf(single, base), "design's single-domain cones");
      for (const c of single)
        if (proofs.get(c.wire)?.kind === 'reachable') proofs.set(c.wire, { kind: 'unknown', reason: DOMAIN_REACHED });
      if (crossing.length) crossingJobs.push({ calls: crossing, model: multiModel, prepFiles, domains });
    };
    const decideCalls = async (
      proofCalls: { flag: string; wire: string }[],
      base: FileTree,
      prepFiles: FileTexts,
      /** Several clocks: the multi-clock model, for the flags whose cone is not one clock domain (proofs only). */
      multiModel?: MultiClock,
    ): Promise<void> => {
      // Flags the values the registers can hold keep at 0 are proven at once, whatever their clock domains; the
      // others go to k-induction. It decides hundreds of flags in the time one induction takes, so it may use what is
      // left of the run (a second kept for the verdicts).
      const netlist = typeof base['prepared.il'] === 'string' ? base['prepared.il'] : '';
      const held = await registerValues(
        netlist,
        proofCalls.map((c) => c.wire),
        { maxMs: deadline - Date.now() - 1000, signal: services.signal },
      );
      for (const c of proofCalls)
        if (held.zeroFlags.has(c.wire)) proofs.set(c.wire, { kind: 'proven', depth: 1, byRegisterValues: true });
      logger.debug(
        `formal: ${held.zeroFlags.size} of ${proofCalls.length} flag(s) held at 0 by the values registers can hold (${held.constantBits} of ${held.registerBits} register bits constant, ${held.valueSets} register(s) with a set of values, ${held.rounds} round(s), ${held.ms} ms)`,
      );
      await proveSet(
        proofCalls.filter((c) => !held.zeroFlags.has(c.wire)),
        base,
        prepFiles,
        multiModel,
      );
      noProofBehindRegisteredReset(proofCalls, prepFiles);
      // Witnesses for the flags reached from the start state: a trace that also starts with the reset pulse. None on
      // a design with several clocks: CHORUS's harness drives the clocks itself, and the model's trace leaves them free.
      if (multiModel) return;
      const reachable = proofCalls.filter((c) => proofs.get(c.wire)?.kind === 'reachable');
      for (let i = 0; i < reachable.length; i += BATCH) {
        const batch = reachable.slice(i, i + BATCH).map((c, j) => ({
          ...c,
          log: `w${i + j}.log`,
          steps: (proofs.get(c.wire) as { depth: number }).depth + (reset ? resetCycles : 0) + 2,
        }));
        const script = witnessScript(
          batch,
          reset ? { name: reset.name, active: reset.activeLow ? 0 : 1, cycles: resetCycles } : undefined,
          pointTimeout,
        );
        const out = await worker.run(['-q', '-p', script], base);
        for (const c of batch) traces.set(c.wire, parseWitness(out.files[c.log]));
      }
      if (req.starts?.length) {
        const open = proofCalls.filter((c) => proofs.get(c.wire)?.kind !== 'proven' && !traces.get(c.wire)?.trace);
        if (open.length)
          deepJobs.push({ calls: open.map((c) => ({ wire: c.wire, target: targetOfFlag.get(c.flag)! })), base });
      }
    };
    // A flag a memory's read data reaches is decided on a second netlist with the memories mapped to registers,
    // made only when some flag needs it, after every other flag is decided.
    const inMemoryCone = new Set(listedNames(prep.files['memflags.txt']));
    const calls = flagged.flatMap((flag) => wiresOf(flag).map((wire) => ({ flag, wire })));
    await decideCalls(
      calls.filter((c) => !inMemoryCone.has(c.wire)),
      { 'prepared.il': prepared },
      prep.files,
      multi,
    );
    const memoryCalls = calls.filter((c) => inMemoryCone.has(c.wire));
    if (memoryCalls.length && multi) {
      const mapped = await multiClockOf(worker, await readDesign(worker, { ...prepInput, frontEnd }, tree, true));
      if ('failure' in mapped)
        for (const c of memoryCalls) proofs.set(c.wire, { kind: 'unknown', reason: mapped.failure });
      else await decideCalls(memoryCalls, { 'prepared.il': mapped.prepared }, mapped.files, mapped);
    } else if (memoryCalls.length) {
      const mapped = await readDesign(worker, { ...prepInput, frontEnd }, tree, true);
      const netlist = mapped.files['prepared.il'];
      const why =
        mapped.code !== 0 || !netlist
          ? `Yosys could not map the design's memories: ${lastError(mapped.log) ?? `exit ${mapped.code}`}`
          : clockProblem(mapped.files);
      if (why || !netlist)
        for (const c of memoryCalls) proofs.set(c.wire, { kind: 'unknown', reason: why ?? 'not decided' });
      else await decideCalls(memoryCalls, { 'prepared.il': netlist }, mapped.files);
    }
    // Last, the flags across clock domains. First the gated-clock model, where the domains behind clock gates are
    // one with their input clock's: a single-clock problem, with groups, for each flag whose cone is one domain there.
    // Then the multi-clock model for what it left, where a clock cycle is two steps or more (the depths doubled); no
    // group there (a joint cone of a whole core is the largest problem of all).
    for (const job of crossingJobs) {
      const gatedReached = new Set<string>();
      const gated = await gatedModelOf(worker, job.prepFiles, logger);
      if (gated) {
        const domains = flagDomains(
          gated,
          job.calls.map((c) => c.wire),
          true,
        );
        const inGated = job.calls.filter((c) => isSingleDomain(domains.get(c.wire)));
        // The bounded check of PDR's model first: it rules out at once the flags the model reaches (most of a core's
        // open ones), which no induction proves. Then the inductions of small cones, cheap on what they prove; then
        // PDR on the rest, the flags with the least logic near them first (a relation is likelier there, and its
        // proof cheaper). Last, cones cut a few registers back for what PDR left undecided.
        const pdrModel = await pdrModelOf(inGated, { 'prepared.il': gated });
        for (const w of pdrModel?.reached ?? []) gatedReached.add(w);
        const left = inGated.filter((c) => !isDecided(proofs.get(c.wire)) && !gatedReached.has(c.wire));
        const bits = (c: { wire: string }) => domains.get(c.wire)!.localBits;
        const whole = left.filter((c) => domains.get(c.wire)!.cells <= MULTI_CLOCK_MAX_CELLS);
        await proveOn(whole, { 'prepared.il': gated }, passes, true);
        const pdrReached = await provePdrOn(
          [...left].sort((a, b) => bits(a) - bits(b)),
          pdrModel,
          'gated-clock model',
        );
        // A larger cone (every cone of a core is most of the core, a multiplier included) is cut a few registers back
        // (`cutCone` in yosys.ts), smallest first, its largest left out. On cv32e40p_core PDR proves in 0.1 s what a
        // cut cone takes 0.5 s for, and what no cut proves; the cut cones take the time it leaves.
        const cut = left
          .filter(
            (c) =>
              !whole.includes(c) &&
              !isDecided(proofs.get(c.wire)) &&
              !pdrReached.has(c.wire) &&
              bits(c) <= LOCALIZED_MAX_BITS,
          )
          .sort((a, b) => bits(a) - bits(b));
        // A batch starts only where the slowest one so far (at first, one on the core) still fits: one stopped at the
        // run's bound ends the run.
        const cutEnd = pdrModel ? pdrEnd : Infinity;
        let slowestBatch = CUT_BATCH_MS;
        for (let i = 0; i < cut.length && Date.now() + slowestBatch < cutEnd; i += LOCALIZED_BATCH) {
          const batch = cut.slice(i, i + LOCALIZED_BATCH).map((c, j) => ({ ...c, log: `l${i + j}.log` }));
          const batchStart = Date.now();
          const out = await worker.run(['-q', '-p', proofScript(batch, LOCALIZED_DEPTH, pointTimeout, true)], {
            'prepared.il': gated,
          });
          slowestBatch = Math.max(slowestBatch, Date.now() - batchStart);
          // Only a proof counts: what the cut leaves free can reach a flag no state of the design reaches.
          for (const c of batch) {
            const p = parseProof(out.files[c.log], LOCALIZED_DEPTH);
            if (p.kind === 'proven') proofs.set(c.wire, p);
          }
        }
        for (const w of pdrReached) gatedReached.add(w);
        let proven = 0;
        for (const c of inGated) {
          const p = proofs.get(c.wire);
          if (p?.kind === 'proven') proven++;
          else {
            if (p?.kind === 'reachable') gatedReached.add(c.wire);
            proofs.delete(c.wire);
          }
        }
        logger.debug(
          `formal: ${proven} of ${job.calls.length} flag(s) across clock domains proven in the gated-clock model (${inGated.length} in its one domain: ${whole.length} whole, ${cut.length} cut ${LOCAL_LAYERS} registers back)`,
        );
      }
      const open = job.calls.filter((c) => !proofs.has(c.wire));
      const large = open.filter((c) => (job.domains.get(c.wire)?.cells ?? Infinity) > MULTI_CLOCK_MAX_CELLS);
      for (const c of large)
        proofs.set(c.wire, {
          kind: 'unknown',
          reason: gatedReached.has(c.wire)
            ? GATED_REACHED
            : `its cone crosses clock domains and holds ${job.domains.get(c.wire)?.cells ?? 'an unknown number of'} cells: in the multi-clock model (clocks as free inputs) a cone over ${MULTI_CLOCK_MAX_CELLS} cells takes seconds to a gigabyte a step, so no proof is tried; simulation decides it`,
        });
      const tried = open.filter((c) => !large.includes(c));
      if (job.model.problem)
        for (const c of tried)
          proofs.set(c.wire, { kind: 'unknown', reason: gatedReached.has(c.wire) ? GATED_REACHED : job.model.problem });
      else
        await proveOn(
          tried,
          { 'prepared.il': job.model.netlist },
          passes.map((d) => 2 * d),
          false,
        );
      for (const c of tried) {
        const p = proofs.get(c.wire);
        if (p?.kind === 'reachable') proofs.set(c.wire, { kind: 'unknown', reason: MULTI_CLOCK_REACHED });
        else if (p?.kind === 'unknown')
          proofs.set(c.wire, {
            kind: 'unknown',
            reason: p.reason.replace(
              /within (\d+) cycles \(induction depth\)|at induction length (\d+)/,
              (_m, a?: string, b?: string) =>
                a
                  ? `within ${a} steps of the multi-clock model (induction depth; a clock cycle is two steps or more)`
                  : `at induction length ${b} (steps of the multi-clock model)`,
            ),
          });
      }
      noProofBehindRegisteredReset(job.calls, job.prepFiles);
    }
    const deepStarted = Date.now();
    for (const job of deepJobs) {
      const found = await searchFromStarts(worker, job.base, top, job.calls, req.starts ?? [], {
        steps: maxDepth + 2,
        pointTimeoutS: pointTimeout,
        // A second in hand: the worker's own bound would end the run as a failure.
        timeLeftMs: () => deadline - Date.now() - 1000,
      });
      for (const [w, t] of found.traces) deep.traces.set(w, t);
      for (const [w, n] of found.tried) deep.tried.set(w, n);
      deep.problems += found.problems;
      deep.outOfTime ||= found.outOfTime;
    }
    if (deepJobs.length)
      logger.debug(
        `formal: ${deep.traces.size} trace(s) from ${req.starts?.length ?? 0} reached state(s) for ${deepJobs.reduce((a, j) => a + j.calls.length, 0)} open flag(s): ${deep.problems} problem(s) in ${Date.now() - deepStarted} ms${deep.outOfTime ? ", stopped by the run's bound" : ''}`,
      );
  } catch (err) {
    if (!(err instanceof YosysStopped)) throw err;
    if (err.why === 'aborted' && services.signal.aborted) throw new ChorusError('cancelled', 'Formal run cancelled.');
    failure = err.message;
    // The run's time is the budget's: running out of it is how a run on a large design ends, not a fault.
    if (err.why === 'timeout')
      logger.info(
        `formal: ${err.message}; the points not decided by then stay unknown (a longer budget gives the formal stage more time)`,
      );
    else logger.warn(`formal: ${err.message}`);
  } finally {
    logger.debug(`formal: Yosys peak resident memory ${Math.round(worker.peakRssBytes / 2 ** 20)} MiB`);
    worker.close();
  }
  if (flagWires) {
    targets.forEach((target, i) => {
      const f = inst.flags[i];
      if (!('flag' in f)) return;
      const why = dropped.get(f.flag);
      if (why) {
        outcome.set(i, { status: 'unknown', reason: why });
        return;
      }
      const all = wiresOf(f.flag);
      const wires = target.instance === undefined ? all : all.filter((w) => instanceOf(w, f.flag) === target.instance);
      const decided = decide(wires, proofs, traces, top, reset ? resetCycles : 0, failure, deep);
      outcome.set(
        i,
        decided.status === 'witness' && f.noWitness
          ? { status: 'unknown', reason: `not proven: ${f.noWitness}` }
          : decided,
      );
    });
  }
  const yosysMs = Date.now() - started;
  return {
    verdicts: verdicts.map((v, i) => {
      const f = inst.flags[i];
      if (!('flag' in f)) return v;
      return { ...v, verdict: outcome.get(i) ?? { status: 'unknown', reason: failure ?? 'not decided' } };
    }),
    yosysMs,
    prover: proverVersion(frontEnd),
    ...(failure ? { failure } : {}),
    ...(isolation ? { isolation } : {}),
  };
}
