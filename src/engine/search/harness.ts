/**
 * The vector harness: a testbench built once per DUT that reads one line of input values per cycle from the file
 * named by `+stim=`, so every candidate stimulus is only a run of the same binary.
 */
import type { EchoInput } from '../../hdl';
import { ChorusError, type ModuleInfo, type PortInfo, type UnpackedDimension } from '../../protocol';

export interface DrivenInput {
  /** The signal a column drives: a port name, or one element of an unpacked array port (`operand_q[1]`). */
  name: string;
  width: number;
  /** The reset input, with the value that asserts it. */
  reset?: { active: 0n | 1n } | undefined;
  /**
   * For an element of an unpacked array port: the port, this element's indices, the port's dimensions, and the
   * testbench variable that holds it (`operand_q_1`; a continuous assignment carries it into the array).
   */
  element?: { port: string; index: number[]; dimensions: UnpackedDimension[]; variable: string } | undefined;
  /**
   * An input that reads back a line the design drives (an open-drain bus: `sda_i` with `sda_o`, `sda_t`): the
   * column is what the other devices on the bus drive (1: released), held in `variable`; the input is the wired
   * AND of it and the design's own drive, as on the board.
   */
  echo?: (EchoInput & { variable: string }) | undefined;
}

/** A clock besides the primary one: toggled on its own, with its own fixed half period and phase. */
export interface ExtraClock {
  name: string;
  /** Time units between toggles. */
  halfPeriod: number;
  /** Time of the first rising edge. */
  offset: number;
}

export interface HarnessPlan {
  top: string;
  instance: string;
  /** The primary clock: one stimulus row is one of its cycles. */
  clock: string | null;
  /** Further clocks (other clock domains), never driven as data; absent or empty when there is one clock. */
  extraClocks?: ExtraClock[] | undefined;
  inputs: DrivenInput[];
  /**
   * Other clock domains' resets: no column of their own, each is asserted exactly while the primary reset is, so
   * every domain starts from reset with its own clock running and no domain sits in reset at random.
   */
  domainResets?: { name: string; active: 0n | 1n }[] | undefined;
  outputs: PortInfo[];
  inouts: PortInfo[];
  /** Top parameter overrides (`-G`), Verilog constant text: the DUT is instantiated with them. */
  parameters: Record<string, string>;
}

/** More elements than this in one array port is a memory, not an operand: it is refused rather than widened. */
const MAX_ARRAY_ELEMENTS = 4096;

/** Each element's indices of unpacked dimensions, in declaration order (left bound to right bound). */
function elementIndices(dims: UnpackedDimension[]): number[][] {
  let out: number[][] = [[]];
  for (const d of dims) {
    const step = d.left <= d.right ? 1 : -1;
    const next: number[][] = [];
    for (const prefix of out)
      for (let i = d.left; step > 0 ? i <= d.right : i >= d.right; i += step) next.push([...prefix, i]);
    out = next;
  }
  return out;
}

function elementCount(dims: UnpackedDimension[]): number {
  return dims.reduce((n, d) => n * (Math.abs(d.left - d.right) + 1), 1);
}

/**
 * The further clocks' timing: the k-th extra clock toggles every 1 + k/2 time units (3/2 of the primary's half
 * period for the first), from a quarter unit in, so its edges never fall on the primary clock's edges or on the
 * row changes (whole units). The harness and the emitted testbench share it, so both have the same timing.
 */
export function extraClockTiming(k: number): { halfPeriod: number; offset: number } {
  return { halfPeriod: HALF_PERIOD + (k + 1) / 2, offset: 0.25 };
}

function badPort(top: ModuleInfo, p: PortInfo, why: string): ChorusError {
  return new ChorusError('bad_input', `Port '${p.name}' of ${top.name} ${why}.`, {
    file: top.file,
    line: p.range.startLine,
  });
}

