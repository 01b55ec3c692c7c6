/**
 * The gated-clock model's netlist rewrite (src/formal/gatedModel.ts): each register behind a recognised clock gate
 * moves onto the gate's input clock with the gate's free enable ANDed into its own, asynchronous controls untouched;
 * a register on the input clock or of a type not rewritten stays as it was. Yosys (0.55, in this process) then reads
 * the rewritten netlist and prepares it as the engine does, and `sat` shows the enable is free: a register behind
 * the gate can hold its value across an edge of the input clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gatedNetlist, gateEnableWire, GATED_PREP_SCRIPT } from '../../src/formal/gatedModel';
import { YosysWorker } from '../../src/formal/worker';

/** A flattened design as Yosys writes it before `async2sync`: a clock gate and registers of several types. */
function flat(): string {
  const cell = (type: string, name: string, params: [string, string][], ports: [string, string][]) => [
    '  attribute \\src "x.sv:1"',
    `  cell ${type} ${name}`,
    ...params.map(([k, v]) => `    parameter \\${k} ${v}`),
    ...ports.map(([k, v]) => `    connect \\${k} ${v}`),
    '  end',
  ];
  return [
    'attribute \\top 1',
    'module \\g',
    '  wire input 1 \\clk',
    '  wire input 2 \\en',
    '  wire input 3 \\rst_n',
    '  wire width 4 input 4 \\d',
    '  wire \\u.clk_en',
    '  wire \\u.clk_o',
    '  wire \\gclk',
    '  wire width 4 output 5 \\a',
    '  wire width 4 output 6 \\b',
    '  wire width 4 output 7 \\c',
    '  wire width 4 output 8 \\n',
    ...cell(
      '$dlatch',
      '$latch$1',
      [
        ['EN_POLARITY', "1'0"],
        ['WIDTH', '1'],
      ],
      [
        ['D', '\\en'],
        ['EN', '\\clk'],
        ['Q', '\\u.clk_en'],
      ],
    ),
    ...cell(
      '$and',
      '$and$2',
      [
        ['A_SIGNED', '0'],
        ['A_WIDTH', '1'],
        ['B_SIGNED', '0'],
        ['B_WIDTH', '1'],
        ['Y_WIDTH', '1'],
      ],
      [
        ['A', '\\clk'],
        ['B', '\\u.clk_en'],
        ['Y', '\\u.clk_o'],
      ],
    ),
    ...cell(
      '$dff',
      '$dff$3',
      [
        ['CLK_POLARITY', "1'1"],
        ['WIDTH', '4'],
      ],
      [
        ['CLK', '\\gclk'],
        ['D', '\\d'],
        ['Q', '\\a'],
      ],
    ),
    ...cell(
      '$adffe',
      '$adffe$4',
      [
        ['ARST_POLARITY', "1'0"],
        ['ARST_VALUE', "4'0000"],
        ['CLK_POLARITY', "1'1"],
        ['EN_POLARITY', "1'0"],
        ['WIDTH', '4'],
      ],
      [
        ['ARST', '\\rst_n'],
        ['CLK', '\\gclk'],
        ['D', '\\d'],
        ['EN', '\\en'],
        ['Q', '\\b'],
      ],
    ),
    ...cell(
      '$sdffe',
      '$sdffe$5',
      [
        ['CLK_POLARITY', "1'1"],
        ['EN_POLARITY', "1'1"],
        ['SRST_POLARITY', "1'0"],
        ['SRST_VALUE', "4'0011"],
        ['WIDTH', '4'],
      ],
      [
        ['CLK', '\\gclk'],
        ['D', '\\d'],
        ['EN', '\\en'],
        ['Q', '\\c'],
        ['SRST', '\\rst_n'],
      ],
    ),
    ...cell(
      '$dff',
      '$dff$6',
      [
        ['CLK_POLARITY', "1'1"],
        ['WIDTH', '4'],
      ],
      [
        ['CLK', '\\clk'],
        ['D', '\\a'],
        ['Q', '\\n'],
      ],
    ),
    '  connect \\gclk \\u.clk_o',
    'end',
    '',
  ].join('\n');
}

