/**
 * Code a parameter disables, as real IP has it (verilog-axis' axis_arb_mux and axis_fifo): configuration checks in
 * an initial block, arms behind a parameter in always blocks, and a design whose 4096-entry memory would be 32k
 * register bits once mapped. Holes come from a real Verilator run of random stimulus; every proof is checked
 * against a longer random simulation, which must never hit a proven point.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { provePoints, type TargetVerdict } from '../../src/engine';
import { analyzeSources } from '../../src/hdl';
import { instrument, prove } from '../../src/formal';
import { repoRoot } from '../helpers/cli';
import { measureTestbench, randomTestbench, replayTestbench, samePoint, services, topOf } from './support';

const fixture = (name: string) => join(repoRoot, 'test', 'fixtures', 'formal', name);
const lineOf = (file: string, text: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text)) + 1;

/** Holes of a short random run and their verdicts; then a longer run with another seed must hit no proven point. */
async function provenNeverHit(name: string, top: string) {
  const file = fixture(name);
  const mod = topOf([{ file, content: readFileSync(file, 'utf8') }], top);
  const points = await measureTestbench([file], top, randomTestbench(mod, 200, 7));
  // The formal stage's largest run bound: a netlist with the memory mapped would not be ready within it on a loaded machine.
  const result = await provePoints(
    points,
    { rtlFiles: [file], top },
    { timeoutSeconds: 60, pointTimeoutSeconds: 5, maxDepth: 8 },
    services(),
  );
  const long = await measureTestbench([file], top, randomTestbench(mod, 3000, 11));
  for (const v of result.verdicts.filter((x) => x.verdict.status === 'unreachable')) {
    assert.ok(
      !long.some((p) => samePoint(v.target, p) && p.count > 0),
      `line ${v.target.line} (${v.target.comment}) is proven unreachable but random stimulus hits it`,
    );
  }
  return { file, mod, points, result };
}

const holesAt = (verdicts: TargetVerdict[]) => verdicts.map((v) => `${v.target.line} ${v.target.comment}`).sort();

test(
  'an initial block of parameter checks, a generate arm not elaborated, always arms behind a parameter: every hole proven',
  { timeout: 240_000 },
  async () => {
    const { file, points, result } = await provenNeverHit('paramcheck.sv', 'paramcheck');
    const modeIf = lineOf(file, 'if (MODE) begin');
    // Verilator counts no point in the arm it did not elaborate (g_slow) and none in an arm that ends in $finish.
    const slow = [lineOf(file, 'if (rst) r <= 0;'), lineOf(file, "else r <= d + 1'b1;")];
    assert.ok(!points.some((p) => slow.includes(p.line)), JSON.stringify(points.filter((p) => slow.includes(p.line))));
    assert.deepEqual(
      holesAt(result.verdicts),
      [
        `${modeIf} if`,
        `${lineOf(file, 'if (!ID_ENABLE) begin')} else`,
        `${lineOf(file, 'if (WIDTH < LOG + 4) begin')} else`,
        `${lineOf(file, 'else if (MODE) q <= d ^ q;')} if`,
      ].sort(),
    );
    for (const v of result.verdicts)
      assert.equal(
        v.verdict.status,
        'unreachable',
        `${v.target.line} ${v.target.comment}: ${JSON.stringify(v.verdict)}`,
      );
  },
);

