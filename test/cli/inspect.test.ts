// `chorus inspect` end to end through the built CLI: the JSON contract, readable output, --top, exit codes.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ensureFreshCli, runCli } from '../helpers/cli';

// `npm test` builds first; a lone run of this file rebuilds a stale CLI.
before(ensureFreshCli);

const fixture = (name: string) => `test/fixtures/hdl/${name}`;

test('--json prints exactly {modules, top, clock, reset, clocks, resets, candidates}', async () => {
  const r = await runCli(['inspect', 'examples/fifo/fifo.sv', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(out), ['modules', 'top', 'clock', 'reset', 'clocks', 'resets', 'candidates']);
  assert.deepEqual(out.clocks, ['clk']);
  assert.deepEqual(out.resets, [{ name: 'rst_n', activeLow: true, async: true }]);
  assert.deepEqual(out.candidates, ['fifo']);
  assert.equal(out.top, 'fifo');
  assert.equal(out.clock, 'clk');
  assert.deepEqual(out.reset, { name: 'rst_n', activeLow: true, async: true });
  assert.equal(out.modules.length, 1);
  const m = out.modules[0];
  assert.deepEqual(Object.keys(m), ['name', 'file', 'line', 'params', 'ports']);
  assert.deepEqual([m.name, m.file, m.line], ['fifo', 'examples/fifo/fifo.sv', 2]);
  assert.deepEqual(m.params, [
    { name: 'WIDTH', default: '8' },
    { name: 'DEPTH', default: '4' },
    { name: 'AW', default: '$clog2(DEPTH)', local: true },
  ]);
  assert.deepEqual(m.ports.slice(4, 6), [
    { name: 'din', direction: 'input', width: 8 },
    { name: 'dout', direction: 'output', width: 8 },
  ]);
  assert.deepEqual(m.ports.at(-1), { name: 'level', direction: 'output', width: 3 });
});

test('readable output lists parameters, ports with widths, the FSM, top, clock and reset', async () => {
  const r = await runCli(['inspect', 'examples/uart_tx/uart_tx.sv']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^uart_tx {2}examples\/uart_tx\/uart_tx\.sv:2 {2}\(top\)$/m);
  assert.match(r.stdout, /parameters: CLKS_PER_BIT = 4, localparam CW = \$clog2\(CLKS_PER_BIT\) \(= 2\)/);
  assert.match(r.stdout, /^ {2}input {2}data +8 bits +logic \[7:0\]$/m);
  assert.match(r.stdout, /state machine state: S_IDLE, S_START, S_DATA, S_PARITY, S_STOP/);
  assert.match(r.stdout, /^top: uart_tx$/m);
  assert.match(r.stdout, /^clock: clk$/m);
  assert.match(r.stdout, /^reset: rst_n \(active low, asynchronous\)$/m);
});

test('several top candidates: top is null and the CLI says to pass --top; --top picks one', async () => {
  const r = await runCli(['inspect', fixture('multi.sv'), '--json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.top, null);
  assert.equal(out.clock, null);
  assert.match(r.stderr, /Several modules could be the top \(chip, spare\): pass --top <module>/);
  // The module inside them can be picked too, after them.
  assert.deepEqual(out.candidates, ['chip', 'spare', 'core']);

  const picked = await runCli(['inspect', fixture('multi.sv'), '--top', 'chip', '--json']);
  assert.equal(picked.code, 0, picked.stderr);
  const p = JSON.parse(picked.stdout);
  assert.equal(p.top, 'chip');
  assert.equal(p.clock, 'sys_clk');
  assert.deepEqual(p.reset, { name: 'sys_rst_n', activeLow: true, async: true });
  assert.doesNotMatch(picked.stderr, /Several modules/);

  const unknown = await runCli(['inspect', fixture('multi.sv'), '--top', 'nowhere']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Module 'nowhere' is not defined in the given files \(modules: core, chip, spare\)/);
});

test('syntax errors: exit 2, each printed as file:line:column: message', async () => {
  const r = await runCli(['inspect', fixture('syntax_error.sv'), '--json']);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  const lines = r.stderr.split('\n');
  assert.ok(lines.includes('test/fixtures/hdl/syntax_error.sv:2:48: syntax error: missing `;`'), r.stderr);
  assert.ok(lines.includes('test/fixtures/hdl/syntax_error.sv:4:13: syntax error: missing identifier'), r.stderr);
  assert.match(r.stderr, /2 syntax errors in the RTL/);
});

test('a missing file: exit 2 naming it', async () => {
  const r = await runCli(['inspect', 'examples/fifo/fifo.sv', 'no/such/file.sv']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no\/such\/file\.sv: No such file/);
  assert.equal(r.stdout, '');
});

const intake = (name: string) => `test/fixtures/engine/intake/${name}`;

test('array ports: --json gives their unpacked dimensions, the text shows them resolved', async () => {
  const j = await runCli(['inspect', intake('alu_array.sv'), '--json']);
  assert.equal(j.code, 0, j.stderr);
  const ports = JSON.parse(j.stdout).modules[0].ports;
  assert.deepEqual(
    ports.find((p: { name: string }) => p.name === 'operand_q'),
    { name: 'operand_q', direction: 'input', width: 32, unpacked: '[2]', dimensions: [{ left: 0, right: 1 }] },
  );
  assert.deepEqual(
    ports.find((p: { name: string }) => p.name === 'op'),
    { name: 'op', direction: 'input', width: 2 },
  );
  const t = await runCli(['inspect', intake('alu_array.sv')]);
  assert.match(t.stdout, /^ {2}input {2}operand_q +32 bits +logic \[31:0\] \[2\], array \[0:1\] of 2$/m);
  assert.match(t.stdout, /^ {2}output res +8 bits +logic \[7:0\] \[0:3\], array \[0:3\] of 4$/m);
});

test('two clock domains: both clocks and both resets, the primary first', async () => {
  const j = await runCli(['inspect', intake('two_clocks.v'), '--json']);
  assert.equal(j.code, 0, j.stderr);
  const out = JSON.parse(j.stdout);
  assert.equal(out.clock, 'rx_clk');
  assert.deepEqual(out.clocks, ['rx_clk', 'tx_clk']);
  assert.deepEqual(
    out.resets.map((r: { name: string }) => r.name),
    ['rx_rst', 'tx_rst'],
  );
  const t = await runCli(['inspect', intake('two_clocks.v')]);
  assert.match(t.stdout, /^clock: rx_clk \(other clocks: tx_clk\)$/m);
  assert.match(t.stdout, /clocks: rx_clk, tx_clk \(primary rx_clk\)/);
});

test('localparams: local in --json and in the text; -G of one is bad input naming it and its line', async () => {
  const j = await runCli(['inspect', fixture('params.sv'), '--json']);
  assert.equal(j.code, 0, j.stderr);
  const m = JSON.parse(j.stdout).modules[0];
  const locals = m.params.filter((p: { local?: boolean }) => p.local === true);
  assert.ok(locals.length > 0, JSON.stringify(m.params));
  assert.ok(
    m.params.some((p: { local?: boolean }) => p.local === undefined),
    'an overridable parameter has no flag',
  );
  const name = locals[0].name as string;
  const text = readFileSync(fixture('params.sv'), 'utf8').split('\n');
  const line = text.findIndex((l) => new RegExp(`localparam\\b.*\\b${name}\\b`).test(l)) + 1;
  assert.ok(line > 0);
  const t = await runCli(['inspect', fixture('params.sv')]);
  assert.match(t.stdout, new RegExp(`localparam ${name} =`));
  const g = await runCli(['inspect', fixture('params.sv'), '-G', `${name}=3`]);
  assert.equal(g.code, 2, g.stderr);
  assert.match(
    g.stderr,
    new RegExp(
      `-G ${name}: '${name}' is a localparam of \\w+ \\(test/fixtures/hdl/params\\.sv:${line}\\), which cannot be overridden`,
    ),
  );
});
