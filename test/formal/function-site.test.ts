/**
 * Which calls of a function a copy at the module's end can stand in for, read from the text alone (no Yosys): each
 * way a call's arguments can change after the call, or a call can hide, leaves the function's arms unmodelled with
 * why; a copy's added else binds to its own if.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeSources } from '../../src/hdl';
import { blankComments, functionCopy, functionSite, type FunctionSite } from '../../src/formal/functionArms';
import { sourceText } from '../../src/formal/siteText';

/** The function site for the first arm of `chk` in a module built around `body`. */
function siteOf(body: string, macroTexts: string[] = [], extra = ''): FunctionSite | string {
  const text = [
    'module m (input [3:0] a, input clk, output reg [3:0] y, output [3:0] w);',
    '  reg [3:0] t;',
    '  function automatic [3:0] chk(input [3:0] v);',
    "    if (v == 4'd9) chk = 4'd1;",
    "    else chk = 4'd0;",
    extra,
    '  endfunction',
    body,
    'endmodule',
    '',
  ].join('\n');
  const file = '/design/m.sv';
  const analysis = analyzeSources([{ name: file, content: text }], { top: 'm' });
  const mod = analysis.modules.find((x) => x.name === 'm');
  assert.ok(mod, 'module m is analysed');
  const src = sourceText(file, text);
  const at = text.indexOf("chk = 4'd1;");
  return functionSite(src, blankComments(text), mod, { start: at, end: at + 10 }, [text, ...macroTexts]);
}

const notModelled = (body: string, why: RegExp, macros?: string[], extra?: string) => {
  const site = siteOf(body, macros, extra);
  assert.equal(typeof site, 'string', `${body}: modelled as ${JSON.stringify(site)}`);
  assert.match(site as string, why, body);
};

test('a call is modelled when nothing after it changes what it read', () => {
  const site = siteOf('  always @* y = chk(a);\n  assign w = chk(chk(a));');
  assert.equal(typeof site, 'object', String(site));
  if (typeof site === 'string') return;
  // Three calls: the always block's, and both of the nested pair.
  assert.deepEqual(site.calls, ['a', 'chk(a)', 'a']);
  assert.equal(site.witness, undefined);
});

test('arguments a routine, a cast, a concatenation or a stream writes after the call are seen', () => {
  notModelled("  always @* begin y = chk(t); $cast(t, 4'd0); end", /reads 't'/);
  notModelled("  always @* begin y = chk(t); {y, {t}} = 8'd0; end", /reads 't'/);
  notModelled("  always @* begin y = chk(t); {>>{t}} = 4'd0; end", /reads 't'/);
  notModelled(
    '  task automatic put(output [3:0] o); o = 0; endtask\n  always @* begin y = chk(t); put(t); end',
    /reads 't'/,
  );
  notModelled('  always @* begin y = chk(t); t.x = 1; end', /reads 't'/);
  // A function that only reads its arguments writes nothing.
  assert.equal(typeof siteOf('  always @* begin y = chk(t); w2 = chk(t + 1); end\n  wire [3:0] w2;'), 'object');
});

test('a macro that may call the function, or one CHORUS cannot see, leaves the arms unmodelled', () => {
  notModelled('  `define C(x) chk(x)\n  assign w = `C(a);\n  always @* y = chk(a);', /macro `C mentions chk/);
  notModelled('  `define D(x) `E(x)\n  `define E(x) chk(x)\n  assign w = `D(a);', /macro `E mentions chk/);
  notModelled('  assign w = `NOWHERE(a);\n  always @* y = chk(a);', /`NOWHERE, whose definition CHORUS does not have/);
  // Defined in a header: seen, and harmless.
  assert.equal(typeof siteOf('  assign w = `WIDE(a);\n  always @* y = chk(a);', ['`define WIDE(x) (x)']), 'object');
});

test('calls in branches that may not be built, port connections and DPI prototypes are told apart', () => {
  notModelled('  localparam P = 0;\n  if (P) assign w = 0;\n  else assign w = chk(a);', /outside an always block/);
  // `.chk(a)` connects a port; the DPI import has no body of its own to merge with the function's.
  const site = siteOf('  import "DPI-C" function int ext(input int x);\n  sub u (.chk(a));\n  always @* y = chk(a);');
  assert.equal(typeof site, 'object', String(site));
  if (typeof site !== 'string') assert.deepEqual(site.calls, ['a']);
});

test('comments are blanked and strings kept', () => {
  assert.equal(blankComments('a = "/*"; // c\nb = 1; /* x */'), 'a = "/*";     \nb = 1;        ');
  assert.equal(blankComments('$display("//"); x = 1;'), '$display("//"); x = 1;');
});

test('an added else that ends where its enclosing arm ends binds to its own if', () => {
  const text = 'function automatic [1:0] g(input [3:0] v); g = 0; if (v[0]) if (v[1]) g = 1; endfunction';
  const outer = text.indexOf('if (v[1])');
  const end = text.indexOf('g = 1;') + 'g = 1;'.length;
  const fn: FunctionSite = {
    file: 'f.sv',
    module: 'm',
    name: 'g',
    start: 0,
    end: text.length,
    headerEnd: text.indexOf(';') + 1,
    ports: '(input [3:0] v)',
    valueType: 'logic [1:0]',
    calls: ['a'],
  };
  // The outer arm (`if (v[1]) g = 1;`) listed first, then the inner if's added else over the same text.
  const copy = functionCopy(fn, text, 'chorus_fn_0', [
    { start: outer, end, implicit: false },
    { start: outer, end, implicit: true },
  ]);
  assert.match(
    copy,
    /if \(v\[0\]\) begin chorus_ran\[0\] = 1'b1; begin if \(v\[1\]\) chorus_ret = 1; end else begin chorus_ran\[1\] = 1'b1; end end/,
  );
});

test('a routine the block calls, or the function itself, writing a module variable is seen', () => {
  notModelled(
    "  task automatic clr; t = 4'd0; endtask\n  always @* begin y = chk(t); clr(); end",
    /reads 't', which its always block writes/,
  );
  notModelled('  assign w = chk(a);', /its function writes 't', a variable of its module/, [], '    t = v;');
});
