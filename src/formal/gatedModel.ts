/**
 * The gated-clock model: a design whose extra clocks are clock gates on an input clock (`clockGates`), as one
 * single-clock design. A gate's output rises only at a rising edge of its input clock, with the enable latched
 * before that edge, so the registers behind it update at some of the input clock's edges and sample there what the
 * input clock's registers sample. Each such register is moved onto the input clock with a free enable (one per gate,
 * free at every step): the model then has every choice of the edges the gate lets through, so a flag it proves 0 is 0
 * in simulation. An asynchronous reset, set or load acts whatever the enable (Yosys' enabled flip-flops keep them
 * apart from `EN`). A register type not listed here stays on its gated clock, and a cone that holds one is not in the
 * model's single clock domain (`flagDomains`), so it is never decided there. Proofs only: the free enable is not an
 * input the harness drives.
 */
import { isPlainNet, netAliases, type ClockGate } from './clocks';

/** Flip-flop types moved onto the input clock, and the type that adds an enable to each. */
const WITH_ENABLE: Record<string, string> = {
  $dff: '$dffe',
  $adff: '$adffe',
  $aldff: '$aldffe',
  $dffsr: '$dffsre',
  // A synchronous reset acts only at an edge the gate lets through: the enable gates it too.
  $sdff: '$sdffce',
  $dffe: '$dffe',
  $adffe: '$adffe',
  $aldffe: '$aldffe',
  $dffsre: '$dffsre',
  $sdffce: '$sdffce',
  // A reset over the enable, gated: an update when the gate lets the edge through and the reset or enable is on.
  $sdffe: '$sdffce',
};

/** The free enable of gate `i`, a wire nothing drives (`setundef -anyseq` makes it free at every step). */
export const gateEnableWire = (i: number) => `\\chorus_gate_en_${i}`;

interface Cell {
  type: string;
  name: string;
  /** Line indexes of the cell's `cell`, parameters, connections and `end`. */
  start: number;
  end: number;
  params: Map<string, string>;
  ports: Map<string, string>;
}

/** The top module's lines [from, to) of an RTLIL file: the module marked `top`, or the only one. */
function topModule(lines: string[]): { from: number; to: number } | undefined {
  const modules: { from: number; to: number; top: boolean }[] = [];
  let attrTop = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('attribute \\top ')) attrTop = true;
    else if (l.startsWith('module ')) {
      modules.push({ from: i, to: lines.length, top: attrTop });
      attrTop = false;
    } else if (l === 'end' && modules.length) modules[modules.length - 1].to = i;
    else if (!l.startsWith('attribute ')) attrTop = false;
  }
  const tops = modules.filter((m) => m.top);
  if (tops.length === 1) return tops[0];
  return modules.length === 1 ? modules[0] : undefined;
}

export interface GatedNetlist {
  /** The flattened design (before `async2sync`) with the gated registers on their input clocks. */
  netlist: string;
  /** Registers moved, per gate. */
  moved: number[];
}

/**
 * The flattened netlist (`flat.il`, before `async2sync`) with every register behind a gate moved onto the gate's
 * input clock with the gate's free enable; undefined when no register is behind a gate.
 */
