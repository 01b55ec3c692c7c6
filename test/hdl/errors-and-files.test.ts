// Syntax errors as file:line:column for every ERROR and MISSING node, and the refusal of files that cannot be RTL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeFiles, analyzeSources, MAX_FILE_BYTES } from '../../src/hdl';
import { ChorusError, exitCodeFor } from '../../src/protocol';

let work: string;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'chorus-hdl-files-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

test('the fixture with two mistakes reports both, with 1-based line and column', async () => {
  const file = join(__dirname, '..', 'fixtures', 'hdl', 'syntax_error.sv');
  const a = await analyzeFiles([file]);
  assert.deepEqual(a.errors, [
    { file, line: 2, column: 48, message: 'syntax error: missing `;`' },
    { file, line: 4, column: 13, message: 'syntax error: missing identifier' },
  ]);
  // the module is still found: the editor keeps its outline while the user types
  assert.deepEqual(
    a.modules.map((m) => m.name),
    ['broken'],
  );
});

test('ERROR and MISSING nodes in several modules are all reported, in order', () => {
  const text = [
    'module a(input x, output y);',
    "  assign y = (x & 1'b1;",
    'endmodule',
    'module b(input x, output y);',
    '  assign y = x +;',
    'endmodule',
    'module c(input x, output y)',
    '  assign y = x;',
    'endmodule',
  ].join('\n');
  const errors = analyzeSources([{ name: 'three.sv', content: text }]).errors;
  assert.deepEqual(
    errors.map((e) => `${e.file}:${e.line}:${e.column}: ${e.message}`),
    [
      'three.sv:2:23: syntax error: missing `)`',
      'three.sv:5:16: syntax error: unexpected `+`',
      'three.sv:7:28: syntax error: missing `;`',
    ],
  );
  assert.deepEqual(analyzeSources([{ name: 'ok.sv', content: 'module ok; endmodule\n' }]).errors, []);
});

async function refusal(path: string): Promise<ChorusError> {
  const err = await analyzeFiles([path]).then(
    () => assert.fail(`${path} was accepted`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ChorusError, String(err));
  assert.equal(err.kind, 'bad_input');
  assert.equal(exitCodeFor(err.kind), 2);
  assert.equal(err.location?.file, path);
  return err;
}

test('missing, empty, binary, oversized files and folders are bad input naming the file', async () => {
  assert.match((await refusal(join(work, 'nope.sv'))).describe(), /nope\.sv: No such file/);

  const empty = join(work, 'empty.sv');
  writeFileSync(empty, '  \n\t\n');
  assert.match((await refusal(empty)).message, /empty/);

  const binary = join(work, 'binary.sv');
  writeFileSync(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00, 0x6d, 0x6f]));
  assert.match((await refusal(binary)).message, /binary/);

  const huge = join(work, 'huge.sv');
  writeFileSync(huge, 'module huge; endmodule\n');
  truncateSync(huge, MAX_FILE_BYTES + 1); // sparse: no time spent writing it
  assert.match((await refusal(huge)).message, /over the 16 MiB limit/);

  const folder = join(work, 'rtl');
  mkdirSync(folder);
  assert.match((await refusal(folder)).message, /folder/);
});

test('files are named in the analysis exactly as given', async () => {
  const f = join(work, 'named.sv');
  writeFileSync(f, 'module named(input logic clk, output logic q);\n  always_ff @(posedge clk) q <= ~q;\nendmodule\n');
  const a = await analyzeFiles([f]);
  assert.equal(a.modules[0].file, f);
  assert.equal(a.modules[0].sites[0].range.file, f);
  assert.equal(a.clock, 'clk');
});
