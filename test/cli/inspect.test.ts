// `chorus inspect` end to end through the built CLI: the JSON contract, readable output, --top, exit codes.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ensureFreshCli, runCli } from '../helpers/cli';

// `npm test` builds first; a lone run of this file rebuilds a stale CLI.
before(ensureFreshCli);

const fixture = (name: string) => `test/fixtures/hdl/${name}`;

test('--json prints exactly {modules, top, clock, reset}', async () => {
  const r = await runCli(['inspect', 'examples/fifo/fifo.sv', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(out), ['modules', 'top', 'clock', 'reset']);
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
    { name: 'AW', default: '$clog2(DEPTH)' },
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
