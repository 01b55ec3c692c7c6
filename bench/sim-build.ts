// Simulation build times: a cold build (empty cache, ccache included), a second testbench on the same DUT with
// the cache warm, and an identical rebuild. Ratios come from one run on one machine.
// Usage: node --import tsx bench/sim-build.ts [--reps N] [--dut examples/fifo/fifo.sv]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSimulation, detectVerilator, type BuildResult } from '../src/sim';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const reps = Number(arg('--reps', '1'));
const dut = resolve(arg('--dut', 'examples/fifo/fifo.sv'));

function testbench(name: string, pushFirst: boolean): string {
  return `\`timescale 1ns/1ps
module ${name};
  logic clk = 0, rst_n = 0, push = 0, pop = 0;
  logic [7:0] din = 0;
  wire [7:0] dout;
  wire full, empty, almost_full, overrun, underrun;
  wire [2:0] level;
  fifo uut (.*);
  always #5 clk = ~clk;
  initial begin
    repeat (2) @(negedge clk);
    rst_n = 1;
    repeat (${pushFirst ? 6 : 3}) begin @(negedge clk); push = ${pushFirst ? 1 : 0}; pop = ${pushFirst ? 0 : 1}; din = din + 8'h13; end
    repeat (6) begin @(negedge clk); push = ${pushFirst ? 0 : 1}; pop = ${pushFirst ? 1 : 0}; end
    $finish;
  end
endmodule
`;
}

interface Sample {
  cold: number;
  warm: number;
  identical: number;
}

function check(r: BuildResult, what: string): BuildResult {
  if (r.status !== 'ok') throw new Error(`${what} failed: ${JSON.stringify(r.diagnostics)}`);
  return r;
}

async function once(): Promise<Sample> {
  const work = mkdtempSync(join(tmpdir(), 'chorus-bench-sim-'));
  try {
    const cacheDir = join(work, 'cache');
    const tbA = join(work, 'tb_a.sv');
    const tbB = join(work, 'tb_b.sv');
    writeFileSync(tbA, testbench('tb_a', true));
    writeFileSync(tbB, testbench('tb_b', false));
    const opts = { cacheDir };
    const cold = check(await buildSimulation({ dutFiles: [dut], testbench: tbA }, opts), 'cold build');
    const warm = check(await buildSimulation({ dutFiles: [dut], testbench: tbB }, opts), 'warm build');
    const same = check(await buildSimulation({ dutFiles: [dut], testbench: tbA }, opts), 'identical rebuild');
    if (cold.cacheHit || warm.cacheHit || !same.cacheHit) throw new Error('unexpected cache behaviour');
    return { cold: cold.ms, warm: warm.ms, identical: same.ms };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const v = await detectVerilator();
  const samples: Sample[] = [];
  for (let i = 0; i < reps; i++) {
    const s = await once();
    samples.push(s);
    console.log(
      `rep ${i + 1}: cold ${s.cold} ms, warm (second testbench) ${s.warm} ms, identical ${s.identical} ms, warm/cold ${(s.warm / s.cold).toFixed(3)}`,
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ratios = samples.map((s) => s.warm / s.cold);
  console.log(
    JSON.stringify(
      {
        verilator: v.version,
        dut,
        reps,
        coldMs: median(samples.map((s) => s.cold)),
        warmMs: median(samples.map((s) => s.warm)),
        identicalMs: median(samples.map((s) => s.identical)),
        warmOverColdPerRun: ratios.map((r) => Number(r.toFixed(3))),
        worstWarmOverCold: Number(Math.max(...ratios).toFixed(3)),
      },
      null,
      2,
    ),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