test(
  'an initial-block arm is flagged by its parameter conditions only, and decided with the run parameters',
  { timeout: 120_000 },
  async () => {
    const file = fixture('paramcheck.sv');
    const content = readFileSync(file, 'utf8');
    const analysis = analyzeSources([{ name: file, content }], { top: 'paramcheck' });
    const elseOfId = {
      file,
      line: lineOf(file, 'if (!ID_ENABLE) begin'),
      column: 8,
      kind: 'line' as const,
      comment: 'else',
    };
    const inst = instrument(analysis, [{ file, content }], [elseOfId]);
    assert.match(
      inst.files.get(file)!,
      /\(\* keep \*\) wire chorus_flag_0 = \(\(!ID_ENABLE\) \? 1'b0 : 1'b1\) & \(\(MODE\) \? 1'b1 : 1'b0\);/,
    );
    // With the checks enabled the arm runs at time zero: never claimed unreachable.
    const on = await prove(
      {
        sources: [{ file, content }],
        top: 'paramcheck',
        targets: [elseOfId],
        parameters: { MODE: '1', ID_ENABLE: '1' },
      },
      services(),
    );
    assert.notEqual(on.verdicts[0].verdict.status, 'unreachable', JSON.stringify(on.verdicts[0].verdict));
    // A check that fails with the run's parameters ($error, $finish) does not stop Yosys reading the design.
    assert.doesNotMatch(inst.files.get(file)!, /\$error|\$finish/);
    assert.equal(
      inst.files.get(file)!.split('\n').length,
      content.split('\n').length,
      'lines kept (the flag is declared on the line of `endmodule`)',
    );
    const modeArm = {
      file,
      line: lineOf(file, 'else if (MODE) q <= d ^ q;'),
      column: 10,
      kind: 'line' as const,
      comment: 'if',
    };
    const failing = await prove(
      { sources: [{ file, content }], top: 'paramcheck', targets: [modeArm], parameters: { MODE: '1' } },
      services(),
    );
    assert.equal(failing.failure, undefined, failing.failure);
    assert.equal(failing.verdicts[0].verdict.status, 'witness', JSON.stringify(failing.verdicts[0].verdict));
    // A condition that reads a signal is left out of the flag; with nothing else on the path there is no flag.
    const signal = content.replace('if (MODE) begin', 'if (rst) begin');
    const a2 = analyzeSources([{ name: file, content: signal }], { top: 'paramcheck' });
    const f2 = instrument(
      a2,
      [{ file, content: signal }],
      [elseOfId, { ...elseOfId, line: lineOf(file, 'if (MODE) begin'), column: 5, kind: 'branch', comment: 'if' }],
    );
    assert.match(f2.files.get(file)!, /wire chorus_flag_0 = \(\(!ID_ENABLE\) \? 1'b0 : 1'b1\);/);
    assert.ok(
      'reason' in f2.flags[1] && /no condition on its path reads only parameters/.test(f2.flags[1].reason),
      JSON.stringify(f2.flags[1]),
    );
    // A variable the block declares with a parameter's name is not that parameter.
    const shadow = content.replace('  initial begin\n', '  initial begin : chk\n    integer MODE;\n');
    const a4 = analyzeSources([{ name: file, content: shadow }], { top: 'paramcheck' });
    const f4 = instrument(a4, [{ file, content: shadow }], [{ ...elseOfId, line: elseOfId.line + 1 }]);
    assert.match(f4.files.get(file)!, /wire chorus_flag_0 = \(\(!ID_ENABLE\) \? 1'b0 : 1'b1\);/);
    // An initial block inside a generate region is not modelled (its names may be the region's).
    const nested = content
      .replace('  initial begin', '  if (1) begin : g_check initial begin')
      .replace('  generate\n', '  end\n  generate\n');
    const a3 = analyzeSources([{ name: file, content: nested }], { top: 'paramcheck' });
    const f3 = instrument(
      a3,
      [{ file, content: nested }],
      [{ ...elseOfId, line: lineOf(file, 'if (!ID_ENABLE) begin') }],
    );
    assert.ok('reason' in f3.flags[0], JSON.stringify(f3.flags[0]));
  },
);

test(
  'a 4096-entry memory: parameter-disabled arms proven without mapping the memory; a flag reading memory data maps it',
  { timeout: 240_000 },
  async () => {
    const { file, mod, result } = await provenNeverHit('bigmem.sv', 'bigmem');
    const disabled = [
      `${lineOf(file, 'if (FRAME_MODE) begin')} if`,
      `${lineOf(file, "if (wr_data == 8'h00) marked <= 1'b1;")} if`,
      `${lineOf(file, "if (wr_data == 8'h00) marked <= 1'b1;")} else`,
      `${lineOf(file, "if (MARK && marked) full = 1'b1;")} if`,
    ];
    assert.deepEqual(holesAt(result.verdicts), disabled.sort());
    for (const v of result.verdicts)
      assert.equal(
        v.verdict.status,
        'unreachable',
        `${v.target.line} ${v.target.comment}: ${JSON.stringify(v.verdict)}`,
      );
    // The arm behind the memory's read data (a small memory here): decided on the mapped netlist, and its witness
    // replays in Verilator.
    const content = readFileSync(file, 'utf8').replace('parameter DEPTH = 4096', 'parameter DEPTH = 8');
    const line = lineOf(file, "else if (rd_data == 8'hA5) seen_a5 <= 1'b1;");
    const target = { file, line, column: 10, kind: 'branch' as const, comment: 'if' };
    const r = await prove(
      { sources: [{ file, content }], top: 'bigmem', targets: [target], runTimeoutSeconds: 120 },
      services(),
    );
    const v = r.verdicts[0].verdict;
    assert.equal(v.status, 'witness', JSON.stringify(v));
    if (v.status !== 'witness') return;
    const replay = await measureTestbench(
      [file],
      'bigmem',
      replayTestbench(mod, v.witness).replace('bigmem uut (', 'bigmem #(.DEPTH(8)) uut ('),
    );
    assert.ok(
      replay.some((p) => samePoint(target, p) && p.count > 0),
      'the witness does not hit the arm in Verilator',
    );
  },
);
