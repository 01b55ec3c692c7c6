/**
 * A user's own testbenches of test/fixtures/signoff/mux4.sv, as a regression holds them: two hierarchies above the
 * DUT (`tb_top.dut`, `harness.u_wrap.u_mux`), each built by Verilator with the user's coverage flags and run with a
 * list of `sel` values, writing its coverage.dat.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './cli';
import { currentVerilator } from './verilators';

export const MUX4 = join(repoRoot, 'test', 'fixtures', 'signoff', 'mux4.sv');

export const TB_TOP = `module tb_top(input logic clk, input logic [1:0] sel, input logic [3:0] a, output logic y);
  mux4 dut(.*);
endmodule
`;
export const HARNESS = `module wrap(input logic clk, input logic [1:0] sel, input logic [3:0] a, output logic y);
  mux4 u_mux(.*);
endmodule
module harness(input logic clk, input logic [1:0] sel, input logic [3:0] a, output logic y);
  wrap u_wrap(.*);
endmodule
`;
const main = (top: string, sels: number[]) => `#include "V${top}.h"
#include "verilated.h"
#include "verilated_cov.h"
int main(int argc, char** argv) {
  VerilatedContext ctx;
  ctx.commandArgs(argc, argv);
  V${top} top{&ctx};
  top.a = 0xA;
  for (int s : {${sels.join(', ')}}) {
    top.sel = s;
    top.clk = 0;
    top.eval();
    top.clk = 1;
    top.eval();
  }
  top.final();
  ctx.coveragep()->write("coverage.dat");
  return 0;
}
`;

/** Builds and runs one user testbench of mux4 in its own folder; the coverage file's path. */
export function userRun(dir: string, top: string, tb: string, sels: number[], coverage: string[]): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${top}.sv`), tb);
  writeFileSync(join(dir, 'main.cpp'), main(top, sels));
  const build = spawnSync(
    currentVerilator().path,
    [
      '--cc',
      '--exe',
      '--build',
      ...coverage,
      '-Wno-fatal',
      '--top-module',
      top,
      '-Mdir',
      'obj',
      MUX4,
      `${top}.sv`,
      'main.cpp',
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  assert.equal(build.status, 0, build.stderr);
  const sim = spawnSync(join(dir, 'obj', `V${top}`), [], { cwd: dir, encoding: 'utf8' });
  assert.equal(sim.status, 0, sim.stderr);
  return join(dir, 'coverage.dat');
}
