/**
 * One bad instrumentation site costs its own point, never the design: macro-call arms wrapped whole, arms in a
 * generate for flagged per copy, a site Yosys rejects left out with Yosys' message while the rest is decided, a
 * design Yosys cannot read at all reported as such, and an asynchronous reset's branch never claimed unreachable.
 * Holes come from real Verilator runs; every proof is checked against a long random run (resets included).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeSources } from '../../src/hdl';
import type { TargetVerdict } from '../../src/engine';
import { instrument, isolateSites, isolationReads, prove } from '../../src/formal';
import { macroCallsAsStatements } from '../../src/formal/siteText';
import { decideChecked, fixture, hits, lineOf, measureTestbench, randomTestbench, services, topOf } from './support';
import { withSlang } from '../helpers/slang';

const decide = (name: string, top: string, cycles: number) => decideChecked(name, top, cycles, 3000);

const at = (verdicts: TargetVerdict[], line: number, comment?: string) =>
  verdicts.filter((v) => v.target.line === line && (comment === undefined || v.target.comment === comment));
const hit = hits;

test('a case arm that is a macro call is wrapped with its `;`, or without one', () => {
  const file = fixture('macro_arms.sv');
  const content = readFileSync(file, 'utf8');
  // As the engine reads it: a macro call with its `;` parsed as one statement, so an else after it is found.
  const analysis = analyzeSources([{ name: file, content: macroCallsAsStatements(content) }]);
  const t = (line: number, comment: string) => ({ file, line, column: 9, kind: 'line' as const, comment });
  const inst = instrument(
    analysis,
    [{ file, content }],
    [
      t(lineOf(file, "2'd0: `CHECK"), 'case'),
      t(lineOf(file, "2'd1: `SET_Q(a)"), 'case'),
      t(lineOf(file, 'default: `CHECK'), 'case'),
      { ...t(lineOf(file, 'if (b) `TWO(a)'), 'if'), column: 7 },
      { ...t(lineOf(file, 'if (a && !b) `SET_P'), 'if'), column: 7 },
      { ...t(lineOf(file, 'if (a && !b) `SET_P'), 'else'), column: 8 },
    ],
  );
  const text = inst.files.get(file)!;
  assert.match(text, /2'd0: begin chorus_flag_0 = 1'b1; `CHECK\(a \|\| b\); end\n/);
  assert.match(text, /2'd1: begin chorus_flag_1 = 1'b1; `SET_Q\(a\) end\n/);
  assert.match(text, /default: begin chorus_flag_2 = 1'b1; `CHECK\(a && !a\); end\n/);
  // A macro of two statements: only the first is the if's arm, so it is not wrapped.
  const two = inst.flags[3];
  assert.ok('reason' in two && /expands to several statements/.test(two.reason), JSON.stringify(two));
  assert.match(
    text,
    /if \(a && !b\) begin chorus_flag_3 = 1'b1; `SET_P\(1'b1\); end\n\s*else begin chorus_flag_4 = 1'b1; `SET_P\(1'b0\); end/,
  );
  assert.equal(text.split('\n').length, content.split('\n').length, 'lines kept');
});

test('an arm in a function is flagged through a copy of it, one in a task is unknown with why', () => {
  const file = '/virtual/routines.sv';
  const content = `module routines(input clk, input [1:0] a, output reg q, output reg r);
  function automatic f(input [1:0] x);
    if (x == 2'd3) f = 1'b1;
    else f = 1'b0;
  endfunction
  task automatic t(input y);
    if (y) r <= 1'b1;
  endtask
  always @(posedge clk) begin
    q <= f(a);
    if (a[1]) t(a[0]);
  end
endmodule
`;
  const analysis = analyzeSources([{ name: file, content }]);
  const t = (line: number, column: number) => ({ file, line, column, kind: 'branch' as const, comment: 'if' });
  const inst = instrument(analysis, [{ file, content }], [t(3, 5), t(7, 5), t(11, 5)]);
  const [fn, task, call] = inst.flags;
  assert.ok('flag' in fn && fn.noWitness === undefined, JSON.stringify(fn));
  // The copy returns one bit per flagged arm; the flag is that bit of the copy called with the call's arguments.
  const text = inst.files.get(file)!;
  assert.match(
    text,
    /function automatic bit \[0:0\] chorus_fn_0\(input \[1:0\] x\); bit \[0:0\] chorus_ran = 1'b0; logic chorus_ret;/,
  );
  assert.match(text, /if \(x == 2'd3\) begin chorus_ran\[0\] = 1'b1; chorus_ret = 1'b1; end/);
  assert.match(
    text,
    new RegExp(
      `wire \\[0:0\\] chorus_fncall_0_0 = chorus_fn_0\\(a\\); \\(\\* keep \\*\\) wire ${fn.flag} = chorus_fncall_0_0\\[0\\];`,
    ),
  );
  assert.equal(text.split('\n').length, content.split('\n').length, "lines stay the source's");
  assert.ok(
    'reason' in task && /in a task: a flag set there would be driven by every always block/.test(task.reason),
    JSON.stringify(task),
  );
  assert.ok('flag' in call, JSON.stringify(call));
});

test(
  'macro-call arms are decided: the unreachable default proven, the others witnessed',
  { timeout: 300_000 },
  async () => {
    const { file, result } = await decide('macro_arms.sv', 'macro_arms', 3);
    assert.equal(result.failure, undefined, result.failure);
    const dflt = at(result.verdicts, lineOf(file, 'default: `CHECK'), 'case');
    assert.equal(dflt.length, 1, JSON.stringify(result.verdicts.map((v) => v.target)));
    assert.equal(dflt[0].verdict.status, 'unreachable', JSON.stringify(dflt[0].verdict));
    for (const v of result.verdicts) {
      // Verilator puts the branch points of an `if` a macro expands to on the call's line: no arm in the source.
      if (v.target.kind === 'branch' && /`CHECK/.test(readFileSync(file, 'utf8').split('\n')[v.target.line - 1]))
        assert.equal(v.verdict.status, 'unknown');
      else if (v.target.line === lineOf(file, 'if (b) `TWO(a)'))
        assert.match(JSON.stringify(v.verdict), /several statements/);
      else assert.notEqual(v.verdict.status, 'unknown', `line ${v.target.line}: ${JSON.stringify(v.verdict)}`);
    }
  },
);

test(
  'generate regions: in a for, an arm one lane runs is not proven and one no lane runs is; a case in a generate if',
  { timeout: 300_000 },
  async () => {
    const file = fixture('gen_lanes.sv');
    const content = readFileSync(file, 'utf8');
    const mod = topOf([{ file, content }], 'gen_lanes');
    const long = await measureTestbench([file], 'gen_lanes', randomTestbench(mod, 3000, 11));
    const lines = [
      lineOf(file, 'if (a[i] && i == N - 1)'),
      lineOf(file, 'if (a[i] && i >= N)'),
      lineOf(file, "2'b11: w <= 2'd3;"),
      lineOf(file, "2'b10: w <= 2'd2;"),
    ];
    // Every if point of the two lines, covered or not: Verilator sums the lanes into one point.
    const targets = long
      .filter((p) => lines.includes(p.line) && (p.comment === 'if' || p.comment === 'case'))
      .map((p) => ({
        file,
        line: p.line,
        column: p.column,
        kind: p.kind as 'line' | 'branch',
        comment: p.comment,
        instance: '',
      }));
    assert.equal(targets.length, 4, JSON.stringify(long.filter((p) => lines.includes(p.line))));
    const r = await prove({ sources: [{ file, content }], top: 'gen_lanes', targets }, services());
    const [one, none, both, last] = lines.map((l) => r.verdicts.find((v) => v.target.line === l)!);
    // One flag per lane: the last lane's copy is reached (a flag shared by the copies let one hide the other).
    assert.equal(one.verdict.status, 'witness', JSON.stringify(one.verdict));
    assert.ok(hit(long, one), "the long run reaches the last lane's arm");
    assert.equal(none.verdict.status, 'unreachable', JSON.stringify(none.verdict));
    assert.ok(!hit(long, none), 'the arm no lane runs is hit');
    // A case in a generate if: the pattern with lane 0's bit set is never reached, the other is.
    assert.equal(both.verdict.status, 'unreachable', JSON.stringify(both.verdict));
    assert.ok(!hit(long, both), "q == 2'b11 is hit");
    assert.equal(last.verdict.status, 'witness', JSON.stringify(last.verdict));
  },
);

test(
  'a site Yosys 0.55 rejects is left out with its message; the other points are decided',
  { timeout: 300_000 },
  async () => {
    const file = fixture('rejected_site.sv');
    const content = readFileSync(file, 'utf8');
    const t = (line: number, column: number, comment: string) => ({
      file,
      line,
      column,
      kind: 'branch' as const,
      comment,
    });
    const latch = lineOf(file, 'if (en) l = d;');
    const sync = lineOf(file, "if (d == 2'd3) r <= 2'd1;");
    const never = lineOf(file, "if (r == 2'd2 && d == 2'd3 && r != 2'd2)");
    const targets = [
      t(latch, 5, 'if'),
      t(latch, 6, 'else'),
      t(sync, 5, 'if'),
      t(sync, 6, 'else'),
      t(never, 5, 'if'),
      t(never, 6, 'else'),
    ];
    // The 0.55 front end, which rejects the latch arm's flag (slang reads it).
    const r = await withSlang('0', () =>
      prove({ sources: [{ file, content }], top: 'rejected_site', targets }, services()),
    );
    assert.equal(r.failure, undefined, r.failure);
    const [li, le, si, se, ni, ne] = r.verdicts.map((v) => v.verdict);
    for (const v of [li, le])
      assert.ok(
        v.status === 'unknown' && /^could not be instrumented: .*always_latch/.test(v.reason),
        JSON.stringify(v),
      );
    for (const v of [si, se, ne]) assert.equal(v.status, 'witness', JSON.stringify(v));
    assert.equal(ni.status, 'unreachable', JSON.stringify(ni));
    assert.ok(r.isolation, 'the search ran');
    // Yosys names each rejected flag: the first read, one without the first named, one without both.
    assert.equal(r.isolation.reads, 3, JSON.stringify(r.isolation));
    assert.equal(r.isolation.dropped, 2);
    // The proof holds in simulation.
    const mod = topOf([{ file, content }], 'rejected_site');
    const long = await measureTestbench([file], 'rejected_site', randomTestbench(mod, 3000, 11));
    assert.ok(!long.some((p) => p.line === never && p.comment === 'if' && p.count > 0));
  },
);

test('a design Yosys 0.55 cannot read itself: every point unknown with its message, not a site', async () => {
  const file = '/virtual/unreadable.sv';
  const content = `package p; localparam int W = 2; endpackage
module unreadable import p::*; (input clk, input [W-1:0] d, output reg q);
  always @(posedge clk)
    if (d == 2'd3) q <= 1'b1;
    else q <= 1'b0;
endmodule
`;
  const t = (column: number, comment: string) => ({ file, line: 4, column, kind: 'branch' as const, comment });
  // The 0.55 front end stops at the package import in the header (slang reads it).
  const r = await withSlang('0', () =>
    prove({ sources: [{ file, content }], top: 'unreadable', targets: [t(5, 'if'), t(6, 'else')] }, services()),
  );
  assert.match(r.failure ?? '', /^Yosys could not read the design: .*unreadable\.sv:2: .*syntax error/);
  for (const v of r.verdicts) assert.deepEqual(v.verdict, { status: 'unknown', reason: r.failure });
});

test('the search for rejected sites: one bad site among many found in few reads, several bad within the bound', async () => {
  const all = Array.from({ length: 64 }, (_, i) => `f${i}`);
  const run = async (bad: Set<string>, lineHint: boolean) => {
    let reads = 0;
    const fail = (set: ReadonlySet<string>) => [...set].find((f) => bad.has(f));
    const read = async (set: ReadonlySet<string>) => {
      reads++;
      const b = fail(set);
      return b === undefined
        ? { code: 0, log: '', files: { 'prepared.il': 'netlist' } }
        : { code: 1, log: `x.sv:${b.slice(1)}: ERROR: syntax error`, files: {} };
    };
    const first = await read(new Set(all));
    const found = await isolateSites(
      all,
      first,
      read,
      (log) => (lineHint ? [`f${/:(\d+):/.exec(log)?.[1]}`] : []),
      (log) => log,
    );
    assert.ok(!('failure' in found));
    return { found, reads };
  };
  const budget = 2 + isolationReads(all.length);
  for (const hint of [true, false]) {
    const one = await run(new Set(['f37']), hint);
    assert.deepEqual([...one.found.dropped.keys()], ['f37']);
    assert.equal(one.found.enabled.size, 63);
    // Named: the first read and one without it; halving: about log2(64) + 2.
    assert.ok(one.reads <= (hint ? 2 : 9), `${one.reads} reads`);
    const three = await run(new Set(['f3', 'f30', 'f60']), hint);
    assert.ok(three.reads <= budget, `${three.reads} reads`);
    // Everything kept was read whole; every bad site is left out (with others, when the bound is reached).
    for (const b of ['f3', 'f30', 'f60']) assert.ok(three.found.dropped.has(b) && !three.found.enabled.has(b));
    // Named, exactly the three; by halving alone the bound is reached first and sites not yet cleared go too.
    if (hint) assert.equal(three.found.dropped.size, 3, [...three.found.dropped.keys()].join(' '));
  }
  // Past its time the search starts no read: what is not cleared is left out, with why.
  const late = await isolateSites(
    all,
    { code: 1, log: 'ERROR: x', files: {} },
    async (set) =>
      set.size ? { code: 1, log: 'ERROR: x', files: {} } : { code: 0, log: '', files: { 'prepared.il': 'n' } },
    () => [],
    (log) => log,
    0,
  );
  assert.ok(
    !('failure' in late) && late.reads === 2 && late.dropped.size === 64,
    JSON.stringify(!('failure' in late) && late.reads),
  );
  assert.match([...late.dropped.values()][0], /stopped after 2 reads/);
});

test(
  'an asynchronous reset: the arm inside its reset branch, which simulation reaches at the reset edge, is never proven',
  { timeout: 300_000 },
  async () => {
    const { file, result, long } = await decide('async_reset.sv', 'async_reset', 3);
    const inReset = lineOf(file, "if (cnt != 4'd0) begin end");
    const vs = at(result.verdicts, inReset);
    assert.ok(vs.length, JSON.stringify(result.verdicts.map((v) => v.target)));
    for (const v of vs)
      assert.ok(
        v.verdict.status === 'unknown' && /asynchronous reset branch/.test(v.verdict.reason),
        JSON.stringify(v.verdict),
      );
    // Random resets (1 cycle in 64) reach the arm: the count is rarely 0 when the reset falls.
    assert.ok(
      long.some((p) => p.line === inReset && p.comment === 'if' && p.count > 0),
      'simulation reaches the arm inside the reset branch',
    );
    // Outside the reset branch the model is exact: the count never reaches 12 (checked against the long run).
    const twelve = at(result.verdicts, lineOf(file, "if (cnt == 4'd12)"), 'if');
    assert.equal(twelve.length, 1);
    assert.equal(twelve[0].verdict.status, 'unreachable', JSON.stringify(twelve[0].verdict));
  },
);
