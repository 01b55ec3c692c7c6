// Hand-written tricky headers (test/fixtures/hdl): non-ANSI ports, parameter arithmetic, packages and packed
// structs, several modules, a negedge reset, no clock. Each expectation was also checked against Verilator
// (see verilator-agree.test.ts for the ports).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeSources, literalDetails, literalsOf, moduleByName, unreachableDefaults } from '../../src/hdl';
import { resolveConditionals } from '../../src/hdl/conditionals';
import type { DesignAnalysis, ModuleInfo, PortInfo } from '../../src/protocol';

const dir = join(__dirname, '..', 'fixtures', 'hdl');

function fixture(name: string, top?: string): DesignAnalysis {
  const analysis = analyzeSources([{ name, content: readFileSync(join(dir, name), 'utf8') }], { top });
  assert.deepEqual(analysis.errors, [], `${name} parses without errors`);
  return analysis;
}

function mod(a: DesignAnalysis, name: string): ModuleInfo {
  const m = moduleByName(a, name);
  assert.ok(m, `module ${name}`);
  return m;
}

const port = (m: ModuleInfo, name: string): PortInfo => {
  const p = m.ports.find((x) => x.name === name);
  assert.ok(p, `port ${name}`);
  return p;
};

test('non-ANSI header: order from the port list, types from body declarations, a synchronous reset', () => {
  const a = fixture('nonansi.v');
  const m = mod(a, 'nonansi');
  assert.deepEqual(
    m.ports.map((p) => [p.name, p.direction, p.width, p.signed, p.type]),
    [
      ['clk', 'input', 1, false, 'wire'],
      ['rst', 'input', 1, false, 'wire'],
      ['a', 'input', 6, false, 'wire'],
      ['b', 'input', 4, true, 'wire'],
      ['q', 'output', 7, false, 'reg'],
      ['flag', 'output', 1, false, 'reg'],
      ['bus', 'inout', 3, false, 'wire'],
    ],
  );
  assert.equal(port(m, 'q').rangeText, '[W:0]');
  assert.deepEqual(
    m.params.map((p) => [p.name, p.value, p.local]),
    [
      ['W', 6, false],
      ['HALF', 3, true],
    ],
  );
  assert.equal(a.clock, 'clk');
  assert.deepEqual(a.reset, { name: 'rst', activeLow: false, async: false }, "`if (rst == 1'b1)`");
  // `b < -4'sd2` on a 4-bit signal is the code 4'b1110
  assert.ok(literalDetails(m).some((l) => l.subject === 'b' && l.value === '14' && l.width === 4));
  assert.ok(literalDetails(m).some((l) => l.subject === 'a' && l.value === '42' && l.width === 6));
});

test('parameterised widths: $clog2, shifts, division, macros, ascending and multi-dimensional ranges, atom types', () => {
  const a = fixture('params.sv');
  const m = mod(a, 'params');
  const widths = Object.fromEntries(m.ports.map((p) => [p.name, p.width]));
  assert.deepEqual(widths, {
    clock: 1,
    arst_n: 1,
    addr: 4, // $clog2(12)
    nibble: 4, // W/2
    wide: 16, // W<<1
    data: 8, // `BYTE
    ascending: 8, // [0:W-1]
    packed2d: 32, // [3:0][`BYTE-1:0]
    words: 1, // an unpacked array of bits: one element
    level: 4, // $clog2(13)
    sum: 10, // [W+1:0]
    count: 32, // int
    code: 8, // byte
    tiny: 3, // [MODE[1:0]:0] = [2:0]
  });
  assert.equal(port(m, 'words').unpacked, '[4]');
  assert.deepEqual(
    m.ports.filter((p) => p.signed).map((p) => p.name),
    ['sum', 'count', 'code'],
  );
  assert.equal(port(m, 'count').type, 'int');
  assert.deepEqual(
    m.params.map((p) => [p.name, p.default, p.value, p.local]),
    [
      ['DEPTH', '12', 12, false],
      ['W', '2 * 4', 8, false],
      ['MODE', "4'b1010", 10, false],
      ['AW', '$clog2(DEPTH)', 4, true],
      ['LW', '$clog2(DEPTH + 1)', 4, true],
      ['LAST', 'DEPTH - 1', 11, true],
    ],
  );
  // a negedge asynchronous reset tested as `arst_n == 1'b0`; the clock is not called clk
  assert.equal(a.clock, 'clock');
  assert.deepEqual(a.reset, { name: 'arst_n', activeLow: true, async: true });
  // `addr == AW'(LAST)`
  assert.ok(literalDetails(m).some((l) => l.subject === 'addr' && l.value === '11' && l.width === 4));
});