export function gatedNetlist(flat: string, gates: readonly ClockGate[]): GatedNetlist | undefined {
  const lines = flat.split('\n');
  const top = topModule(lines);
  if (!top || !gates.length) return undefined;
  // Whole-wire aliases of the top module (`connect \a \b`): a register's clock port may name the gate's output
  // through any of them.
  const { find, join } = netAliases();
  const plain = isPlainNet;
  const cells: Cell[] = [];
  let cell: Cell | undefined;
  for (let i = top.from + 1; i < top.to; i++) {
    const t = lines[i].trim().split(/\s+/);
    if (t[0] === 'cell') {
      cell = { type: t[1], name: t[2], start: i, end: i, params: new Map(), ports: new Map() };
      cells.push(cell);
    } else if (cell && t[0] === 'end') {
      cell.end = i;
      cell = undefined;
    } else if (cell && t[0] === 'parameter') cell.params.set(t[1], t.slice(2).join(' '));
    else if (cell && t[0] === 'connect') cell.ports.set(t[1], t.slice(2).join(' '));
    else if (!cell && t[0] === 'connect' && t.length === 3 && plain(t[1]) && plain(t[2])) join(t[1], t[2]);
  }
  const gateOf = new Map<string, number>();
  gates.forEach((g, i) => {
    for (const o of g.outputs) gateOf.set(find(o), i);
  });
  const moved = gates.map(() => 0);
  /** Replacement lines per cell start, and lines to add. */
  const rewritten = new Map<number, { end: number; text: string[] }>();
  const wires: string[] = gates.map((_, i) => `  wire ${gateEnableWire(i)}`);
  const added: string[] = [];
  let fresh = 0;
  const one = (v: string | undefined) => v !== undefined && /^(?:1'1|1|32'0*1)$/.test(v.trim());
  /** A 1-bit net that is `sig` at the given polarity (a `$not` added for an active-low one). */
  const activeHigh = (sig: string, polarity: string | undefined): string => {
    if (one(polarity)) return sig;
    const y = `$chorus_gate_not_${fresh++}`;
    wires.push(`  wire ${y}`);
    added.push(
      `  cell $not ${y}_cell`,
      '    parameter \\A_SIGNED 0',
      '    parameter \\A_WIDTH 1',
      '    parameter \\Y_WIDTH 1',
      `    connect \\A ${sig}`,
      `    connect \\Y ${y}`,
      '  end',
    );
    return y;
  };
  const binary = (type: '$and' | '$or', a: string, b: string): string => {
    const y = `$chorus_gate_${type.slice(1)}_${fresh++}`;
    wires.push(`  wire ${y}`);
    added.push(
      `  cell ${type} ${y}_cell`,
      '    parameter \\A_SIGNED 0',
      '    parameter \\A_WIDTH 1',
      '    parameter \\B_SIGNED 0',
      '    parameter \\B_WIDTH 1',
      '    parameter \\Y_WIDTH 1',
      `    connect \\A ${a}`,
      `    connect \\B ${b}`,
      `    connect \\Y ${y}`,
      '  end',
    );
    return y;
  };
  for (const c of cells) {
    const clk = c.ports.get('\\CLK');
    const newType = WITH_ENABLE[c.type];
    if (!clk || !newType || !plain(clk)) continue;
    const g = gateOf.get(find(clk));
    if (g === undefined) continue;
    const free = gateEnableWire(g);
    const en = c.ports.get('\\EN');
    let enable = free;
    if (c.type === '$sdffe') {
      const srst = c.ports.get('\\SRST');
      if (!en || !srst) continue;
      enable = binary(
        '$and',
        free,
        binary('$or', activeHigh(en, c.params.get('\\EN_POLARITY')), activeHigh(srst, c.params.get('\\SRST_POLARITY'))),
      );
    } else if (en !== undefined) enable = binary('$and', free, activeHigh(en, c.params.get('\\EN_POLARITY')));
    const params = new Map(c.params);
    params.set('\\EN_POLARITY', "1'1");
    const ports = new Map(c.ports);
    ports.set('\\CLK', gates[g].clock);
    ports.set('\\EN', enable);
    rewritten.set(c.start, {
      end: c.end,
      text: [
        `  cell ${newType} ${c.name}`,
        ...[...params].map(([k, v]) => `    parameter ${k} ${v}`),
        ...[...ports].map(([k, v]) => `    connect ${k} ${v}`),
        '  end',
      ],
    });
    moved[g]++;
  }
  if (!rewritten.size) return undefined;
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const r = rewritten.get(i);
    if (r) {
      out.push(...r.text);
      i = r.end;
      continue;
    }
    if (i === top.to) out.push(...added);
    out.push(lines[i]);
    if (i === top.from) out.push(...wires);
  }
  return { netlist: out.join('\n'), moved };
}

/** The gated netlist prepared as `prepared.il` is: asynchronous controls made synchronous, unused cells removed. */
export const GATED_PREP_SCRIPT = ['read_rtlil gated_flat.il', 'async2sync', 'opt_clean', 'write_rtlil gated.il'].join(
  '\n',
);
