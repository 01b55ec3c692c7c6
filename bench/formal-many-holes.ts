/**
 * The formal engine on a design with hundreds of holes behind one cause: a case of N arms on an index loaded from a
 * 4-bit input (arms 16..N-1 and the default unreachable). Prints verdict counts and the time in Yosys.
 *
 *   node --import tsx bench/formal-many-holes.ts [--arms 200] [--budget 5]
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { proveHoles } from '../src/engine';
import { silentLogger } from '../src/protocol';

function design(arms: number): string {
  const lines = [
    'module many_holes (input wire clk, input wire rst, input wire [3:0] sel, input wire [7:0] d, output reg [7:0] q);',
    '  reg [7:0] idx;',
    "  always @(posedge clk) if (rst) idx <= 8'd0; else idx <= {4'd0, sel};",
    '  always @(posedge clk)',
    '    case (idx)',
  ];
  for (let i = 0; i < arms; i++) lines.push(`      8'd${i}: q <= d + 8'd${i % 256};`);
  lines.push("      default: q <= 8'd0;", '    endcase', 'endmodule', '');
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { arms: { type: 'string', default: '200' }, budget: { type: 'string', default: '5' } },
  });
  const arms = Math.min(255, Number(values.arms));
  const dir = mkdtempSync(join(tmpdir(), 'chorus-many-holes-'));
  const file = join(dir, 'many_holes.sv');
  writeFileSync(file, design(arms));
  const started = Date.now();
  const r = await proveHoles(
    { rtlFiles: [file], top: 'many_holes', budgetSeconds: Number(values.budget), seed: 1 },
    { logger: silentLogger, signal: new AbortController().signal },
  );
  const counts = { unreachable: 0, witness: 0, unknown: 0 };
  for (const v of r.verdicts) counts[v.verdict.status]++;
  process.stdout.write(
    `${arms} arms: ${r.verdicts.length} holes → ${counts.unreachable} proven, ${counts.witness} witnesses, ${counts.unknown} unknown; ` +
      `Yosys ${(r.yosysMs / 1000).toFixed(1)} s, search ${(r.searchMs / 1000).toFixed(1)} s, wall ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