function checkArrayPort(top: ModuleInfo, p: PortInfo): UnpackedDimension[] | undefined {
  if (!p.unpacked) return undefined;
  if (!p.dimensions)
    throw badPort(
      top,
      p,
      `has unpacked dimensions ${p.unpacked} whose bounds analysis cannot evaluate: write bounds from parameters or constants, or write a testbench that drives it`,
    );
  if (elementCount(p.dimensions) > MAX_ARRAY_ELEMENTS)
    throw badPort(
      top,
      p,
      `is an array of ${elementCount(p.dimensions)} elements (more than ${MAX_ARRAY_ELEMENTS}): write a testbench that drives it`,
    );
  return p.dimensions;
}

export function planHarness(
  top: ModuleInfo,
  instance: string,
  parameters: Record<string, string> = {},
  echoes: EchoInput[] = [],
): HarnessPlan {
  const clock = top.clock;
  const clocks = clock ? [clock, ...(top.clocks ?? []).filter((c) => c !== clock)] : [];
  const domainResets = top.reset
    ? (top.resets ?? [])
        .filter((r) => r.name !== top.reset!.name && !clocks.includes(r.name))
        .map((r) => ({ name: r.name, active: r.activeLow ? (0n as const) : (1n as const) }))
    : [];
  const inputs: DrivenInput[] = [];
  const portNames = new Set(top.ports.map((p) => p.name));
  for (const p of top.ports) {
    if (p.direction !== 'input' || clocks.includes(p.name) || domainResets.some((r) => r.name === p.name)) continue;
    if (p.width < 1) throw badPort(top, p, 'has no usable width');
    const reset =
      top.reset && top.reset.name === p.name
        ? { active: top.reset.activeLow ? (0n as const) : (1n as const) }
        : undefined;
    const dims = checkArrayPort(top, p);
    if (dims) {
      // One column per element: each is an operand of its own.
      for (const index of elementIndices(dims)) {
        const plain = `${p.name}_${index.join('_')}`;
        const variable = portNames.has(plain) ? `chorus_${plain}` : plain;
        inputs.push({
          name: `${p.name}${index.map((i) => `[${i}]`).join('')}`,
          width: p.width,
          element: { port: p.name, index, dimensions: dims, variable },
        });
      }
    } else {
      const echo = reset ? undefined : echoes.find((e) => e.input === p.name);
      const variable = `chorus_bus_${p.name}`;
      inputs.push({ name: p.name, width: p.width, reset, ...(echo ? { echo: { ...echo, variable } } : {}) });
    }
  }
  for (const p of top.ports) if (p.direction !== 'input') checkArrayPort(top, p);
  return {
    top: top.name,
    instance,
    clock,
    extraClocks: clocks.slice(1).map((name, k) => ({ name, ...extraClockTiming(k) })),
    inputs,
    domainResets,
    outputs: top.ports.filter((p) => p.direction === 'output'),
    inouts: top.ports.filter((p) => p.direction === 'inout' || p.direction === 'ref'),
    parameters: { ...parameters },
  };
}

function decl(width: number): string {
  return width > 1 ? `logic [${width - 1}:0]` : 'logic';
}

function dimsText(dims: UnpackedDimension[] | undefined): string {
  return dims?.length ? ` ${dims.map((d) => `[${d.left}:${d.right}]`).join('')}` : '';
}

/** The inputs' ports, each once: an array port's elements are one port. */
function inputPorts(plan: HarnessPlan): { name: string; width: number; dims?: UnpackedDimension[] }[] {
  const out: { name: string; width: number; dims?: UnpackedDimension[] }[] = [];
  const seen = new Set<string>();
  for (const i of plan.inputs) {
    const name = i.element?.port ?? i.name;
    if (seen.has(name)) continue;
    seen.add(name);
    out.push(i.element ? { name, width: i.width, dims: i.element.dimensions } : { name, width: i.width });
  }
  return out;
}

/** The testbench variable a column drives: the port, or the variable of one array element. */
export function driven(i: DrivenInput): string {
  return i.element?.variable ?? i.echo?.variable ?? i.name;
}

