// Lint is not failure: warnings in the design's files build and simulate and come back apart from the
// testbench's own messages; an error in the design is located and says what to do. Real Verilator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { measureCoverage } from '../../src/sim';
import { splitDesignWarnings } from '../../src/sim/verilator/designWarnings';
import { lintDesign } from '../../src/sim/verilator/lintDesign';
import { ChorusError, type Diagnostic } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { lineOf, suiteCache } from './simFixtures';

const lint = (name: string) => join(repoRoot, 'test', 'fixtures', 'lint', name);
const alu = lint('alu_width.v');
const tb = lint('tb_alu_width.sv');

test('splitDesignWarnings keeps testbench messages and every error with the build', () => {
  const d = (file: string, severity: Diagnostic['severity'], line = 3): Diagnostic => ({
    file,
    line,
    column: 1,
    severity,
    message: `m ${severity}`,
  });
  const split = splitDesignWarnings(
    [d(alu, 'warning'), d(tb, 'warning'), d(alu, 'error'), d(tb, 'error'), d(tb, 'warning', 0)],
    tb,
  );
  assert.deepEqual(split.design, [d(alu, 'warning')]);
  assert.equal(split.build.length, 4);
  // An error in the design stays fatal and says it is the design's.
  assert.match(split.build[1].message, /^m error \(this is in the design/);
  assert.equal(split.build[2].message, 'm error');
});

test("a design with WIDTH and CASEINCOMPLETE warnings builds, simulates, and reports them as the design's", async () => {
  const report = await measureCoverage(
    { dutFiles: [alu], testbench: tb, dutTop: 'alu_width' },
    { cacheDir: suiteCache },
  );
  assert.equal(report.status, 'ok', JSON.stringify(report.diagnostics));
  assert.ok(report.coverage.line.total > 0);
  const design = report.designWarnings ?? [];
  // Newer Verilators (5.050) split WIDTH into WIDTHEXPAND and WIDTHTRUNC.
  const width = design.find((w) => /\[WIDTH(EXPAND|TRUNC)?\]/.test(w.message));
  assert.ok(width, JSON.stringify(design));
  assert.equal(width.file, alu);
  assert.equal(width.line, lineOf(alu, "33'd0"));
  assert.ok(
    design.some((w) => /\[CASEINCOMPLETE\]/.test(w.message)),
    JSON.stringify(design),
  );
  assert.ok(design.every((w) => w.file === alu && w.severity === 'warning'));
  // The testbench's own warning stays with the testbench (that is what a model would be told about), and no design warning does.
  assert.ok(
    report.diagnostics.some((w) => w.file === tb && /\[WIDTH(EXPAND|TRUNC)?\]/.test(w.message)),
    JSON.stringify(report.diagnostics),
  );
  assert.ok(
    report.diagnostics.every((w) => w.file !== alu),
    JSON.stringify(report.diagnostics),
  );
});

test("lintDesign returns the design's warnings once", async () => {
  const { warnings, portWidths } = await lintDesign({ files: [alu], top: 'alu_width' });
  assert.deepEqual(
    [...portWidths],
    [
      ['clk', 1],
      ['a', 32],
      ['b', 32],
      ['op', 2],
      ['y', 32],
      ['zero', 1],
    ],
  );
  // Nothing written beside the design (5.050's --json-only writes a .tree.meta.json into its --Mdir).
  assert.ok(!existsSync(join(dirname(alu), 'obj_dir')), 'no obj_dir beside the design');
  assert.deepEqual(
    warnings.map((w) => [w.file, w.line, /\[(\w+)\]$/.exec(w.message)?.[1]?.replace(/^WIDTH(EXPAND|TRUNC)$/, 'WIDTH')]),
    [
      [alu, lineOf(alu, "33'd0"), 'WIDTH'],
      [alu, lineOf(alu, 'case (op)'), 'CASEINCOMPLETE'],
    ],
  );
});

test('a construct Verilator cannot build is a bad_input error at its file and line, saying what to do', async () => {
  const file = lint('bad_construct.sv');
  await assert.rejects(lintDesign({ files: [file], top: 'bad_construct' }), (err: unknown) => {
    assert.ok(err instanceof ChorusError);
    assert.equal(err.kind, 'bad_input');
    assert.equal(err.location?.file, file);
    assert.equal(err.location?.line, lineOf(file, 'no_such_signal'));
    assert.match(err.message, /no_such_signal.*this is in the design, not the testbench.*change it/);
    return true;
  });
});

test('a missing include folder says to pass it; with the folder and a define the design reads', async () => {
  const file = lint('needs_include.sv');
  await assert.rejects(lintDesign({ files: [file], top: 'needs_include' }), /Cannot find include file.*-I <dir>/);
  const read = await lintDesign({
    files: [file],
    top: 'needs_include',
    includeDirs: [lint('inc')],
    defines: { UNUSED_MACRO: '1' },
  });
  assert.deepEqual(read.warnings, []);
  // The header's `define LW 6 sets the port widths, which the text alone does not show.
  assert.deepEqual(
    [...read.portWidths],
    [
      ['clk', 1],
      ['a', 6],
      ['y', 6],
    ],
  );
});

test('a -G parameter override reaches the elaborated port widths; an unknown one is an error', async () => {
  const fifo = join(repoRoot, 'examples', 'fifo', 'fifo.sv');
  const defaults = await lintDesign({ files: [fifo], top: 'fifo' });
  const widths = await lintDesign({ files: [fifo], top: 'fifo', parameters: { WIDTH: '3' } });
  assert.notEqual(defaults.portWidths.get('din'), 3);
  assert.equal(widths.portWidths.get('din'), 3);
  await assert.rejects(
    lintDesign({ files: [fifo], top: 'fifo', parameters: { NO_SUCH_PARAM: '1' } }),
    /not found in the design: NO_SUCH_PARAM/,
  );
});
