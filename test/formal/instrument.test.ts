/** The instrumented copy: one flag per arm in exactly that arm, x compares rewritten; and the engine's bounds. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeSources } from '../../src/hdl';
import { instrument, prove, rewriteXCompares, type FormalTarget } from '../../src/formal';
import { ChorusError } from '../../src/protocol';

const file = '/virtual/arms.sv';
const source = `module arms(input clk, input a, input b, input [1:0] s, output reg q, output reg r);
  always @(posedge clk)
    if (a) q <= 1'b1;
    else if (b) q <= 1'b0;
  always @* begin
    case (s)
      2'd0: r = a;
      2'd1:
        r = b;
      default: r = 1'b0;
    endcase
    if (a) r = ~r; // no else written
  end
endmodule
`;

const t = (line: number, column: number, kind: 'line' | 'branch', comment: string): FormalTarget => ({
  file,
  line,
  column,
  kind,
  comment,
});

test('each point gets a flag in exactly its arm; an else that is not written is added', () => {
  const analysis = analyzeSources([{ name: file, content: source }]);
  const targets = [
    t(3, 5, 'branch', 'if'),
    t(3, 6, 'branch', 'else'),
    t(4, 10, 'branch', 'else'),
    t(8, 7, 'line', 'case'),
    t(10, 7, 'line', 'case'),
    t(12, 6, 'branch', 'else'),
  ];
  const inst = instrument(analysis, [{ file, content: source }], targets);
  const flags = inst.flags.map((f) => ('flag' in f ? f.flag : f.reason));
  assert.deepEqual(flags, [
    'chorus_flag_0',
    'chorus_flag_1',
    'chorus_flag_2',
    'chorus_flag_3',
    'chorus_flag_4',
    'chorus_flag_5',
  ]);
  const text = inst.files.get(file)!;
  // The if arm, the else of `if (a)` (the whole else-if chain), the implicit else of `else if (b)`.
  assert.match(text, /if \(a\) begin chorus_flag_0 = 1'b1; q <= 1'b1; end/);
  assert.match(
    text,
    /else begin chorus_flag_1 = 1'b1; if \(b\) begin q <= 1'b0; end else begin chorus_flag_2 = 1'b1; end end/,
  );
  assert.match(text, /2'd1:\n\s+begin chorus_flag_3 = 1'b1; r = b; end/);
  assert.match(text, /default: begin chorus_flag_4 = 1'b1; r = 1'b0; end/);
  assert.match(text, /if \(a\) begin r = ~r; end else begin chorus_flag_5 = 1'b1; end/);
  // Flags start each run of their always block cleared, and are declared kept.
  assert.match(
    text,
    /always @\(posedge clk\)\s*begin chorus_flag_0 = 1'b0; chorus_flag_1 = 1'b0; chorus_flag_2 = 1'b0; if \(a\)/,
  );
  assert.match(text, /always @\* begin chorus_flag_3 = 1'b0; chorus_flag_4 = 1'b0; chorus_flag_5 = 1'b0; begin/);
  assert.match(text, /\(\* keep \*\) reg chorus_flag_5; endmodule/);
  // The copy still parses.
  assert.deepEqual(analyzeSources([{ name: file, content: text }]).errors, []);
});

test('a point with no arm to flag says why', () => {
  const analysis = analyzeSources([{ name: file, content: source }]);
  const inst = instrument(analysis, [{ file, content: source }], [t(2, 3, 'line', 'toggle'), t(99, 1, 'line', 'if')]);
  assert.ok(inst.flags.every((f) => 'reason' in f));
});

test('x compares become what two-state simulation decides', () => {
  assert.equal(rewriteXCompares("if (d === 1'bx)"), "if (d === {1'b1, 1024'b0})");
  assert.equal(rewriteXCompares("if (2'bx1 !== s)"), "if ({1'b1, 1024'b0} !== s)");
  assert.equal(rewriteXCompares("if (|state === 'x)"), "if (|state === {1'b1, 1024'b0})");
  // Compares without x bits and plain equality are left alone.
  assert.equal(rewriteXCompares("if (d === 1'b1 || e == 4'hx)"), "if (d === 1'b1 || e == 4'hx)");
});

test('an unreadable design: every point unknown with Yosys’ message', { timeout: 120_000 }, async () => {
  const bad = `module bad(input clk, input a, output reg q);
  always @(posedge clk) if (a) q <= missing_function(a); else q <= 1'b0;
endmodule
`;
  const r = await prove(
    { sources: [{ file, content: bad }], top: 'bad', targets: [t(2, 25, 'branch', 'if')] },
    { signal: new AbortController().signal },
  );
  assert.equal(r.verdicts[0].verdict.status, 'unknown');
  assert.match(r.failure ?? '', /Yosys could not read the design: \/virtual\/arms\.sv:2: .*missing_function/);
});

test('cancel stops Yosys at once', { timeout: 120_000 }, async () => {
  const controller = new AbortController();
  const started = Date.now();
  const run = prove(
    { sources: [{ file, content: source }], top: 'arms', targets: [t(3, 5, 'branch', 'if')] },
    { signal: controller.signal },
  );
  setTimeout(() => controller.abort(), 200);
  await assert.rejects(run, (e: unknown) => e instanceof ChorusError && e.kind === 'cancelled');
  assert.ok(Date.now() - started < 30_000);
});

test('a case item whose labels run over several lines is found by its colon, where Verilator puts its point', () => {
  const multi = '/virtual/multi_label.sv';
  const text = `module multi_label(input [2:0] op, input a, output reg q, output reg w);
  always @* begin
    q = 1'b0;
    w = 1'b0;
    case (op)
      3'd0: q = a;
      3'd1,
      3'd2,
      3'd3: begin
        w = 1'b1;
      end
      3'd4,
      3'd5: q = ~a;
      default: q = 1'b1;
    endcase
  end
endmodule
`;
  const analysis = analyzeSources([{ name: multi, content: text }]);
  // Verilator's points of the two multi-label items: the last label's line, the colon's column.
  const targets: FormalTarget[] = [
    { file: multi, line: 9, column: 11, kind: 'line', comment: 'case' },
    { file: multi, line: 13, column: 11, kind: 'line', comment: 'case' },
  ];
  const inst = instrument(analysis, [{ file: multi, content: text }], targets);
  assert.deepEqual(
    inst.flags.map((f) => ('flag' in f ? f.flag : f.reason)),
    ['chorus_flag_0', 'chorus_flag_1'],
  );
  const out = inst.files.get(multi)!;
  assert.match(out, /3'd3: begin chorus_flag_0 = 1'b1; begin\n\s+w = 1'b1;\n\s+end end/);
  assert.match(out, /3'd5: begin chorus_flag_1 = 1'b1; q = ~a; end/);
});
