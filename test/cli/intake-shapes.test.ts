/**
 * Model-free runs, with real Verilator through the built CLI, on the port shapes of processor cores and protocol
 * IP: an unpacked array operand port, two clock domains, and a port width a package function computes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';

const fixture = (n: string) => join(repoRoot, 'test', 'fixtures', 'engine', 'intake', n);

async function generate(file: string, target: string) {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-intake-'));
  const out = join(dir, 'tb.sv');
  const r = await runCli(
    [
      'generate',
      file,
      '--engine',
      'random',
      '--seed',
      '3',
      '--budget-seconds',
      '10',
      '--target',
      target,
      '--json',
      '--out',
      out,
    ],
    { cwd: dir },
  );
  assert.equal(r.code, 0, r.stderr);
  return { j: JSON.parse(r.stdout), out, dir };
}

test('an ALU with an unpacked array operand port: the harness builds, every element is driven, toggles close', async () => {
  const { j, out } = await generate(fixture('alu_array.sv'), 'line=100,branch=100,toggle=100');
  assert.equal(j.pass, true);
  assert.equal(j.coverage.toggle.pct, 100, JSON.stringify(j.holes));
  const tb = readFileSync(out, 'utf8');
  assert.match(tb, /wire \[31:0\] operand_q \[0:1\];/);
  assert.match(tb, /\{chorus_cycles, rst_n, op, operand_q_0, operand_q_1\}/);
});

test('two clock domains: the second clock runs in the harness and in the emitted testbench on its own', async () => {
  const file = fixture('two_clocks.v');
  const { j, out, dir } = await generate(file, 'line=100,branch=100,toggle=100');
  // tx_count only counts on tx_clk: its bits toggling is the second clock toggling.
  assert.equal(j.coverage.toggle.pct, 100, JSON.stringify(j.holes));
  const tb = readFileSync(out, 'utf8');
  assert.doesNotMatch(tb, /Row layout: \{[^}]*tx_clk/, 'the second clock is no data column');
  // The testbench alone, rebuilt and re-simulated, reaches the same: it times the clocks as the harness did.
  const c = await runCli(['coverage', file, '--tb', out, '--top', 'two_clocks', '--json'], { cwd: dir });
  assert.equal(c.code, 0, c.stderr);
  const cov = JSON.parse(c.stdout);
  assert.deepEqual(cov.coverage.toggle, j.coverage.toggle);
  assert.ok(!cov.holes.some((h: { source?: string; text?: string }) => /tx_count/.test(JSON.stringify(h))));
});

test('a port width from a package function with a loop builds as plain Verilator builds it', async () => {
  const { j } = await generate(fixture('pkg_width.sv'), 'line=100');
  assert.equal(j.pass, true);
  // clk, and x and y at the 8 bits the function gives.
  assert.equal(j.coverage.toggle.total, 17);
});