/** The line an echoed input reads: the design's drive (its output where enabled, else released) ANDed with the bus. */
function echoLines(plan: HarnessPlan): string[] {
  return plan.inputs.flatMap((i) => {
    const e = i.echo;
    if (!e) return [];
    const ones = `{${i.width}{1'b1}}`;
    const level = e.activeLowOutput ? `~${e.output}` : e.output;
    const line = e.enable
      ? `(${e.enableActiveLow ? `${e.enable} ? ${ones}` : `!${e.enable} ? ${ones}`} : ${level})`
      : `(${level})`;
    return [`  assign ${i.name} = ${e.variable} & ${line};`];
  });
}

/** The harness-side variable a column is read into. */
export function shadowName(i: DrivenInput): string {
  return `chorus_v_${driven(i)}`;
}

function clockNames(plan: HarnessPlan): string[] {
  return plan.clock ? [plan.clock, ...(plan.extraClocks ?? []).map((c) => c.name)] : [];
}

/** The clock, input and output declarations shared by the harness and the emitted testbench. */
export function portDecls(plan: HarnessPlan): string[] {
  const lines: string[] = [];
  for (const c of clockNames(plan)) lines.push(`  logic ${c} = 1'b0;`);
  for (const r of plan.domainResets ?? []) lines.push(`  logic ${r.name};`);
  for (const i of inputPorts(plan)) {
    const echoed = plan.inputs.find((x) => x.name === i.name && x.echo);
    if (echoed?.echo) {
      lines.push(
        `  wire ${i.width > 1 ? `[${i.width - 1}:0] ` : ''}${i.name};`,
        `  ${decl(i.width)} ${driven(echoed)};`,
      );
      continue;
    }
    if (!i.dims) {
      lines.push(`  ${decl(i.width)} ${i.name};`);
      continue;
    }
    // An array port is a net fed element by element from variables: Verilator 5.006 does not carry a
    // procedural write of an unpacked array variable through the port connection.
    lines.push(`  wire ${i.width > 1 ? `[${i.width - 1}:0] ` : ''}${i.name}${dimsText(i.dims)};`);
    for (const e of plan.inputs.filter((x) => x.element?.port === i.name)) {
      lines.push(`  ${decl(e.width)} ${driven(e)};`);
      lines.push(`  assign ${e.name} = ${driven(e)};`);
    }
  }
  for (const o of [...plan.outputs, ...plan.inouts])
    lines.push(`  wire ${o.width > 1 ? `[${o.width - 1}:0] ` : ''}${o.name}${dimsText(o.dimensions)};`);
  lines.push(...echoLines(plan));
  return lines;
}

/** The further clocks' own processes, shared by the harness and the emitted testbench (same timing in both). */
export function extraClockLines(plan: HarnessPlan): string[] {
  return (plan.extraClocks ?? []).flatMap((c) => [
    `  // Clock domain ${c.name}: half period ${c.halfPeriod}, first edge at ${c.offset}.`,
    `  initial begin #${c.offset}; forever begin ${c.name} = 1'b1; #${c.halfPeriod} ${c.name} = 1'b0; #${c.halfPeriod}; end end`,
  ]);
}

function bit(v: bigint): string {
  return `1'b${v}`;
}

/** After a row is applied: each domain reset follows the primary reset (asserted exactly while it is). */
export function followResetLines(plan: HarnessPlan, indent: string): string[] {
  const primary = plan.inputs.find((i) => i.reset);
  if (!primary?.reset) return [];
  const on = bit(primary.reset.active);
  return (plan.domainResets ?? []).map(
    (r) => `${indent}${r.name} = ${primary.name} == ${on} ? ${bit(r.active)} : ${bit(r.active ^ 1n)};`,
  );
}

/** `#(.A(1), .B(2)) ` for the overrides, or nothing. */
export function parameterAssignment(parameters: Record<string, string>): string {
  const list = Object.entries(parameters);
  return list.length ? `#(${list.map(([name, value]) => `.${name}(${value})`).join(', ')}) ` : '';
}