test('packed structs, unions, enums and typedefs from a package and the compilation unit', () => {
  const a = fixture('pkg_struct.sv');
  const m = mod(a, 'pkg_struct');
  assert.deepEqual(
    m.ports.map((p) => [p.name, p.width, p.type]),
    [
      ['clk', 1, 'logic'],
      ['rst_n', 1, 'logic'],
      ['req', 21, 'req_t'], // op 2 + addr 10 + data 8 + last 1
      ['req_q', 21, 'bus_pkg::req_t'],
      ['word', 16, 'bus_pkg::word_u'],
      ['op', 2, 'op_e'],
      ['tag', 5, 'unit_t'],
      ['addr', 10, 'logic'],
      ['flat', 21, 'logic'], // [$bits(req_t)-1:0]
    ],
  );
  assert.equal(port(m, 'req_q').unpacked, '[2]');
  assert.deepEqual(port(m, 'op').enumMembers, ['READ', 'WRITE', 'IDLE']);
  assert.deepEqual(a.reset, { name: 'rst_n', activeLow: true, async: false });
  // the case on a struct member knows the member's width and enum
  const c = m.cases?.[0];
  assert.equal(c?.subject, 'req.op');
  assert.equal(c?.subjectWidth, 2);
  assert.deepEqual(c?.enumMembers, ['READ', 'WRITE', 'IDLE']);
  assert.deepEqual(literalsOf(m), [0n, 1n]);
});

test('several modules: hierarchy, two top candidates, --top picks, clock and reset carried through instances', () => {
  const a = fixture('multi.sv');
  assert.deepEqual(
    a.modules.map((m) => m.name),
    ['core', 'chip', 'spare'],
  );
  assert.equal(a.top, null);
  assert.deepEqual(a.topCandidates, ['chip', 'spare']);
  assert.equal(a.clock, null);
  const chip = mod(a, 'chip');
  assert.deepEqual(
    chip.instances.map((i) => [i.module, i.name]),
    [
      ['core', 'lo'],
      ['core', 'hi'],
    ],
  );
  assert.deepEqual(chip.instances[0].connections?.[0], { port: 'ck', expr: 'sys_clk' });
  assert.deepEqual(chip.instances[1].connections?.[2], { port: null, expr: 'in[7:4]' });
  // chip has no always block: its clock and reset are what it wires into core
  assert.equal(chip.clock, 'sys_clk');
  assert.deepEqual(chip.reset, { name: 'sys_rst_n', activeLow: true, async: true });
  const core = mod(a, 'core');
  assert.equal(core.clock, 'ck', 'a negedge clock');
  assert.deepEqual(core.reset, { name: 'nrst', activeLow: true, async: true });

  const picked = fixture('multi.sv', 'chip');
  assert.equal(picked.top, 'chip');
  assert.equal(picked.clock, 'sys_clk');
  assert.deepEqual(picked.reset, { name: 'sys_rst_n', activeLow: true, async: true });
  assert.equal(fixture('multi.sv', 'nowhere').top, null, 'an unknown --top is not invented');
});

