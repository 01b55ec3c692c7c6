// The sandbox check against real Verilator (5.006, and 5.050 in the version matrix): the FIELD-NOTES attacks and
// their variants are rejected with the file:line of the ORIGINAL source, nothing they would run has run, and clean testbenches pass.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChorusError } from '../../src/protocol';
import {
  checkTestbench,
  formatViolations,
  preprocessTestbench,
  rejectionError,
  violationDiagnostics,
  type SandboxViolation,
} from '../../src/sim/sandbox';
import { currentVerilator } from '../helpers/verilators';

// The Verilator under test (scripts/test.mjs runs this file on each one).
const verilatorPath = currentVerilator().path;
let root: string; // holds the workspace and, beside it, files outside it
let ws: string;

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'chorus-sandbox-check-')));
  ws = join(root, 'ws');
  mkdirSync(ws);
});
after(() => rmSync(root, { recursive: true, force: true }));

let counter = 0;
/** Writes a testbench into the workspace and returns its path and a marker path an attack would create. */
function tb(body: (marker: string) => string, name = `tb_${++counter}.sv`): { path: string; marker: string } {
  const marker = join(root, `pwned_${counter}`);
  const path = join(ws, name);
  writeFileSync(path, body(marker));
  return { path, marker };
}

function check(
  path: string,
  opts: { includeDirs?: string[]; workspaceRoot?: string } = {},
): Promise<SandboxViolation[]> {
  return checkTestbench(path, {
    verilatorPath,
    workspaceRoot: opts.workspaceRoot ?? ws,
    includeDirs: opts.includeDirs,
  });
}

/** Asserts exactly the expected (rule, file, line) findings, in order. */
function assertFindings(got: SandboxViolation[], want: Array<[rule: string, file: string, line: number]>): void {
  assert.deepEqual(
    got.map((v) => [v.rule, v.file, v.line]),
    want,
    formatViolations(got),
  );
  for (const v of got) assert.ok(v.message.length > 10 && v.column >= 1, `message and column: ${JSON.stringify(v)}`);
}

test('FIELD-NOTES attack 1: $system built by macro token pasting is rejected at the line of use', async () => {
  const { path, marker } = tb(
    (m) => `\`define S(x) $sys\`\`x
module tb;
  initial begin
    \`S(tem)("touch ${m}");
    $finish;
  end
endmodule
`,
  );
  assertFindings(await check(path), [['system-task', path, 4]]);
  assert.equal(existsSync(marker), false);
});

test('FIELD-NOTES attack 2: a DPI import of libc system is rejected', async () => {
  const { path, marker } = tb(
    (m) => `module tb;
  import "DPI-C" function int system(input string c);
  initial begin
    void'(system("touch ${m}"));
    $finish;
  end
endmodule
`,
  );
  assertFindings(await check(path), [['dpi', path, 2]]);
  assert.equal(existsSync(marker), false);
});

test('variants: `define indirection, pasting with two arguments, pasted keyword, DPI spec from a macro, export', async () => {
  const { path, marker } = tb(
    (m) => `\`define RUN $system
\`define CMD \`RUN
\`define CAT(a, b) a\`\`b
\`define K(a) a\`\`port
\`define SPEC "DPI-C"
module tb;
  \`K(im) "DPI-C" function int system(input string c);
  import \`SPEC function int popen(input string c, input string m);
  export /* hidden */ "DPI-C" task t;
  task t; endtask
  initial begin
    \`CMD("touch ${m}");
    \`CAT($sys, tem)("touch ${m}");
  end
endmodule
`,
  );
  assertFindings(await check(path), [
    ['dpi', path, 7],
    ['dpi', path, 8],
    ['dpi', path, 9],
    ['system-task', path, 12],
    ['system-task', path, 13],
  ]);
  assert.equal(existsSync(marker), false);
});

test('an attack macro defined in an included header is reported where it is used, a bad header line in the header', async () => {
  const header = join(ws, 'evil.svh');
  writeFileSync(header, '// helpers\n`define SH(c) $sys``tem(c)\n/*verilator sc_bv*/\n');
  const { path, marker } = tb(
    (m) => `\`include "evil.svh"
module tb;
  initial \`SH("touch ${m}");
endmodule
`,
  );
  assertFindings(await check(path), [
    ['metacomment', header, 3],
    ['system-task', path, 3],
  ]);
  assert.equal(existsSync(marker), false);
});

test('code hidden behind `ifdef VERILATOR_TIMING is checked as the --timing build sees it', async () => {
  const { path, marker } = tb(
    (m) => `module tb;
\`ifdef VERILATOR_TIMING
  initial $system("touch ${m}");
\`else
  initial $display("no timing");
\`endif
\`ifndef VERILATOR_TIMING
  initial $fwrite(1, "x");
\`endif
endmodule
`,
  );
  assertFindings(await check(path), [['system-task', path, 3]]);
  const noTiming = await checkTestbench(path, { verilatorPath, preprocessArgs: ['--no-timing', '-DEXTRA=1'] });
  assert.deepEqual(
    noTiming.map((v) => [v.rule, v.line]),
    [['file-output', 8]],
  );
  assert.equal(existsSync(marker), false);
});

