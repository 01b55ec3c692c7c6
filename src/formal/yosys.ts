/** Yosys scripts for the formal engine, and what their logs say. */
import { ChorusError } from '../protocol';

/** A name or constant as a Yosys command argument; anything Yosys' command parser would split or quote is refused. */
export const isPlainArg = (s: string) => /^[\w.$:\\/[\]'+-]+$/.test(s);

function arg(s: string): string {
  if (isPlainArg(s)) return s;
  throw new ChorusError(
    'bad_input',
    `'${s}' cannot be passed to Yosys (spaces, quotes or ';'): use a plain name or a constant such as 8'hFF.`,
  );
}

export interface PrepInput {
  files: string[];
  top: string;
  defines: Record<string, string>;
  includeDirs: string[];
  parameters: Record<string, string>;
  /**
   * Memories mapped to registers (every flag can then be proven), or kept as memory cells: far smaller for a big
   * memory, and enough for every flag outside the memories' fan-out (`memflags.txt` lists those inside it).
   */
  mapMemories: boolean;
  /**
   * `slang`: Yosys 0.70's `read_slang` (the SystemVerilog Verilator reads: packages, assignment patterns, casts,
   * automatic functions), parameters given to the elaboration (`-G`); `verilog`: Yosys 0.55's `read_verilog -sv`,
   * parameters set afterwards (`chparam`).
   */
  frontEnd: 'slang' | 'verilog';
}

/** The command that reads the design's files (in the order Verilator reads them). */
export function readCommands(p: Omit<PrepInput, 'mapMemories'>): string[] {
  const includes = p.includeDirs.map((d) => `-I${arg(d)}`);
  if (p.frontEnd === 'slang') {
    // The WebAssembly build has no threads: slang stops at its thread pool without `--threads 1`. The flags of the
    // instrumented copy are declared at the module's end, after their uses, as Yosys 0.55 and Verilator accept.
    const defines = Object.entries(p.defines).map(([k, v]) => (v === '' ? `-D ${arg(k)}` : `-D ${arg(k)}=${arg(v)}`));
    const params = Object.entries(p.parameters).map(([k, v]) => `-G ${arg(k)}=${arg(v)}`);
    return [
      `read_slang --threads 1 --allow-use-before-declare ${[...defines, ...includes, ...params, ...p.files.map(arg)].join(' ')} --top ${arg(p.top)}`,
    ];
  }
  const defines = Object.entries(p.defines).map(([k, v]) => (v === '' ? `-D${arg(k)}` : `-D${arg(k)}=${arg(v)}`));
  const lines = [`read_verilog -sv ${[...defines, ...includes, ...p.files.map(arg)].join(' ')}`];
  for (const [k, v] of Object.entries(p.parameters)) lines.push(`chparam -set ${arg(k)} ${arg(v)} ${arg(p.top)}`);
  return lines;
}

const STATEFUL =
  '$dff,$dffe,$adff,$adffe,$sdff,$sdffe,$sdffce,$aldff,$aldffe,$dffsr,$dffsre,$dlatch,$adlatch,$dlatchsr,$sr,$ff,$mem_v2';

/** Registers a cut cone (`cutCone`) keeps between the flag and the free values it is cut at. */
export const LOCAL_LAYERS = 2;
/**
 * A flag's cone cut `LOCAL_LAYERS` registers back, as a Yosys selection: its logic up to the registers it reads,
 * those registers, their logic up to the registers before them, and so on. What drives the cut is left out of the
 * problem, so `sat` takes those values as free at every step: a flag proven 0 there is 0 in the whole design.
 */
function cutCone(wire: string): string {
  const layer = `%ci1 %ci*:-${STATEFUL} %ci1`;
  return [`w:${arg(wire)} %ci*:-${STATEFUL} %ci1`, ...Array.from({ length: LOCAL_LAYERS - 1 }, () => layer)].join(' ');
}

/**
 * The registers whose output reaches an asynchronous control (a reset, set or load) through logic alone. Such a
 * control can change at a clock edge: the registers it resets then hold their clocked values for an instant (a
 * combinational block and an FSM probe see them) that the model, with the reset made synchronous, skips. A reset
 * from the design's inputs changes between edges, as every input does, and the model has it exactly.
 */
const ASYNC_CONTROL_SOURCES = [
  't:$adff* t:$aldff* t:$dffsr* t:$adlatch t:$dlatchsr t:$sr %u %u %u %u %u %x:+[ARST,ALOAD,AD,SET,CLR] t:* %d',
  `%ci*:-${STATEFUL} %ci1`,
  't:$*ff* t:$*latch* t:$sr t:$mem* %u %u %u %i',
].join(' ');

/**
 * Reads and prepares the instrumented design: one flattened netlist with asynchronous resets made synchronous (a
 * reset is held for whole cycles), memories as registers or as memory cells, and the lists the caller checks
 * (flags, clocks, the flags a memory's read data reaches).
 */
export function prepScript(p: PrepInput): string {
  const lines = readCommands(p);
  lines.push(
    `prep -top ${arg(p.top)}`,
    // Each flag's names inside its module (`g_lane[0].chorus_scope_0.chorus_flag_3` in a generate for): what a
    // flattened name holds past the instance path.
    'tee -q -o localflags.txt select -list w:*chorus_flag_*',
    'flatten',
    ...(p.mapMemories ? ['memory_map'] : []),
    // Before async2sync: the registers an asynchronous reset, set or load is driven by (through logic, not through
    // other registers), and every flag downstream of them (see ASYNC_CONTROL_SOURCES).
    `tee -q -o asyncsources.txt select -list ${ASYNC_CONTROL_SOURCES} %x:+[Q] t:* %d`,
    `tee -q -o asyncflags.txt select -list ${ASYNC_CONTROL_SOURCES} %co* w:*chorus_flag_* %i`,
    // What the clocks are driven by, and the flattened design as it is here: a design with several clocks gets its
    // multi-clock and gated-clock models from it (`MULTI_CLOCK_SCRIPT`, gatedModel.ts) without a second read.
    ...CLOCK_SOURCES,
    'async2sync',
    'opt_clean',
    'tee -q -o flags.txt select -list w:*chorus_flag_*',
    // `%co*` follows outputs through cells and registers: every flag whose cone of influence holds a memory.
    'tee -q -o memflags.txt select -list t:$mem* %co* w:*chorus_flag_* %i',
    'tee -q -o clocks.txt select -list t:* %x:+[CLK] t:* %d',
    'tee -q -o negedge.txt select -list t:* r:CLK_POLARITY=0 %i',
    'tee -q -o posedge.txt select -list t:* r:CLK_POLARITY=1 %i',
    'write_rtlil prepared.il',
  );
  return lines.join('\n');
}

/**
 * The multi-clock model from the flattened design (`flat.il`): every register and latch a global-clock `$ff` that
 * detects its own clock's edge, the clocks free inputs (`multiclock.il`).
 */
export const MULTI_CLOCK_SCRIPT = [
  'read_rtlil flat.il',
  // clk2fflogic takes no clocked read port: its register goes back to being an ordinary one first.
  'memory_nordff',
  'clk2fflogic',
  'opt_clean',
  'write_rtlil multiclock.il',
].join('\n');

const LATCHES = '$dlatch,$adlatch,$dlatchsr,$sr';
const EDGE_STATEFUL = STATEFUL.split(',')
  .filter((t) => !LATCHES.split(',').includes(t))
  .map((t) => `t:${t}`);
/** The nets on clock ports (memories' included), and everything between them and the state elements driving them. */
const CLOCK_CONE = `@chorus_clocks %ci*:-${STATEFUL} %ci1`;
/**
 * Before `async2sync`, for the multi-clock and gated-clock models: the registers whose output reaches a clock through
 * logic alone (`clocksources.txt`), the latches that do (`clocklatches.txt`), and that logic with the cells driving
 * those latches' enables (`clockgates.il`), to tell a clock gate from a latch that passes a register's update on to a
 * clock; then the flattened design (`flat.il`).
 */
const CLOCK_SOURCES = [
  'select -set chorus_clocks t:* %x:+[CLK,RD_CLK,WR_CLK] t:* %d',
  `tee -q -o clocksources.txt select -list ${CLOCK_CONE} ${EDGE_STATEFUL.join(' ')} ${EDGE_STATEFUL.slice(1)
    .map(() => '%u')
    .join(' ')} %i`,
  `tee -q -o clocklatches.txt select -list ${CLOCK_CONE} t:$dlatch t:$adlatch t:$dlatchsr t:$sr %u %u %u %i`,
  `select ${CLOCK_CONE} ${CLOCK_CONE} t:$dlatch t:$adlatch t:$dlatchsr t:$sr %u %u %u %i %ci1:+[EN] %ci1 %u`,
  'write_rtlil -selected clockgates.il',
  'select -clear',
  'write_rtlil flat.il',
];

/** `m/u1.chorus_flag_3` lines → wire names (`u1.chorus_flag_3`), Yosys' own `$…` wires left out. */
export function listedNames(text: string | undefined): string[] {
  return (text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes('/'))
    .map((l) => l.slice(l.indexOf('/') + 1))
    .filter((n) => !n.startsWith('$'));
}

export interface ProofCall {
  log: string;
  wire: string;
}

/**
 * k-induction for each flag wire, from Verilator's start state (zeros, initializers kept): undriven wires and x
 * constants become free values, so a proof holds whatever value the simulator picks for them.
 */
export function proofScript(calls: ProofCall[], maxDepth: number, timeoutS: number, cut = false): string {
  const lines = ['read_rtlil prepared.il', 'setundef -undriven -anyseq'];
  // Each problem holds only the flag's cone of influence (`%ci*` follows inputs through registers): what lies
  // outside cannot change the flag, and hundreds of flags stay cheap. `cut`: the cone cut a few registers back
  // (`cutCone`), for a design whose every cone is most of it.
  for (const c of calls) {
    lines.push(
      `tee -q -o ${c.log} sat -tempinduct -prove ${arg(c.wire)} 0 -set-init-zero -maxsteps ${maxDepth} -timeout ${timeoutS} ${cut ? cutCone(c.wire) : `w:${arg(c.wire)} %ci*`}`,
    );
  }
  return lines.join('\n');
}

/** Several flags' problem: each held at 0, and the union of their cones of influence. */
function jointFlags(wires: string[]): { proves: string; cone: string } {
  return {
    proves: wires.map((w) => `-prove ${arg(w)} 0`).join(' '),
    cone: `${wireUnion(wires)} %ci*`,
  };
}

/** Several wires as one Yosys selection (each name checked as `arg` does). */
export function wireUnion(wires: string[]): string {
  return wires.map((w, i) => (i === 0 ? `w:${arg(w)}` : `w:${arg(w)} %u`)).join(' ');
}

/**
 * One k-induction for several flag wires at once: every flag stays 0. Proven, it proves each (the conjunction
 * implies every part); a base-case model means at least one flag is reachable.
 */
export function jointProofScript(wires: string[], log: string, maxDepth: number, timeoutS: number): string {
  const { proves, cone } = jointFlags(wires);
  return [
    'read_rtlil prepared.il',
    'setundef -undriven -anyseq',
    `tee -q -o ${log} sat -tempinduct ${proves} -set-init-zero -maxsteps ${maxDepth} -timeout ${timeoutS} ${cone}`,
  ].join('\n');
}

export interface WitnessCall {
  log: string;
  wire: string;
  steps: number;
}

/** A bounded search for an input trace that sets the flag, the first cycles holding the reset asserted. */
export function witnessScript(
  calls: WitnessCall[],
  reset: { name: string; active: 0 | 1; cycles: number } | undefined,
  timeoutS: number,
): string {
  const lines = ['read_rtlil prepared.il', 'setundef -undriven -zero'];
  const resetArgs = reset
    ? Array.from({ length: reset.cycles }, (_, i) => `-set-at ${i + 1} ${arg(reset.name)} ${reset.active}`).join(' ')
    : '';
  for (const c of calls) {
    lines.push(
      `tee -q -o ${c.log} sat -seq ${c.steps} -prove ${arg(c.wire)} 0 -set-init-zero ${resetArgs} -show-inputs -show ${arg(c.wire)} -timeout ${timeoutS} w:${arg(c.wire)} %ci*${reset ? ` w:${arg(reset.name)} %u` : ''}`,
    );
  }
  return lines.join('\n');
}

/** An input held at a value in one cycle of a start state's prefix (cycle 0-based; Yosys counts from 1). */
export interface HeldInput {
  cycle: number;
  name: string;
  width: number;
  /** Hex digits. */
  value: string;
}

/**
 * A bounded search that starts where a simulated prefix left the design: the prefix's inputs are held cycle by
 * cycle, and the flags are looked for only in the `steps` cycles after it (`-prove-skip`); a model sets at least one
 * of them. Every input is in the problem, so a prefix input outside the flags' cone is accepted (and free where the
 * prefix leaves it out). Thousands of `-set-at` arguments: run it as a script file (`-s`), which takes lines of any
 * length (a `-p` argument of about 64 KiB stops the WebAssembly build).
 */
export function deepWitnessScript(
  wires: string[],
  log: string,
  prefix: { cycles: number; held: HeldInput[] },
  steps: number,
  timeoutS: number,
): string {
  const sets = prefix.held.map((h) => `-set-at ${h.cycle + 1} ${arg(h.name)} ${h.width}'h${arg(h.value)}`).join(' ');
  const { proves, cone } = jointFlags(wires);
  const shows = wires.map((w) => `-show ${arg(w)}`).join(' ');
  return [
    'read_rtlil prepared.il',
    'setundef -undriven -zero',
    `tee -q -o ${log} sat -seq ${prefix.cycles + steps} -prove-skip ${prefix.cycles} ${proves} -set-init-zero ${sets} -show-inputs ${shows} -timeout ${timeoutS} ${cone} i:* %u`,
  ].join('\n');
}

export type ProofOutcome =
  | { kind: 'proven'; depth: number; byRegisterValues?: true; byInvariant?: true }
  | { kind: 'reachable'; depth: number }
  | { kind: 'unknown'; reason: string };

/** What one `sat -tempinduct` log says. */
export function parseProof(log: string | undefined, maxDepth: number): ProofOutcome {
  if (log === undefined)
    return { kind: 'unknown', reason: 'Yosys did not get to this point (an earlier one used the time)' };
  const lengths = [...log.matchAll(/Trying induction with length (\d+)/g)].map((m) => Number(m[1]));
  const depth = lengths.length ? lengths[lengths.length - 1] : 0;
  if (/Induction step proven: SUCCESS!/.test(log)) return { kind: 'proven', depth };
  if (/model found for base case: FAIL!/.test(log)) return { kind: 'reachable', depth };
  if (/timeout/i.test(log))
    return { kind: 'unknown', reason: `the SAT solver's time bound ran out at induction length ${depth}` };
  if (/Reached maximum number of time steps/i.test(log) || depth >= maxDepth) {
    return { kind: 'unknown', reason: `neither proven nor reached within ${maxDepth} cycles (induction depth)` };
  }
  return { kind: 'unknown', reason: lastError(log) ?? 'Yosys gave no verdict' };
}

export interface Trace {
  /** Per step (1-based in Yosys, 0-based here): signal → bits, most significant first. */
  steps: Map<string, string>[];
}

/** The `-show-inputs` table of a failed `sat -seq` proof: the model that sets the flag; undefined when none. */
export function parseWitness(log: string | undefined): { trace?: Trace; reason?: string } {
  if (log === undefined) return { reason: 'Yosys did not get to this point (an earlier one used the time)' };
  if (/no model found: SUCCESS!/.test(log)) return { reason: 'no trace found within the cycles searched after reset' };
  if (!/model found: FAIL!/.test(log))
    return {
      reason: /timeout/i.test(log) ? "the SAT solver's time bound ran out" : (lastError(log) ?? 'Yosys gave no trace'),
    };
  const steps: Map<string, string>[] = [];
  for (const m of log.matchAll(/^\s*(\d+)\s+\\(\S+)\s+\S+\s+\S+\s+([01xXzZ-]+)\s*$/gm)) {
    const step = Number(m[1]) - 1;
    while (steps.length <= step) steps.push(new Map());
    steps[step].set(m[2], m[3]);
  }
  return steps.length ? { trace: { steps } } : { reason: 'Yosys printed no trace' };
}

/**
 * The first error message in a log, with the `file:line` it names, if any: slang's diagnostics (`a.sv:4:7: error: …`)
 * before Yosys' own `ERROR:` line, which for slang only says that elaboration failed. Colour codes are dropped.
 */
export function lastError(log: string): string | undefined {
  const text = log.replace(/\x1b\[[0-9;]*m/g, '');
  const slang = /^(\S+:\d+):\d+: error: (.*)$/m.exec(text);
  if (slang) return `${slang[1]}: ${slang[2].trim()}`;
  const m = /^(?:(\S+:\d+): )?ERROR: (.*)$/m.exec(text);
  return m ? `${m[1] ? `${m[1]}: ` : ''}${m[2].trim()}` : undefined;
}