/** A cell block of the rewritten netlist by name: its type, parameters and connections. */
function cellOf(netlist: string, name: string) {
  const lines = netlist.split('\n');
  const at = lines.findIndex((l) => l.trim().startsWith('cell ') && l.trim().split(/\s+/)[2] === name);
  assert.ok(at >= 0, `no cell ${name}`);
  const end = lines.indexOf('  end', at);
  const body = lines.slice(at + 1, end).map((l) => l.trim().split(/\s+/));
  return {
    type: lines[at].trim().split(/\s+/)[1],
    params: new Map(body.filter((t) => t[0] === 'parameter').map((t) => [t[1].slice(1), t[2]])),
    ports: new Map(body.filter((t) => t[0] === 'connect').map((t) => [t[1].slice(1), t.slice(2).join(' ')])),
  };
}

const gate = { latch: '$latch$1', clock: '\\clk', outputs: ['\\u.clk_o'] };

test('registers behind a clock gate move onto its input clock with its free enable; the others stay', () => {
  const out = gatedNetlist(flat(), [gate]);
  assert.ok(out);
  assert.deepEqual(out.moved, [3]);
  const free = gateEnableWire(0);
  assert.match(out.netlist, new RegExp(`^  wire \\${free}$`, 'm'));
  // A plain register gets the free enable itself.
  const a = cellOf(out.netlist, '$dff$3');
  assert.equal(a.type, '$dffe');
  assert.equal(a.ports.get('CLK'), '\\clk');
  assert.equal(a.ports.get('EN'), free);
  assert.equal(a.params.get('EN_POLARITY'), "1'1");
  // An enabled one with an active-low enable: free & !en; its asynchronous reset is kept apart from the enable.
  const b = cellOf(out.netlist, '$adffe$4');
  assert.equal(b.type, '$adffe');
  assert.equal(b.ports.get('ARST'), '\\rst_n');
  assert.equal(b.params.get('EN_POLARITY'), "1'1");
  const and = out.netlist.split('\n').find((l) => l.includes(`connect \\Y ${b.ports.get('EN')}`));
  assert.ok(and, 'the enable of $adffe$4 is driven by a cell added for it');
  // A synchronous reset over the enable acts only at an edge the gate lets through: free & (en | reset).
  const c = cellOf(out.netlist, '$sdffe$5');
  assert.equal(c.type, '$sdffce');
  assert.notEqual(c.ports.get('EN'), '\\en');
  // The register on the input clock is untouched.
  const n = cellOf(out.netlist, '$dff$6');
  assert.equal(n.type, '$dff');
  assert.equal(n.ports.get('CLK'), '\\clk');
  assert.equal(n.ports.has('EN'), false);
  // No gate, or nothing behind one: no model.
  assert.equal(gatedNetlist(flat(), []), undefined);
  assert.equal(gatedNetlist(flat(), [{ ...gate, outputs: ['\\nowhere'] }]), undefined);
});

test('Yosys prepares the rewritten netlist, and the enable is free at every step', { timeout: 120_000 }, async () => {
  const out = gatedNetlist(flat(), [gate]);
  assert.ok(out);
  const worker = new YosysWorker({ signal: new AbortController().signal, deadlineMs: 100_000, memoryMb: 1024 });
  try {
    const prepared = await worker.run(['-q', '-p', GATED_PREP_SCRIPT], { 'gated_flat.il': out.netlist });
    assert.equal(prepared.code, 0, prepared.log);
    const netlist = prepared.files['gated.il'];
    assert.ok(netlist, prepared.log);
    // `a` follows `d` at every edge the gate lets through and holds otherwise: with the gate open at every edge,
    // `a` at step 2 would be `d` at step 1; a free enable lets `a` keep its start value 0 while `d` was 5.
    const held = await worker.run(
      [
        '-q',
        '-p',
        [
          'read_rtlil prepared.il',
          'setundef -undriven -anyseq',
          'tee -q -o held.log sat -seq 2 -set-init-zero -set-at 1 \\d 5 -prove-skip 1 -prove \\a 5',
          // The same with the gate open at every step: then `a` is loaded.
          `tee -q -o open.log sat -seq 2 -set-init-zero -set-at 1 \\d 5 -set ${gateEnableWire(0)} 1 -prove-skip 1 -prove \\a 5`,
        ].join('\n'),
      ],
      { 'prepared.il': netlist },
    );
    assert.match(
      held.files['held.log'] ?? held.log,
      /SAT proof finished - model found: FAIL/,
      'the enable is not free',
    );
    assert.match(held.files['open.log'] ?? held.log, /SAT proof finished - no model found: SUCCESS/);
  } finally {
    worker.close();
  }
});