test('embedded C++ is rejected: $c, sized $c32 and `systemc_ blocks', async () => {
  const { path, marker } = tb(
    (m) => `module tb;
  initial begin
    $c("system(\\"touch ${m}\\");");
    if ($c32("1") != 0) $finish;
  end
\`systemc_implementation
#include <cstdlib>
static int x = std::system("touch ${m}");
\`verilog
endmodule
`,
  );
  const got = await check(path);
  assertFindings(got, [
    ['embedded-cpp', path, 3],
    ['embedded-cpp', path, 4],
    ['embedded-cpp', path, 6],
    ['directive', path, 9],
  ]);
  assert.equal(existsSync(marker), false);
});

test('includes of /etc/passwd, of a file outside the workspace, through a symlink or a macro are rejected unread', async () => {
  const outside = join(root, 'outside.svh');
  writeFileSync(outside, '`define X 1\n');
  symlinkSync(outside, join(ws, 'link.svh'));
  const cases: Array<[string, string]> = [
    ['`include "/etc/passwd"\n', 'include-outside-workspace'],
    ['`include "../outside.svh"\n', 'include-outside-workspace'],
    ['`include "link.svh"\n', 'include-outside-workspace'],
    ['`include "/dev/zero"\n', 'include-outside-workspace'],
    ['`define F "/etc/passwd"\n`include `F\n', 'include-macro'],
  ];
  for (const [head, rule] of cases) {
    const { path } = tb(() => `${head}module tb; endmodule\n`);
    const line = head.split('\n').length - 1;
    const got = await check(path);
    assertFindings(got, [[rule, path, line]]);
  }
});

test('a nested include of a file outside the workspace is rejected where the inner header includes it', async () => {
  const inner = join(ws, 'inner.svh');
  writeFileSync(inner, '// inner\n`include "/etc/hostname"\n');
  const { path } = tb(() => '`include "inner.svh"\nmodule tb; endmodule\n');
  assertFindings(await check(path), [['include-outside-workspace', inner, 2]]);
});

test('an include folder outside the workspace is allowed when the caller names it', async () => {
  const incDir = join(root, 'vendor');
  mkdirSync(incDir, { recursive: true });
  writeFileSync(join(incDir, 'defs.svh'), '`define WIDTH 8\n');
  const { path } = tb(() => '`include "defs.svh"\nmodule tb; logic [`WIDTH-1:0] x; initial $finish; endmodule\n');
  assert.deepEqual(await check(path, { includeDirs: [incDir] }), []);
  // Without naming it, the same file cannot be found; with the workspace as the only root it is outside.
  const viaParent = tb(() => '`include "../vendor/defs.svh"\nmodule tb; endmodule\n');
  assertFindings(await check(viaParent.path), [['include-outside-workspace', viaParent.path, 1]]);
});

test('file output is rejected: $fopen for writing (any mode, no mode, unknown mode), $fdisplay, $fwrite, $writememh', async () => {
  const { path, marker } = tb(
    (m) => `module tb;
  integer fd, mcd, a, b;
  string mode = "w";
  logic [7:0] mem [0:3];
  initial begin
    fd = $fopen("${m}", "w");
    a = $fopen("${m}", "a");
    b = $fopen("${m}", "r+");
    mcd = $fopen("${m}");
    fd = $fopen("${m}", mode);
    $fdisplay(fd, "owned");
    $fwrite(fd, "owned");
    $fstrobeh(fd, 1);
    $writememh("${m}", mem);
    $dumpfile("${m}");
    $finish;
  end
endmodule
`,
  );
  const got = await check(path);
  assertFindings(
    got,
    [6, 7, 8, 9, 10, 11, 12, 13, 14, 15].map((line) => ['file-output', path, line] as [string, string, number]),
  );
  assert.equal(existsSync(marker), false);
});

test('unknown system tasks, escaped look-alikes and metacomments that change the C++ are rejected', async () => {
  const { path } = tb(
    () => `module tb;
  function automatic int \\$system (input string s); return 0; endfunction
  int x /*verilator public*/;
  initial begin
    $shell("ls");
    void'(\\$system ("ls"));
  end
endmodule
`,
  );
  assertFindings(await check(path), [
    ['escaped-system-name', path, 2],
    ['metacomment', path, 3],
    ['unknown-system-task', path, 5],
    ['escaped-system-name', path, 6],
  ]);
});

