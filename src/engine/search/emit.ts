/**
 * Writes the kept stimulus as one self-contained, readable SystemVerilog testbench: a table of input rows (each held
 * for a number of cycles) walked by a loop that applies inputs and clocks exactly as the vector harness does, and
 * plain random segments regenerated from their seed (src/engine/search/prng.ts), so a re-simulation reaches the
 * same points. A table compiles in about the same time whatever its length; thousands
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
import { randomPlayerLines } from './prng';
import { mergeRows, sliceRows, totalCycles, type Candidate, type Cycle } from './stimulus';

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

/** What the testbench plays for one sequence: its listed rows (a range of the table), and a random segment. */
interface Step {
  comment: string;
  first: number;
  last: number;
  random?: { seed: number; resetBelow: number; cycles: number } | undefined;
  /** Listed rows after the random segment. */
  after?: { first: number; last: number } | undefined;
}

function hex32(n: number): string {
  return `32'h${(n >>> 0).toString(16).padStart(8, '0')}`;
}

export function emitTestbench(plan: HarnessPlan, kept: KeptSequence[], meta: { seed: number; tbName: string }): string {
  const inputs = plan.inputs;
  // The listed rows: every sequence's rows but its random segment, which the testbench regenerates.
  const table: TableRow[] = [];
  const steps: Step[] = [];
  const list = (rows: ReturnType<typeof mergeRows>) => {
    const first = table.length;
    for (const r of mergeRows(rows)) table.push({ cycles: r.count, values: r.values });
    return { first, last: table.length - 1 };
  };
  let total = 0;
  kept.forEach((k, idx) => {
    const c = k.candidate;
    const n = totalCycles(c.rows);
    total += n;
    const comment = `sequence ${idx + 1}: ${n} cycle(s), ${c.origin}, reached ${k.newPoints} new point(s)`;
    const seg = c.random;
    if (!seg) {
      steps.push({ comment, ...list(c.rows) });
      return;
    }
    const before = list(sliceRows(c.rows, 0, seg.start));
    const after = list(sliceRows(c.rows, seg.start + seg.cycles, n));
    steps.push({
      comment,
      ...before,
      random: { seed: seg.seed, resetBelow: seg.resetBelow, cycles: seg.cycles },
      ...(after.last >= after.first ? { after } : {}),
    });
  });
  const clock = plan.clock
    ? [`#${HALF_PERIOD} ${plan.clock} = 1'b1;`, `#${HALF_PERIOD} ${plan.clock} = 1'b0;`]
    : [`#${HALF_PERIOD * 2};`];
  const lines: string[] = [
    `${GENERATED_MARKER} (model-free engine, seed ${meta.seed}): stimulus only, no checks.`,
    `// ${kept.length} stimulus sequence(s), ${total} cycle(s), kept by coverage-guided search;`,
    '// each sequence starts from reset when the DUT has one.',
    '`timescale 1ns/1ps',
    `module ${meta.tbName};`,
  ];
  lines.push(...portDecls(plan), '', ...instanceLines(plan), '');
  const clocks = extraClockLines(plan);
  if (clocks.length) lines.push(...clocks, '');

  if (table.length) {
    const fields = [{ name: 'cycles', width: 32 }, ...inputs.map((i) => ({ name: driven(i), width: i.width }))];
    const rowWidth = fields.reduce((a, f) => a + f.width, 0);
    lines.push(
      `  // One row: hold the inputs for the given number of ${plan.clock ? 'clock cycles' : 'steps'}, then move on.`,
      `  // Row layout: {${fields.map((f) => `${f.name}${f.width > 1 ? `[${f.width - 1}:0]` : ''}`).join(', ')}}`,
      `  localparam int CHORUS_ROWS = ${table.length};`,
      `  localparam logic [${rowWidth - 1}:0] CHORUS_STIMULUS [CHORUS_ROWS] = '{`,
    );
    const starts = new Map<number, string>();
    for (const st of steps) if (st.last >= st.first) starts.set(st.first, st.comment);
    table.forEach((r, idx) => {
      const comment = starts.get(idx);
      if (comment) lines.push(`    // ${comment}`);
      const cells = [`32'd${r.cycles}`, ...r.values.map((v, j) => literal(v, inputs[j].width))];
      lines.push(`    {${cells.join(', ')}}${idx < table.length - 1 ? ',' : ''}`);
    });
    lines.push('  };', '');
    lines.push(
      '  task automatic chorus_play_rows(input int first, input int last);',
      '    for (int chorus_row = first; chorus_row <= last; chorus_row++) begin',
      '      logic [31:0] chorus_cycles;',
      inputs.length
        ? `      {chorus_cycles, ${inputs.map(driven).join(', ')}} = CHORUS_STIMULUS[chorus_row];`
        : '      chorus_cycles = CHORUS_STIMULUS[chorus_row];',
      ...followResetLines(plan, '      '),
      '      repeat (chorus_cycles) begin',
      ...clock.map((l) => `        ${l}`),
      '      end',
      '    end',
      '  endtask',
      '',
    );
  }
  if (steps.some((st) => st.random)) lines.push(...randomPlayerLines(plan, clock), '');
  const rowsCall = (r: { first: number; last: number }) =>
    r.last >= r.first ? [`    chorus_play_rows(${r.first}, ${r.last});`] : [];
  lines.push('  initial begin');
  for (const st of steps) {
    lines.push(`    // ${st.comment}`, ...rowsCall(st));
    if (st.random)
      lines.push(
        `    chorus_play_random(${hex32(st.random.seed)}, ${hex32(st.random.resetBelow)}, ${st.random.cycles});`,
      );
    if (st.after) lines.push(...rowsCall(st.after));
  }
  lines.push('    $finish;', '  end', 'endmodule', '');
  return lines.join('\n');
}