test('no clock: a combinational module has neither clock nor reset; casez wildcards are kept as masks', () => {
  const a = fixture('no_clock.sv');
  assert.equal(a.top, 'no_clock');
  assert.equal(a.clock, null);
  assert.equal(a.reset, null);
  const m = mod(a, 'no_clock');
  const items = literalDetails(m).filter((l) => l.kind === 'case_item');
  assert.deepEqual(
    items.map((l) => [l.value, l.wildcardMask]),
    [
      ['8', '7'],
      ['4', '3'],
      ['2', '1'],
      ['1', undefined],
    ],
  );
  assert.deepEqual(literalsOf(a, 'no_clock'), [1n, 2n, 4n, 8n, 200n, 224n]);
  // 4'b0000 has no item: the default runs
  assert.deepEqual(unreachableDefaults(a), []);
});

test('a casez whose wildcards cover every code makes its default unreachable', () => {
  const a = fixture('casez_full.sv');
  const u = unreachableDefaults(a);
  assert.equal(u.length, 1);
  assert.equal(u[0].line, 12);
  assert.equal(u[0].exhaustive, true);
  assert.equal(a.reset, null, 'no reset: the only if-free block has none');
});

test('`ifdef branches resolve as Verilator compiles them, keeping every line and column in place', () => {
  const a = fixture('ifdefs.sv');
  const m = mod(a, 'ifdefs');
  assert.deepEqual(
    m.ports.map((p) => `${p.name}[${p.width}]`),
    ['clk[1]', 'sim_only[1]', 'fast_en[1]', 'data[8]', 'q[8]'],
  );
  assert.equal(port(m, 'data').range.startLine, 22);
  assert.equal(port(m, 'data').range.startColumn, 3);
  assert.equal(m.sites[0].range.startLine, 25);
});

test('resolveConditionals blanks inactive code to spaces and leaves files without conditionals untouched', () => {
  const text = ['a', '`ifdef X', 'b', '`else', 'c', '`endif', 'd'].join('\n');
  const out = resolveConditionals(text, new Set());
  assert.equal(out.length, text.length);
  assert.deepEqual(
    out.split('\n').map((l) => l.trim()),
    ['a', '', '', '', 'c', '', 'd'],
  );
  assert.deepEqual(
    resolveConditionals(text, new Set(['X']))
      .split('\n')
      .map((l) => l.trim()),
    ['a', '', 'b', '', '', '', 'd'],
  );
  // nesting: an inner `else inside an inactive branch stays inactive
  const nested = ['`ifdef X', '`ifdef Y', 'xy', '`else', 'x', '`endif', '`else', 'none', '`endif'].join('\n');
  assert.deepEqual(
    resolveConditionals(nested, new Set())
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
    ['none'],
  );
  assert.deepEqual(
    resolveConditionals(nested, new Set(['X']))
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
    ['x'],
  );
  // a `define inside the file counts from there on; `undef removes it
  const defs = ['`define A', '`ifdef A', 'yes', '`endif', '`undef A', '`ifdef A', 'no', '`endif'].join('\n');
  assert.deepEqual(
    resolveConditionals(defs, new Set())
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
    ['`define A', 'yes', '`undef A'],
  );
  const plain = 'module m; endmodule\n';
  assert.equal(resolveConditionals(plain), plain);
});

test('literalsOf a named module includes what its instances compare against', () => {
  const text = [
    "module leaf(input logic [7:0] x, output logic y); assign y = (x == 8'd77); endmodule",
    'module wrap(input logic [7:0] a, output logic b); leaf u (.x(a), .y(b)); endmodule',
    "module other(input logic [3:0] z, output logic w); assign w = z > 4'd9; endmodule",
  ].join('\n');
  const a = analyzeSources([{ name: 'h.sv', content: text }]);
  assert.deepEqual(literalsOf(a, 'wrap'), [77n]);
  assert.deepEqual(literalsOf(mod(a, 'wrap')), [], 'a lone ModuleInfo is only itself');
  assert.deepEqual(literalsOf(a), [9n, 77n]);
});
