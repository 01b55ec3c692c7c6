/**
 * Designs with several clocks (or both edges of one): which flags the single-clock model describes (their cone is one
 * clock domain), and whether the multi-clock model (clk2fflogic) can be trusted for the others (no clock changes at
 * another clock's edge because a register updated there: a clock gate on an input clock is recognised).
 */
import type { FileTexts } from './worker';
import { sigTokens } from './rtlilBits';
import { LOCAL_LAYERS } from './yosys';

/** A cell or wire as `select -list` names it (`top/name`), its module left out. */
const listed = (text: string | undefined) =>
  (text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes('/'))
    .map((l) => l.slice(l.indexOf('/') + 1));

/** One cell of an RTLIL module: its type, parameters and port connections (as written). */
interface IlCell {
  type: string;
  name: string;
  params: Map<string, string>;
  ports: Map<string, string>;
}

/** A whole net name (`\\a`, `$b`), not a bit, a part or a concatenation. */
export const isPlainNet = (sig: string) => /^[\\$]\S+$/.test(sig);

/** Whole-wire aliases (`connect \\a \\b` in a module): `join` records one, `find` names each net by one of them. */
export function netAliases() {
  const parent = new Map<string, string>();
  const find = (n: string): string => {
    let r = n;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  const join = (x: string, y: string) => {
    const [a, b] = [find(x), find(y)];
    if (a !== b) parent.set(a, b);
  };
  return { find, join };
}

/** The cells, wires (inputs marked) and whole-wire connections of an RTLIL file's modules (one module expected). */
function parseIl(text: string) {
  const cells: IlCell[] = [];
  const inputs = new Set<string>();
  const { find, join } = netAliases();
  const plain = isPlainNet;
  /** Names a partial connection (a bit, a concatenation) mentions: they may be read or driven unseen. */
  const partial = new Set<string>();
  let cell: IlCell | undefined;
  for (const raw of text.split('\n')) {
    const t = raw.trim().split(/\s+/);
    if (t[0] === 'cell') {
      cell = { type: t[1], name: t[2], params: new Map(), ports: new Map() };
      cells.push(cell);
    } else if (t[0] === 'end') cell = undefined;
    else if (cell && t[0] === 'parameter') cell.params.set(t[1], t.slice(2).join(' '));
    else if (cell && t[0] === 'connect') cell.ports.set(t[1], t.slice(2).join(' '));
    else if (!cell && t[0] === 'wire' && t.includes('input')) inputs.add(t[t.length - 1]);
    else if (!cell && t[0] === 'connect' && t.length === 3 && plain(t[1]) && plain(t[2])) join(t[1], t[2]);
    else if (!cell && t[0] === 'connect') for (const n of t.slice(1)) if (/^[\\$]/.test(n)) partial.add(n);
  }
  /** The nets a connection mentions, whole or in part. */
  const nets = (sig: string) =>
    sig
      .split(/[\s{}]+/)
      .filter((n) => /^[\\$]/.test(n))
      .map(find);
  return { cells, inputs, find, plain, nets, partial: () => [...partial].map(find) };
}

/** A parameter's value as a number (`0`, `1'0`, `32'00…01`); NaN when it is not one. */
function paramBits(v: string | undefined): number {
  if (v === undefined) return NaN;
  const m = /^(?:\d+')?([01]+)$/.exec(v.trim());
  return m ? parseInt(m[1], 2) : NaN;
}

/** A clock gate: `output = clock & en_q`, `en_q` a latch open while the input clock `clock` is low. */
export interface ClockGate {
  /** The latch's cell name. */
  latch: string;
  /** The input clock (a net name as the netlist writes it). */
  clock: string;
  /** The gated clocks: the outputs of the ANDs that read the latch (net names as written). */
  outputs: string[];
}

/**
 * The latches on a clock's path (`clocklatches.txt`) that are clock gates on an input clock, and the others. A gate:
 * `clk_o = clk_i & en_q` with `en_q` a latch open while `clk_i` is low, `clk_i` an input. `en_q` is then constant
 * while `clk_i` is high, `clk_o` is 0 while `clk_i` is low, so `clk_o` rises only when `clk_i` does, with `en_q` set
 * before that edge.
 */
export function clockGates(files: FileTexts): { gates: ClockGate[]; others: string[] } | { unlisted: true } {
  const latches = listed(files['clocklatches.txt']);
  if (!latches.length) return { gates: [], others: [] };
  const il = files['clockgates.il'];
  if (il === undefined) return { unlisted: true };
  const { cells, inputs, find, plain, nets, partial } = parseIl(il);
  const outputs = new Set(['Y', 'Q']);
  const drivers = (net: string) =>
    cells.filter((c) => [...c.ports].some(([p, v]) => outputs.has(p.slice(1)) && nets(v).includes(net)));
  const inputNamed = (net: string) => [...inputs].find((w) => find(w) === net);
  const gate = (latchName: string): ClockGate | undefined => {
    const l = cells.find((c) => c.name === latchName || c.name === `\\${latchName}`);
    if (!l || l.type !== '$dlatch' || paramBits(l.params.get('\\WIDTH')) !== 1) return undefined;
    const en = l.ports.get('\\EN');
    const q = l.ports.get('\\Q');
    if (!en || !q || !plain(en) || !plain(q)) return undefined;
    const pol = paramBits(l.params.get('\\EN_POLARITY'));
    // The net the latch is open on the low level of.
    let clock: string | undefined;
    if (pol === 0) clock = find(en);
    else if (pol === 1) {
      const [d] = drivers(find(en));
      const a = d?.ports.get('\\A');
      const b = d?.ports.get('\\B');
      const zero = (v: string | undefined) => v !== undefined && /^\d+'0+$/.test(v);
      if (d && paramBits(d.params.get('\\A_WIDTH')) !== 1) return undefined;
      if (d && ['$not', '$logic_not'].includes(d.type) && a && plain(a)) clock = find(a);
      else if (d && ['$eq', '$eqx'].includes(d.type) && a && plain(a) && zero(b)) clock = find(a);
      else if (d && ['$eq', '$eqx'].includes(d.type) && b && plain(b) && zero(a)) clock = find(b);
    }
    const clockInput = clock !== undefined && drivers(clock).length === 0 ? inputNamed(clock) : undefined;
    if (!clock || !clockInput) return undefined;
    // Every cell between the latch and a clock that reads it ANDs it with that input.
    const qNet = find(q);
    if (partial().includes(qNet) || partial().includes(clock)) return undefined;
    const readers = cells.filter((c) =>
      [...c.ports].some(([p, v]) => !outputs.has(p.slice(1)) && nets(v).includes(qNet)),
    );
    const ands = readers.every((c) => {
      if (!['$and', '$logic_and'].includes(c.type)) return false;
      const a = c.ports.get('\\A');
      const b = c.ports.get('\\B');
      const y = c.ports.get('\\Y');
      if (!a || !b || !y || !plain(a) || !plain(b) || !plain(y)) return false;
      const ins = [find(a), find(b)];
      const oneBit = ['\\A_WIDTH', '\\B_WIDTH', '\\Y_WIDTH'].every((k) => paramBits(c.params.get(k)) === 1);
      return oneBit && ins.includes(qNet) && ins.includes(clock);
    });
    if (!ands || !readers.length) return undefined;
    return { latch: l.name, clock: clockInput, outputs: readers.map((c) => c.ports.get('\\Y')!) };
  };
  const gates: ClockGate[] = [];
  const others: string[] = [];
  for (const name of latches) {
    const g = gate(name);
    if (g) gates.push(g);
    else others.push(name);
  }
  return { gates, others };
}

/**
 * Why the multi-clock model (clk2fflogic) may miss what the simulator does; undefined when it cannot. The model
 * samples a register's data in the step before its clock's edge. A clock that changes at an edge of another clock,
 * because a register updated there (a divided clock, a clock mux a register selects), has its edge after that
 * update in simulation, and its registers read the updated values; the model gives them the values from before. So
 * no register may reach a clock through logic, nor a latch, but for a clock gate on an input clock (`clockGates`),
 * whose output changes only when its input clock does (an input), as in the model.
 */
export function clockModelProblem(files: FileTexts): string | undefined {
  const sources = listed(files['clocksources.txt']);
  const names = (l: string[]) => `${l.slice(0, 3).join(', ')}${l.length > 3 ? ', …' : ''}`;
  if (sources.length)
    return `a register drives a clock through logic (${names(sources)}): its clock's edges follow that register's update, which the multi-clock model orders the other way, so no proof is claimed on a flag that crosses clock domains`;
  const found = clockGates(files);
  if ('unlisted' in found)
    return 'the clock gates were not listed: no proof is claimed on a flag that crosses clock domains';
  return found.others.length
    ? `a latch drives a clock and is not a clock gate on an input clock (${names(found.others)}): no proof is claimed on a flag that crosses clock domains`
    : undefined;
}

/** A flag's cone of influence through data (not through clock ports), as `flagDomains` finds it. */
export interface Domain {
  /** The clock ports' connections of its registers (one entry per distinct net). */
  clocks: string[];
  /** Latches, global-clock and SR cells, memories, gate-level cells and anything else with state. */
  other: number;
  negedge: number;
  posedge: number;
  /** Cells in the cone (a measure of the SAT problem it makes). */
  cells: number;
  /**
   * The size of the cone cut `LOCAL_LAYERS` registers back (`cutCone` in yosys.ts), in bits of logic, a multiplier
   * or divider as the product of its operands' widths: about what a SAT problem of it holds (0 unless asked for).
   */
  localBits: number;
}

/** Ports a cell drives; every other port is one it reads. */
const OUTPUT_PORTS = new Set(['\\Y', '\\Q', '\\X', '\\CO', '\\RD_DATA']);
/** Ports that carry a clock: not followed (a flag in one domain depends on its clock's edges, not on what makes them). */
const CLOCK_PORTS = new Set(['\\CLK', '\\RD_CLK', '\\WR_CLK']);
/** Cells whose SAT encoding grows with the product of their operands' widths. */
const ARITHMETIC = new Set(['$mul', '$div', '$mod', '$divfloor', '$modfloor', '$pow']);
const FLIP_FLOPS = new Set([
  '$dff',
  '$dffe',
  '$sdff',
  '$sdffe',
  '$sdffce',
  '$adff',
  '$adffe',
  '$aldff',
  '$aldffe',
  '$dffsr',
  '$dffsre',
]);
/** Cells the single-clock model does not describe as a register on an edge of one clock. */
const isOtherState = (type: string) =>
  type === '$ff' ||
  type === '$sr' ||
  type === '$initstate' ||
  type.includes('latch') ||
  type.startsWith('$mem') ||
  type.startsWith('$_') ||
  // A user module left unflattened (a blackbox): its behaviour is not known.
  !type.startsWith('$');

/**
 * For each flag wire, what its cone holds, read from the prepared (async2sync) netlist: the registers reached
 * backwards through data ports and the logic between them (whole wires: a wire one bit of which a cell reads counts
 * whole, which can only add to the cone). Clock ports are not followed: registers on one clock behave as one
 * single-clock design whatever makes that clock's edges. A flag missing from the netlist is left out.
 */
export function flagDomains(il: string, wires: string[], withLocalBits = false): Map<string, Domain> {
  interface Cell {
    type: string;
    polarity: number;
    clock?: string;
    reads: string[];
    /** Bits of logic it stands for (`localBits`). */
    bits: number;
  }
  const cells: Cell[] = [];
  /** wire → the cells and connections that drive it (a connection as the wires it reads). */
  const drivers = new Map<string, (Cell | string[])[]>();
  const names = (sig: string) => sig.split(/[\s{}]+/).filter((n) => /^[\\$]/.test(n));
  const drive = (wire: string, by: Cell | string[]) => {
    const list = drivers.get(wire);
    if (list) list.push(by);
    else drivers.set(wire, [by]);
  };
  let cell: (Cell & { outs: string[] }) | undefined;
  let widths: { A_WIDTH?: number; B_WIDTH?: number; Y_WIDTH?: number; WIDTH?: number } = {};
  for (const raw of il.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('cell ')) {
      cell = { type: line.split(/\s+/)[1], polarity: NaN, reads: [], outs: [], bits: 1 };
    } else if (cell && line === 'end') {
      const { A_WIDTH: a = 1, B_WIDTH: b = 1, Y_WIDTH: y = 1, WIDTH: w = 1 } = widths;
      cell.bits = ARITHMETIC.has(cell.type) ? a * b : Math.max(a, b, y, w);
      widths = {};
      const { outs, ...c } = cell;
      cells.push(c);
      for (const w of outs) drive(w, c);
      cell = undefined;
    } else if (cell && line.startsWith('parameter \\CLK_POLARITY ')) cell.polarity = paramBits(line.split(/\s+/)[2]);
    else if (cell && /^parameter \\(A_WIDTH|B_WIDTH|Y_WIDTH|WIDTH) \d+$/.test(line)) {
      const [, name, value] = line.split(/\s+/);
      widths[name.slice(1) as keyof typeof widths] = Number(value);
    } else if (cell && line.startsWith('connect ')) {
      const [, port, ...sig] = line.split(/\s+/);
      const text = sig.join(' ');
      if (OUTPUT_PORTS.has(port)) cell.outs.push(...names(text));
      else if (CLOCK_PORTS.has(port)) cell.clock = text;
      else cell.reads.push(...names(text));
    } else if (!cell && line.startsWith('connect ')) {
      // `connect <lhs> <rhs>`: both sides are sigspecs; a side is one token unless it is a concatenation.
      const rest = line.slice('connect '.length);
      const split = sigTokens(rest);
      if (split.length !== 2) continue;
      const reads = names(split[1]);
      for (const w of names(split[0])) drive(w, reads);
    }
  }
  /** The bits of the cone `cutCone` selects: logic up to registers, `LOCAL_LAYERS` registers deep. */
  const localBits = (start: string): number => {
    const seenWires = new Set<string>([start]);
    const seenCells = new Set<Cell>();
    let bits = 0;
    let frontier = [start];
    for (let layer = 1; frontier.length; layer++) {
      const next: string[] = [];
      const stack = [...frontier];
      while (stack.length) {
        const w = stack.pop()!;
        for (const by of drivers.get(w) ?? []) {
          const reads = Array.isArray(by) ? by : seenCells.has(by) ? [] : by.reads;
          if (!Array.isArray(by)) {
            if (seenCells.has(by)) continue;
            seenCells.add(by);
            bits += by.bits;
          }
          const state = !Array.isArray(by) && (FLIP_FLOPS.has(by.type) || isOtherState(by.type));
          if (state && layer >= LOCAL_LAYERS) continue;
          for (const r of reads)
            if (!seenWires.has(r)) {
              seenWires.add(r);
              (state ? next : stack).push(r);
            }
        }
      }
      frontier = next;
    }
    return bits;
  };
  const out = new Map<string, Domain>();
  for (const flag of wires) {
    const start = `\\${flag}`;
    if (!drivers.has(start)) continue;
    const seenWires = new Set<string>([start]);
    const seenCells = new Set<Cell>();
    const stack = [start];
    const clocks = new Set<string>();
    const d: Domain = { clocks: [], other: 0, negedge: 0, posedge: 0, cells: 0, localBits: 0 };
    const push = (reads: string[]) => {
      for (const r of reads)
        if (!seenWires.has(r)) {
          seenWires.add(r);
          stack.push(r);
        }
    };
    while (stack.length) {
      const w = stack.pop()!;
      for (const by of drivers.get(w) ?? []) {
        if (Array.isArray(by)) {
          push(by);
          continue;
        }
        if (seenCells.has(by)) continue;
        seenCells.add(by);
        if (FLIP_FLOPS.has(by.type)) {
          clocks.add(by.clock ?? '');
          if (by.polarity === 0) d.negedge++;
          else if (by.polarity === 1) d.posedge++;
          else d.other++;
        } else if (isOtherState(by.type)) d.other++;
        push(by.reads);
      }
    }
    d.clocks = [...clocks];
    d.cells = seenCells.size;
    if (withLocalBits) d.localBits = localBits(start);
    out.set(flag, d);
  }
  return out;
}

/**
 * Whether a flag's cone is one clock domain, which the single-clock model describes: registers on one clock net and
 * one edge, no latch, memory or other state.
 */
export const isSingleDomain = (d: Domain | undefined): boolean =>
  d !== undefined && d.clocks.length <= 1 && d.other === 0 && !(d.negedge > 0 && d.posedge > 0);
