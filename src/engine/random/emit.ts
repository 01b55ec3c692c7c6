/**
 * Writes the kept stimulus as one self-contained, readable SystemVerilog testbench. Its `step` task applies inputs
 * and clocks exactly as the vector harness does, so a re-simulation reaches the same points.
 */
import { GENERATED_MARKER } from '../fs';
import { HALF_PERIOD, type HarnessPlan } from './harness';
import type { Candidate, Cycle } from './stimulus';

function literal(v: bigint, width: number): string {
  return width === 1 ? `1'b${v}` : `${width}'h${v.toString(16)}`;
}

function sameCycle(a: Cycle, b: Cycle): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

export interface KeptSequence {
  candidate: Candidate;
  /** Points this sequence added when it was found. */
  newPoints: number;
}

export function emitTestbench(plan: HarnessPlan, kept: KeptSequence[], meta: { seed: number; tbName: string }): string {
  const inputs = plan.inputs;
  const lines: string[] = [
    `${GENERATED_MARKER} (model-free engine, seed ${meta.seed}): stimulus only, no checks.`,
    `// ${kept.length} stimulus sequence(s) kept by coverage-guided search; each starts from reset when the DUT has one.`,
    '`timescale 1ns/1ps',
    `module ${meta.tbName};`,
  ];
  if (plan.clock) lines.push(`  logic ${plan.clock} = 1'b0;`);
  for (const i of inputs) lines.push(`  logic ${i.width > 1 ? `[${i.width - 1}:0] ` : ''}${i.name};`);
  for (const o of [...plan.outputs, ...plan.inouts]) lines.push(`  wire ${o.width > 1 ? `[${o.width - 1}:0] ` : ''}${o.name};`);
  lines.push('');
  const conns = [plan.clock, ...inputs.map((i) => i.name), ...plan.outputs.map((o) => o.name), ...plan.inouts.map((o) => o.name)].filter(
    (n): n is string => Boolean(n),
  );
  lines.push(`  ${plan.top} ${plan.instance} (`);
  conns.forEach((n, k) => lines.push(`    .${n}(${n})${k < conns.length - 1 ? ',' : ''}`));
  lines.push('  );', '');

  const args = inputs.map((i) => `input logic ${i.width > 1 ? `[${i.width - 1}:0] ` : ''}${i.name}_v`).join(', ');
  lines.push(
    plan.clock
      ? '  // One cycle: inputs change while the clock is low; the DUT samples them at the rising edge.'
      : '  // One input vector, held for a while so the combinational logic settles.',
    `  task automatic step(${args});`,
  );
  for (const i of inputs) lines.push(`    ${i.name} = ${i.name}_v;`);
  if (plan.clock) lines.push(`    #${HALF_PERIOD} ${plan.clock} = 1'b1;`, `    #${HALF_PERIOD} ${plan.clock} = 1'b0;`);
  else lines.push(`    #${HALF_PERIOD * 2};`);
  lines.push('  endtask', '', '  initial begin');
  kept.forEach((k, idx) => {
    const c = k.candidate;
    lines.push(`    // sequence ${idx + 1}: ${c.cycles.length} cycle(s), ${c.origin}, reached ${k.newPoints} new point(s)`);
    let i = 0;
    while (i < c.cycles.length) {
      let run = 1;
      while (i + run < c.cycles.length && sameCycle(c.cycles[i], c.cycles[i + run])) run++;
      const call = `step(${c.cycles[i].map((v, j) => literal(v, inputs[j].width)).join(', ')});`;
      lines.push(run > 1 ? `    repeat (${run}) ${call}` : `    ${call}`);
      i += run;
    }
  });
  lines.push('    $finish;', '  end', 'endmodule', '');
  return lines.join('\n');
}
