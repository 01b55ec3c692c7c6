// Property-based tests of the pure check (checkPreprocessedText): random and mutated text never throws, and
// findings land on the right rule and original file:line wherever an attack is placed and however it is spaced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkPreprocessedText, type SandboxViolation } from '../../src/sim/sandbox';

const rules = new Set([
  'system-task',
  'embedded-cpp',
  'dpi',
  'file-output',
  'unknown-system-task',
  'metacomment',
  'directive',
  'escaped-system-name',
  'include-outside-workspace',
  'include-macro',
  'include-not-file',
  'preprocess-limit',
  'file-input',
]);

function wellFormed(found: SandboxViolation[]): void {
  for (const v of found) {
    assert.ok(rules.has(v.rule), v.rule);
    assert.ok(Number.isInteger(v.line) && v.line >= 1, `line ${v.line}`);
    assert.ok(Number.isInteger(v.column) && v.column >= 1, `column ${v.column}`);
    assert.equal(typeof v.file, 'string');
    assert.ok(v.message.length > 0);
  }
}

const cleanLines = [
  '`timescale 1ns/1ps',
  'module tb;',
  '  logic clk = 0;',
  "  logic [7:0] a = 8'hde, b = 'h0f;",
  '  integer fd, n;',
  '  always #5 clk = ~clk;',
  '  initial begin',
  '    if (!$value$plusargs("a=%h", a)) a = 8\'h01;',
  '    n = $sscanf("12", "%h", a);',
  '    $display("%0t a=%0d (not $system, import \\"DPI-C\\")", $time, a); // $system in a comment',
  '    /* $fwrite(1, "x"); in a block comment */',
  '    repeat (3) @(posedge clk) b <= $urandom_range(0, 255);',
  '    $finish;',
  '  end',
  'endmodule',
];
const cleanText = `${cleanLines.join('\n')}\n`;

/** Attacks that fit on one line, with the rule each must trigger. */
const attacks: Array<[string, string]> = [
  ['$system("touch /tmp/x");', 'system-task'],
  ['import "DPI-C" function int system(input string c);', 'dpi'],
  ['export "DPI-C" task t;', 'dpi'],
  ['$fwrite(1, "x");', 'file-output'],
  ['fd = $fopen("out.txt", "w");', 'file-output'],
  ['fd = $fopen("out.txt");', 'file-output'],
  ['$writememh("m.hex", mem);', 'file-output'],
  ['fd = $fopen("/etc/passwd", "r");', 'file-input'],
  ['$readmemh("/etc/passwd", mem);', 'file-input'],
  ['n = $fgets(line, fd);', 'file-input'],
  ['n = $fscanf(fd, "%s", line);', 'file-input'],
  ['n = $fread(mem, fd);', 'file-input'],
  ['$c("system(0);");', 'embedded-cpp'],
  ['$shell("ls");', 'unknown-system-task'],
  ['/*verilator public*/', 'metacomment'],
  ['`systemc_header', 'embedded-cpp'],
];

/** Fragments that stress the lexer: string, comment and directive openers, escapes, based numbers. */
const fragments = [
  '$system',
  '$sys',
  'tem',
  '``',
  '`',
  '`line 3 "x.sv" 1\n',
  '`line ',
  '"',
  '\\',
  '\\"',
  '/*',
  '*/',
  '//',
  '\n',
  '\r',
  'import',
  'export',
  '"DPI-C"',
  '$fopen',
  '(',
  ')',
  ',',
  '"w"',
  '"r"',
  "8'h",
  "'b",
  "'",
  'ff',
  '$c',
  '$c32',
  '`systemc_header',
  '/*verilator public*/',
  '// verilator lint_off WIDTH',
  ' ',
  '\t',
  ';',
  '$',
  '$$',
  'é',
  '\u0000',
  '`pragma protect',
  '`define',
  '$dumpfile("/x")',
  '1e',
  '10ns',
  '\\$system ',
];

test('random text of any bytes never throws and yields well-formed findings', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 3000 }), fc.string({ maxLength: 40 }), (text, file) => {
      wellFormed(checkPreprocessedText(text, file || 'tb.sv'));
    }),
    { numRuns: 300 },
  );
});

test('token soup of lexer-hostile fragments never throws', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...fragments), { maxLength: 400 }), (parts) => {
      wellFormed(checkPreprocessedText(parts.join(''), 'tb.sv'));
    }),
    { numRuns: 300 },
  );
});

const mutation = fc.record({
  op: fc.constantFrom('insert', 'delete', 'replace'),
  at: fc.nat(),
  len: fc.nat({ max: 20 }),
  text: fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 10 })),
});