test('clean testbenches pass: $display, $finish, $urandom, plusargs, dumping to a plain name', async () => {
  writeFileSync(join(ws, 'stim.hex'), '01\n02\n');
  writeFileSync(join(ws, 'tb_defs.svh'), '`define CYCLES 20\n');
  const { path } = tb(
    () => `\`timescale 1ns/1ps
\`include "tb_defs.svh"
// A comment that mentions $system("rm -rf /") and import "DPI-C" is not code.
// verilator lint_off WIDTH
/* verilator coverage_off */
module tb;
  logic clk = 0, rst_n = 0, en, overflow, underflow;
  logic [1:0] mode;
  logic [7:0] load_value, count, v;
  logic [7:0] mem [0:1];
  integer fd, n, seed;
  string name;
  counter uut (.*);
  always #5 clk = ~clk;
  initial begin
    $dumpfile("dump.vcd");
    $dumpvars(0, tb);
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if ($test$plusargs("verbose")) $display("verbose, seed %0d", seed);
    n = $sscanf("2a", "%h", v);
    name = $sformatf("%s", "$system is only text here");
    repeat (\`CYCLES) begin
      @(posedge clk);
      rst_n <= 1;
      en <= 1'($urandom);
      mode <= $urandom_range(0, 3);
      load_value <= 8'hdead;
    end
    $display("%0t count=%0d %s", $time, count, name);
    $finish;
  end
endmodule
`,
  );
  const got = await check(path);
  assert.deepEqual(got, [], formatViolations(got));
});

test('the examples with a plain testbench pass', async () => {
  const { path } = tb(
    () => `module tb_counter;
  logic clk = 0, rst_n = 0, en = 0, overflow, underflow;
  logic [1:0] mode = 0;
  logic [7:0] load_value = 0, count;
  counter #(.WIDTH(8)) uut (.*);
  always #5 clk = ~clk;
  initial begin
    #12 rst_n = 1;
    repeat (50) begin @(negedge clk); en = $urandom % 2; mode = $urandom; load_value = $random; end
    $finish;
  end
endmodule
`,
  );
  assert.deepEqual(await check(path), []);
});

test('preprocessTestbench returns the checked text, which Verilator accepts as it is', async () => {
  writeFileSync(join(ws, 'pp_defs.svh'), '`define MSG "hello"\n');
  const { path } = tb(
    () => '`include "pp_defs.svh"\nmodule tb;\n  initial begin $display(`MSG); $finish; end\nendmodule\n',
  );
  const pre = await preprocessTestbench(path, { verilatorPath, workspaceRoot: ws });
  assert.deepEqual(pre.violations, []);
  assert.ok(pre.text?.includes('$display("hello")'));
  assert.deepEqual(pre.files, [path, join(ws, 'pp_defs.svh')]);
  assert.match(pre.text ?? '', new RegExp(`\`line 1 "${join(ws, 'pp_defs.svh')}" 1`));
  const out = join(root, 'checked.sv');
  writeFileSync(out, pre.text ?? '');
  const lint = spawnSync(verilatorPath, ['--lint-only', '--timing', out], { cwd: root, encoding: 'utf8' });
  assert.equal(lint.status, 0, lint.stderr);
});

test('a testbench the preprocessor refuses is a bad_input error with its location; a missing one too', async () => {
  const { path } = tb(() => 'module tb;\n`include "nowhere.svh"\nendmodule\n');
  await assert.rejects(check(path), (e: unknown) => {
    assert.ok(e instanceof ChorusError);
    assert.equal(e.kind, 'bad_input');
    assert.equal(e.location?.file, path);
    assert.equal(e.location?.line, 2);
    assert.match(e.message, /nowhere\.svh/);
    return true;
  });
  await assert.rejects(
    check(join(ws, 'absent.sv')),
    (e: unknown) => e instanceof ChorusError && e.kind === 'bad_input',
  );
});

test('a missing Verilator is a missing_tool error; an aborted signal cancels', async () => {
  const { path } = tb(() => 'module tb; endmodule\n');
  await assert.rejects(
    checkTestbench(path, { verilatorPath: join(root, 'no-such-verilator') }),
    (e: unknown) => e instanceof ChorusError && e.kind === 'missing_tool',
  );
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(
    checkTestbench(path, { verilatorPath, signal: ac.signal }),
    (e: unknown) => e instanceof ChorusError && e.kind === 'cancelled',
  );
});