/** The DUT instance with every port connected by name, and the top parameter overrides. */
export function instanceLines(plan: HarnessPlan): string[] {
  const names = [
    ...clockNames(plan),
    ...(plan.domainResets ?? []).map((r) => r.name),
    ...inputPorts(plan).map((i) => i.name),
    ...plan.outputs.map((o) => o.name),
    ...plan.inouts.map((o) => o.name),
  ].filter((n): n is string => Boolean(n));
  const conns = names.map((n, i) => `    .${n}(${n})${i < names.length - 1 ? ',' : ''}`);
  return [`  ${plan.top} ${parameterAssignment(plan.parameters)}${plan.instance} (`, ...conns, '  );'];
}

/**
 * Half a clock period. Two time units a cycle keep a deep candidate (millions of cycles) inside the default
 * simulated-time bound when the emitted testbench is re-simulated on its own.
 */
export const HALF_PERIOD = 1;
/** The harness's time unit in its time precision (`timescale 1ns/1ps): the simulator reports time in the latter. */
export const TICKS_PER_UNIT = 1000;

/** The harness's top module name unless the caller names it (the search names it as the emitted testbench). */
export const HARNESS_TOP = 'chorus_vector_harness';

/**
 * The harness reads rows `<cycles> <value> …` in hex: each row's values are held for that many cycles, exactly as
 * the emitted testbench walks its table, so a million-cycle hold is one line.
 */
export function harnessSource(plan: HarnessPlan, moduleName = HARNESS_TOP): string {
  const n = plan.inputs.length;
  const fmt = ['%h', ...Array.from({ length: Math.max(1, n) }, () => '%h')].join(' ');
  // $fscanf into shadow variables, then assign: a signal written by a system task does not wake the
  // combinational logic that reads it in Verilator, which made the harness see glitches the testbench never has.
  const targets = n ? plan.inputs.map(shadowName) : ['chorus_dummy'];
  const body = [
    `      chorus_got = $fscanf(chorus_fd, "${fmt}\\n", chorus_cycles, ${targets.join(', ')});`,
    `      if (chorus_got != ${targets.length + 1}) break;`,
    ...plan.inputs.map((i) => `      ${driven(i)} = ${shadowName(i)};`),
    ...followResetLines(plan, '      '),
  ];
  const cycle = plan.clock
    ? [`        #${HALF_PERIOD} ${plan.clock} = 1'b1;`, `        #${HALF_PERIOD} ${plan.clock} = 1'b0;`]
    : [`        #${HALF_PERIOD * 2};`];
  return [
    '// Generated by CHORUS: vector harness (reads rows of a cycle count and input values from +stim=<file>, or - for standard input).',
    `\`timescale 1ns/${1000 / TICKS_PER_UNIT}ps`,
    `module ${moduleName};`,
    // Only the DUT's coverage is read: the harness's own signals and loop would only add code to compile.
    '  /*verilator coverage_off*/',
    ...portDecls(plan),
    ...plan.inputs.map((i) => `  ${decl(i.width)} ${shadowName(i)};`),
    "  // Internal names carry a chorus_ prefix so they never clash with the DUT's port names.",
    '  integer chorus_fd, chorus_got;',
    '  logic [31:0] chorus_dummy, chorus_cycles;',
    '  string chorus_path;',
    ...instanceLines(plan),
    ...extraClockLines(plan),
    '  initial begin',
    '    if (!$value$plusargs("stim=%s", chorus_path)) $fatal(1, "chorus harness: no +stim=<file> given");',
    // "-": the rows come on standard input as they are written (IEEE 1800's STDIN descriptor).
    '    if (chorus_path == "-") chorus_fd = 32\'h8000_0000;',
    '    else chorus_fd = $fopen(chorus_path, "r");',
    '    if (chorus_fd == 0) $fatal(1, "chorus harness: cannot open the stimulus file");',
    '    while (!$feof(chorus_fd)) begin',
    ...body,
    '      repeat (chorus_cycles) begin',
    ...cycle,
    '      end',
    '    end',
    '    $fclose(chorus_fd);',
    '    $finish;',
    '  end',
    'endmodule',
    '',
  ].join('\n');
}
