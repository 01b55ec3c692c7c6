/**
 * Designs with several clocks: two independent input clocks (two_clocks.sv) and a latch-based clock gate
 * (gated_clock.sv, as cv32e40p_clock_gate). Such a design gets proofs only: a flag whose cone is one clock domain in
 * the single-clock model, the others in the multi-clock one (clk2fflogic, every clock a free input). Every point is
 * a hole of a run of no cycle; each verdict is checked against a random run that drives every clock on its own
 * schedule (edges of several clocks apart and together): a proven point is never hit, a reachable point is hit and is
 * never proven, and no point gets a witness.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { provePoints } from '../../src/engine';
import type { CoveragePoint, ModuleInfo } from '../../src/protocol';
import { clockModelProblem } from '../../src/formal/clocks';
import { fixture, hits, lineOf, measureTestbench, randomTestbench, services, topOf } from './support';

/**
 * Uniform random inputs, each clock toggled on its own (a clock changes with probability 1/2 at each 1 ns step,
 * inputs change between steps), reset held for the first steps and now and then after.
 */
function multiClockTestbench(top: ModuleInfo, clocks: string[], steps: number, seed: number): string {
  const lines = ['`timescale 1ns/1ps', 'module tb;'];
  for (const p of top.ports) {
    const w = p.width > 1 ? `[${p.width - 1}:0] ` : '';
    lines.push(p.direction === 'input' ? `  logic ${w}${p.name} = 0;` : `  wire ${w}${p.name};`);
  }
  lines.push(`  ${top.name} uut (${top.ports.map((p) => `.${p.name}(${p.name})`).join(', ')});`);
  lines.push('  initial begin', `    int unsigned s = ${seed};`, `    void'($urandom(s));`);
  lines.push(`    for (int i = 0; i < ${steps}; i++) begin`);
  for (const p of top.ports.filter((x) => x.direction === 'input' && !clocks.includes(x.name))) {
    if (p.name === top.reset?.name) {
      lines.push(`      ${p.name} = (i < 4 || $urandom_range(255) == 0) ? 1'b0 : 1'b1;`);
      continue;
    }
    lines.push(`      if ($urandom_range(1)) ${p.name} = $urandom();`);
  }
  lines.push('      #1;');
  for (const c of clocks) lines.push(`      if ($urandom_range(1)) ${c} = !${c};`);
  lines.push('      #1;', '    end', '    $finish;', '  end', 'endmodule', '');
  return lines.join('\n');
}

type ProvePointsResult = Awaited<ReturnType<typeof provePoints>>;

async function decide(name: string, top: string, clocks: string[], parameters: Record<string, string> = {}) {
  const file = fixture(name);
  const log: string[] = [];
  const note = (m: string) => void log.push(m);
  const mod = topOf([{ file, content: readFileSync(file, 'utf8') }], top);
  // No cycle: every point is a hole.
  const points = await measureTestbench([file], top, randomTestbench(mod, 0, 3));
  const result = await provePoints(
    points,
    { rtlFiles: [file], top },
    { timeoutSeconds: 240, ...(Object.keys(parameters).length ? { parameters } : {}) },
    { ...services(), logger: { debug: note, info: note, warn: note, error: note } },
  );
  const long = await measureTestbench([file], top, multiClockTestbench(mod, clocks, 20_000, 11));
  return { file, result, long, log };
}

/** The verdicts of the holes at a line (its line and branch points); at least one. */
function at(result: ProvePointsResult, line: number) {
  const vs = result.verdicts.filter((x) => x.target.line === line);
  assert.ok(vs.length, `no hole at line ${line}: ${JSON.stringify(result.verdicts.map((x) => x.target.line))}`);
  return vs;
}

/** Every hole at a line has the status; for unknown ones, a reason matching the pattern. */
function allAt(result: ProvePointsResult, line: number, status: string, reason?: RegExp) {
  for (const v of at(result, line)) {
    assert.equal(
      v.verdict.status,
      status,
      `line ${line} ${v.target.kind} ${v.target.comment}: ${JSON.stringify(v.verdict)}`,
    );
    if (reason) assert.match(v.verdict.status === 'unknown' ? v.verdict.reason : '', reason, `line ${line}`);
  }
}

/** Some hole at a line is hit by the run (the arm is reachable). */
const hitAt = (result: ProvePointsResult, line: number, long: CoveragePoint[]) =>
  at(result, line).some((v) => v.target.comment !== 'else' && hits(long, v));

/** No proof a run hits, no witness, every hole decided the way the test says. */
function checked(result: ProvePointsResult, long: CoveragePoint[]) {
  for (const v of result.verdicts) {
    assert.notEqual(v.verdict.status, 'witness', `line ${v.target.line}: a witness on a design with several clocks`);
    if (v.verdict.status === 'unreachable')
      assert.ok(!hits(long, v), `line ${v.target.line} (${v.target.comment}) is proven but the random run hits it`);
  }
}