test('a macro that expands without bound is rejected, not waited for: output cap and CPU bound', async () => {
  // Each level doubles: one use of M12 is 4,096 copies of a 64-character token (about 260 KB a line).
  const defs = [`\`define M0 ${'x'.repeat(64)}`];
  for (let k = 1; k <= 12; k++) defs.push(`\`define M${k} \`M${k - 1} \`M${k - 1}`);
  const bomb = (lines: number): string =>
    `${defs.join('\n')}\nmodule tb; initial begin\n${'`M12\n'.repeat(lines)}end endmodule\n`;
  const big = tb(() => bomb(6));
  const capped = await checkTestbench(big.path, { verilatorPath, limits: { maxOutputBytes: 1024 * 1024 } });
  assert.deepEqual(
    capped.map((v) => [v.rule, v.file, v.line]),
    [['preprocess-limit', big.path, 1]],
  );
  // The same text under a cap it fits in passes: the finding above came from the cap.
  assert.deepEqual(await checkTestbench(big.path, { verilatorPath, limits: { maxOutputBytes: 8 * 1024 * 1024 } }), []);
  // The cap is on what macros add: a stimulus table written out in full (3 MB, as the search emits for a core)
  // passes the same 1 MiB cap the bomb's few lines fail.
  const row = `    {32'd1, 1'b1, 32'hdeadbeef, 32'h12345678},\n`;
  const table = tb(
    () =>
      `module tb;\n  localparam logic [96:0] T [${((3 * 1024 * 1024) / row.length) | 0}] = '{\n${row.repeat(((3 * 1024 * 1024) / row.length) | 0).slice(0, -2)}\n  };\nendmodule\n`,
  );
  assert.deepEqual(await checkTestbench(table.path, { verilatorPath, limits: { maxOutputBytes: 1024 * 1024 } }), []);
  const slow = tb(() => bomb(400));
  const bounded = await checkTestbench(slow.path, { verilatorPath, limits: { cpuSeconds: 1 } });
  assert.deepEqual(
    bounded.map((v) => v.rule),
    ['preprocess-limit'],
  );
});

test('rejectionError and violationDiagnostics carry the first location and every finding', async () => {
  const { path } = tb(() => 'module tb;\n  initial $system("true");\n  initial $system("false");\nendmodule\n');
  const got = await check(path);
  const err = rejectionError(got);
  assert.equal(err.kind, 'rejected');
  assert.deepEqual(err.location, { file: path, line: 2, column: 11 });
  assert.match(err.describe(), /:2:11: /);
  assert.match(err.message, /:3:11: /);
  assert.deepEqual(
    violationDiagnostics(got).map((d) => [d.severity, d.line]),
    [
      ['error', 2],
      ['error', 3],
    ],
  );
});

test("the design's files are preprocessed before the testbench: a DUT define cannot hide an attack, in paths with spaces and non-ASCII letters too", async () => {
  for (const folder of ['plain', 'My Projects', 'ü dir']) {
    const dir = join(ws, 'design-macros', folder);
    mkdirSync(dir, { recursive: true });
    const dut = join(dir, 'dut ü.sv');
    writeFileSync(dut, '`define WIDTH 8\n`define INC(f) `include f\nmodule dut; endmodule\n');
    const tbPath = join(dir, 'tb ü.sv');
    writeFileSync(
      tbPath,
      'module tb;\n  dut uut();\n`ifdef WIDTH\n  initial $system("id");\n  import "DPI-C" function int system(input string c);\n`endif\n  `INC("/etc/passwd")\nendmodule\n',
    );
    const got = await checkTestbench(tbPath, { verilatorPath, workspaceRoot: dir, designFiles: [dut] });
    // The computed include is refused before anything is preprocessed.
    assertFindings(got, [['include-macro', tbPath, 7]]);
    writeFileSync(
      tbPath,
      'module tb;\n  dut uut();\n`ifdef WIDTH\n  initial $system("id");\n  import "DPI-C" function int system(input string c);\n`endif\nendmodule\n',
    );
    const hidden = await checkTestbench(tbPath, { verilatorPath, workspaceRoot: dir, designFiles: [dut] });
    assertFindings(hidden, [
      ['system-task', tbPath, 4],
      ['dpi', tbPath, 5],
    ]);
    // Alone, the testbench's `ifdef hides both: the gap the design files close.
    assert.deepEqual(await checkTestbench(tbPath, { verilatorPath, workspaceRoot: dir }), [], folder);
  }
});

test('a design reached through a symbolic link to its folder is checked in the jail at the path it is named by', async () => {
  const real = join(ws, 'linked-real');
  mkdirSync(real, { recursive: true });
  writeFileSync(join(real, 'dut.sv'), '`define WIDTH 8\nmodule dut; endmodule\n');
  writeFileSync(join(real, 'tb.sv'), 'module tb; dut uut(); `ifdef WIDTH initial $system("id"); `endif endmodule\n');
  const link = join(ws, 'linked');
  symlinkSync(real, link);
  const got = await checkTestbench(join(link, 'tb.sv'), {
    verilatorPath,
    workspaceRoot: link,
    designFiles: [join(link, 'dut.sv')],
  });
  assert.deepEqual(
    got.map((v) => [v.rule, v.line]),
    [['system-task', 1]],
  );
});
