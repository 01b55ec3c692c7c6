/**
 * Writes the kept stimulus as one self-contained, readable SystemVerilog testbench: a table of input rows (each held
 * for a number of cycles) walked by a loop that applies inputs and clocks exactly as the vector harness does, so a
 * re-simulation reaches the same points. A table compiles in about the same time whatever its length; thousands
 * of timed statements would not.
 */
import { GENERATED_MARKER } from '../fs';
import {
  driven,
  extraClockLines,
  followResetLines,
  HALF_PERIOD,
  instanceLines,
  portDecls,
  type HarnessPlan,
} from './harness';
import { mergeRows, totalCycles, type Candidate, type Cycle } from './stimulus';

function literal(v: bigint, width: number): string {
  return width === 1 ? `1'b${v}` : `${width}'h${v.toString(16)}`;
}

export interface KeptSequence {
  candidate: Candidate;
  /** Points this sequence added when it was found. */
  newPoints: number;
}

export interface TableRow {
  cycles: number;
  values: Cycle;
  comment?: string | undefined;
}

/** The testbench's table: every sequence's rows in order. The search re-runs exactly these rows through the harness. */
export function testbenchRows(kept: KeptSequence[]): TableRow[] {
  const out: TableRow[] = [];
  kept.forEach((k, idx) => {
    const c = k.candidate;
    const n = totalCycles(c.rows);
    mergeRows(c.rows).forEach((r, i) =>
      out.push({
        cycles: r.count,
        values: r.values,
        comment:
          i === 0 ? `sequence ${idx + 1}: ${n} cycle(s), ${c.origin}, reached ${k.newPoints} new point(s)` : undefined,
      }),
    );
  });
  return out;
}

/** The harness's stimulus text for a table: one line per row, cycle count then values, hex. */
export function tableStimulus(table: TableRow[]): string {
  let out = '';
  for (const r of table)
    out += `${r.cycles.toString(16)} ${r.values.length ? r.values.map((v) => v.toString(16)).join(' ') : '0'}\n`;
  return out;
}

export function emitTestbench(plan: HarnessPlan, kept: KeptSequence[], meta: { seed: number; tbName: string }): string {
  const inputs = plan.inputs;
  const table = testbenchRows(kept);
  const totalCycles = table.reduce((a, r) => a + r.cycles, 0);
  const lines: string[] = [
    `${GENERATED_MARKER} (model-free engine, seed ${meta.seed}): stimulus only, no checks.`,
    `// ${kept.length} stimulus sequence(s), ${totalCycles} cycle(s), kept by coverage-guided search;`,
    '// each sequence starts from reset when the DUT has one.',
    '`timescale 1ns/1ps',
    `module ${meta.tbName};`,
  ];
  lines.push(...portDecls(plan), '', ...instanceLines(plan), '');
  const clocks = extraClockLines(plan);
  if (clocks.length) lines.push(...clocks, '');

  const fields = [{ name: 'cycles', width: 32 }, ...inputs.map((i) => ({ name: driven(i), width: i.width }))];
  const rowWidth = fields.reduce((a, f) => a + f.width, 0);
  lines.push(
    `  // One row: hold the inputs for the given number of ${plan.clock ? 'clock cycles' : 'steps'}, then move on.`,
    `  // Row layout: {${fields.map((f) => `${f.name}${f.width > 1 ? `[${f.width - 1}:0]` : ''}`).join(', ')}}`,
    `  localparam int CHORUS_ROWS = ${table.length};`,
    `  localparam logic [${rowWidth - 1}:0] CHORUS_STIMULUS [CHORUS_ROWS] = '{`,
  );
  table.forEach((r, idx) => {
    if (r.comment) lines.push(`    // ${r.comment}`);
    const cells = [`32'd${r.cycles}`, ...r.values.map((v, j) => literal(v, inputs[j].width))];
    lines.push(`    {${cells.join(', ')}}${idx < table.length - 1 ? ',' : ''}`);
  });
  lines.push('  };', '');
  lines.push(
    '  initial begin',
    '    for (int chorus_row = 0; chorus_row < CHORUS_ROWS; chorus_row++) begin',
    '      logic [31:0] chorus_cycles;',
  );
  lines.push(
    inputs.length
      ? `      {chorus_cycles, ${inputs.map(driven).join(', ')}} = CHORUS_STIMULUS[chorus_row];`
      : '      chorus_cycles = CHORUS_STIMULUS[chorus_row];',
    ...followResetLines(plan, '      '),
  );
  lines.push('      repeat (chorus_cycles) begin');
  if (plan.clock)
    lines.push(`        #${HALF_PERIOD} ${plan.clock} = 1'b1;`, `        #${HALF_PERIOD} ${plan.clock} = 1'b0;`);
  else lines.push(`        #${HALF_PERIOD * 2};`);
  lines.push('      end', '    end', '    $finish;', '  end', 'endmodule', '');
  return lines.join('\n');
}
