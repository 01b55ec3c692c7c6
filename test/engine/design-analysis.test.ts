// Analysis sees what the compiler sees: a file whose macro calls the text analysis cannot parse is read as
// Verilator's preprocessor expands it, line for line, so positions still name the user's file and line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { analyzeDesign, analyzeFiles } from '../../src/engine';
import { alignPreprocessed } from '../../src/sim';
import { corpusPath } from '../helpers/corpus';

const IDX = resolve(__dirname, '../fixtures/filelist/index');
const lineOf = (file: string, needle: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(needle)) + 1;

test('alignPreprocessed puts expanded lines back on their source line and leaves included text out', () => {
  const text = [
    '`line 1 "/d/top.sv" 1',
    '',
    '`line 1 "/d/inc.svh" 1',
    'wire from_header;',
    '`line 3 "/d/top.sv" 0',
    'module top;',
    '`line 4 "/d/top.sv" 0',
    '  always_ff @(posedge clk)',
    '`line 4 "/d/top.sv" 0',
    '    q <= d;',
    'endmodule',
  ].join('\n');
  assert.deepEqual(alignPreprocessed(text, '/d/top.sv', '/d').split('\n'), [
    '',
    '',
    'module top;',
    '  always_ff @(posedge clk) q <= d;',
    'endmodule',
  ]);
});

test('a macro call the text analysis cannot parse is analysed as Verilator expands it, at its own lines', async () => {
  const file = join(IDX, 'idx_macro.sv');
  const plain = await analyzeFiles([file]);
  assert.ok(plain.errors.length > 0, 'the fixture must defeat the text analysis');
  const a = await analyzeDesign([file]);
  assert.deepEqual(a.errors, []);
  const m = a.modules.find((x) => x.name === 'idx_macro');
  assert.ok(m);
  assert.equal(m.file, file);
  assert.equal(m.line, lineOf(file, 'module idx_macro'));
  assert.deepEqual(
    m.ports.map((p) => [p.name, p.width]),
    [
      ['clk', 1],
      ['d', 4],
      ['q', 4],
    ],
  );
});

test('real-ip cc_fifo (register and assertion macros from an include folder) analyses with its folder', async () => {
  const REAL_IP = corpusPath('real-ip');
  const files = ['common_cells/src/cc_pkg.sv', 'common_cells/src/cc_fifo.sv'].map((f) => join(REAL_IP, f));
  assert.ok((await analyzeFiles(files)).errors.length > 0);
  const a = await analyzeDesign(files, {
    top: 'cc_fifo',
    design: { includeDirs: [join(REAL_IP, 'common_cells/include')] },
  });
  assert.deepEqual(a.errors, []);
  const top = a.modules.find((m) => m.name === 'cc_fifo');
  assert.ok(top);
  assert.equal(top.ports.find((p) => p.name === 'data_i')?.width, 32);
  // The register macros expand to `always_ff @(posedge (clk_i) or negedge (rst_ni))`.
  assert.equal(top.clock, 'clk_i');
  assert.deepEqual(top.reset && [top.reset.name, top.reset.activeLow, top.reset.async], ['rst_ni', true, true]);
});