test(
  'two independent clocks: unreachable arms in each domain proven, reachable ones unknown and hit',
  { timeout: 400_000 },
  async () => {
    const { file, result, long } = await decide('two_clocks.sv', 'two_clocks', ['clk_a', 'clk_b']);
    checked(result, long);
    // Domain a's counter, domain b's even register and parameter; across the domains, a parameter and a comparison
    // no pair of values meets (the multi-clock model).
    for (const text of ["if (ca == 4'd12)", 'if (cb[0])', 'else if (B_ERR) qb', 'if (B_ERR && sa', 'else if (sa > 4'])
      allAt(result, lineOf(file, text), 'unreachable');
    const domain = /reachable from the start state in its clock domain's model; witnesses are not searched/;
    for (const text of ["else if (da == 4'd5)", "else if (cb == 4'd6)"]) {
      allAt(result, lineOf(file, text), 'unknown', domain);
      assert.ok(hitAt(result, lineOf(file, text), long), `${text}: the random run never reaches it`);
    }
    // Domain b's register of domain a's counter: the flag crosses the domains, decided in the multi-clock model.
    const across = lineOf(file, "else if (sa == 4'd3)");
    allAt(result, across, 'unknown', /reachable in the multi-clock model \(clocks as free inputs\)/);
    assert.ok(hitAt(result, across, long), 'the random run never reaches the arm across the domains');
  },
);

test(
  'a latch-based clock gate: arms behind the gated clock proven where nothing reaches them, the reachable one hit',
  { timeout: 400_000 },
  async () => {
    const { file, result, long, log } = await decide('gated_clock.sv', 'gated_clock', ['clk']);
    checked(result, long);
    // Behind the gated clock: the domain's own arms in the single-clock model (the gated clock's edges are its
    // domain's cycles), the arm that reads the ungated count across the domains, in the gated-clock model (the
    // gated registers on the input clock with a free enable).
    for (const text of ['if (PARITY && r0', "else if (d == 4'd3 && !d[0])", "else if (n > 4'd13 && n < 4'd2)"])
      allAt(result, lineOf(file, text), 'unreachable');
    const gatedLine = log.find((l) => /flag\(s\) across clock domains proven in the gated-clock model/.test(l));
    assert.match(gatedLine ?? log.join('\n'), /^formal: [1-9]\d* of \d+ flag\(s\) across clock domains proven/);
    // Reached only when the gate holds an edge back: a model without the gate's enable would prove it.
    const held = lineOf(file, 'else if (g != m)');
    assert.ok(hitAt(result, held, long), 'the random run never holds the gate back');
    for (const v of at(result, held)) assert.notEqual(v.verdict.status, 'unreachable');
    const domain = lineOf(file, "else if (r0 == 4'd5)");
    allAt(result, domain, 'unknown', /clock domain's model/);
    assert.ok(hitAt(result, domain, long), 'the random run never reaches the reachable arm');
    const across = lineOf(file, "else if (n == 4'd3)");
    allAt(result, across, 'unknown', /multi-clock model/);
    assert.ok(hitAt(result, across, long), 'the random run never reaches the reachable arm across the domains');
  },
);

test(
  'a clock a register drives: the multi-clock model is not trusted (it would prove an arm every derived edge runs)',
  { timeout: 400_000 },
  async () => {
    const { file, result, long } = await decide('divided_clock.sv', 'divided_clock', ['clk']);
    checked(result, long);
    const arm = lineOf(file, 'if (clk_div) q <= d;');
    allAt(result, arm, 'unknown', /a register drives a clock through logic/);
    assert.ok(hitAt(result, arm, long), 'the random run never runs the arm');
  },
);

/** A clock gate's cone as Yosys 0.55 writes it (`clockgates.il`), with parts replaced. */
function gateIl(opts: { polarity?: string; andB?: string; en?: string } = {}): string {
  return [
    'module \\g',
    '  wire input 1 \\clk',
    '  wire input 2 \\other',
    '  wire \\gclk',
    '  wire \\u.clk_en',
    '  wire \\u.clk_i',
    '  wire \\u.clk_o',
    '  cell $and $and$1',
    '    parameter \\A_SIGNED 0',
    '    parameter \\A_WIDTH 1',
    '    parameter \\B_SIGNED 0',
    '    parameter \\B_WIDTH 1',
    '    parameter \\Y_WIDTH 1',
    `    connect \\A ${opts.andB ?? '\\u.clk_i'}`,
    '    connect \\B \\u.clk_en',
    '    connect \\Y \\u.clk_o',
    '  end',
    '  cell $dlatch $latch$2',
    `    parameter \\EN_POLARITY ${opts.polarity ?? '0'}`,
    '    parameter \\WIDTH 1',
    '    connect \\D \\en_q',
    `    connect \\EN ${opts.en ?? '\\u.clk_i'}`,
    '    connect \\Q \\u.clk_en',
    '  end',
    '  connect \\u.clk_i \\clk',
    '  connect \\gclk \\u.clk_o',
    'end',
  ].join('\n');
}

test('the clock model check: a clock gate on an input clock passes; a register or another latch on a clock does not', () => {
  const files = (il: string, latches = 'g/$latch$2', sources = '') => ({
    'clockgates.il': il,
    'clocklatches.txt': latches,
    'clocksources.txt': sources,
  });
  assert.equal(clockModelProblem(files(gateIl())), undefined);
  assert.equal(clockModelProblem(files('', '', '')), undefined);
  // A register on a clock (a divided clock).
  assert.match(clockModelProblem(files(gateIl(), '', 'g/$procdff$3')) ?? '', /a register drives a clock/);
  // Open while the clock is high: the latch passes changes to the gated clock while it can rise.
  assert.match(clockModelProblem(files(gateIl({ polarity: '1' }))) ?? '', /not a clock gate/);
  // ANDed with another input than the one it is open on.
  assert.match(clockModelProblem(files(gateIl({ andB: '\\other' }))) ?? '', /not a clock gate/);
  // Open on a net that is not an input (a register's output, say).
  assert.match(clockModelProblem(files(gateIl({ en: '\\en_q' }))) ?? '', /not a clock gate/);
});