test('mutated clean and attack testbenches never throw', () => {
  const bases = [cleanText, ...attacks.map(([a]) => cleanText.replace('    $finish;', `    ${a}\n    $finish;`))];
  fc.assert(
    fc.property(fc.constantFrom(...bases), fc.array(mutation, { maxLength: 30 }), (base, muts) => {
      let text = base;
      for (const m of muts) {
        const at = m.at % (text.length + 1);
        if (m.op === 'insert') text = text.slice(0, at) + m.text + text.slice(at);
        else if (m.op === 'delete') text = text.slice(0, at) + text.slice(at + m.len);
        else text = text.slice(0, at) + m.text + text.slice(at + m.text.length);
      }
      wellFormed(checkPreprocessedText(text, 'tb.sv'));
    }),
    { numRuns: 500 },
  );
});

test('the clean testbench has no findings (the base of the properties below)', () => {
  assert.deepEqual(checkPreprocessedText(cleanText, 'tb.sv'), []);
});

test('an attack placed on any line is found with its rule at that line, or at the line a `line directive names', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...attacks),
      fc.nat({ max: cleanLines.length }),
      fc.option(
        fc.record({
          file: fc.stringMatching(/^[a-z][a-z0-9_/]{0,20}\.svh?$/),
          line: fc.integer({ min: 1, max: 100_000 }),
        }),
      ),
      ([attack, rule], k, mapped) => {
        const lines = [...cleanLines];
        const inserted = mapped ? [`\`line ${mapped.line} "${mapped.file}" 1`, `    ${attack}`] : [`    ${attack}`];
        lines.splice(k, 0, ...inserted);
        const found = checkPreprocessedText(`${lines.join('\n')}\n`, 'tb.sv');
        const where = mapped ? [mapped.file, mapped.line] : ['tb.sv', k + 1];
        assert.deepEqual(
          found.map((v) => [v.rule, v.file, v.line]),
          [[rule, ...where]],
        );
      },
    ),
    { numRuns: 300 },
  );
});

/** Whitespace, comments and `line directives: what may legally sit between two tokens. */
const gap = fc
  .array(fc.constantFrom(' ', '\t', '\n', '/* c */', '// c\n', '\n`line 7 "x.sv" 0\n', '/*\n*/'), {
    minLength: 1,
    maxLength: 6,
  })
  .map((parts) => parts.join(''));

test('however DPI declarations and $fopen calls are spaced, they are still found', () => {
  fc.assert(
    fc.property(
      gap,
      gap,
      gap,
      fc.constantFrom('import', 'export'),
      fc.constantFrom('"DPI-C"', '"DPI"'),
      (g1, g2, g3, kw, spec) => {
        const dpi = checkPreprocessedText(`module tb;\n${kw}${g1}${spec} function int f();\nendmodule\n`, 'tb.sv');
        assert.deepEqual(
          dpi.map((v) => v.rule),
          ['dpi'],
        );
        const fopen = checkPreprocessedText(
          `module tb; integer f; initial f = $fopen${g1}(${g2}"o.txt"${g3},${g2}"a"${g3});\nendmodule\n`,
          'tb.sv',
        );
        assert.deepEqual(
          fopen.map((v) => v.rule),
          ['file-output'],
        );
        const reading = `module tb; integer f; initial f = $fopen${g1}(${g2}"i.txt"${g3},${g2}"r"${g3});\nendmodule\n`;
        assert.deepEqual(
          checkPreprocessedText(reading, 'tb.sv').map((v) => v.rule),
          ['file-input'],
        );
        // CHORUS's own harness reads its stimulus file.
        assert.deepEqual(checkPreprocessedText(reading, 'tb.sv', { allowFileReads: true }), []);
      },
    ),
    { numRuns: 300 },
  );
});

test('an attack inside a string literal or a line comment is only text', () => {
  fc.assert(
    fc.property(fc.constantFrom(...attacks.filter(([a]) => !a.startsWith('`'))), fc.boolean(), ([attack], inString) => {
      const escaped = attack.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
      const line = inString ? `    $display("${escaped}");` : `    // ${attack.replace(/\*\//g, '')}`;
      const text = cleanText.replace('    $finish;', `${line}\n    $finish;`);
      const found = checkPreprocessedText(text, 'tb.sv');
      // A comment that is a Verilator metacomment is code to Verilator; a plain one is not.
      assert.deepEqual(found, []);
    }),
    { numRuns: 200 },
  );
});
