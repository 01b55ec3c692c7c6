/**
 * Run planning and file names without a simulator: the DUT files and top (`selectDut`/`planRun`), the engine
 * choice (`chooseEngine` with an injected provider), and how text names files while data keeps absolute paths.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  askMessages,
  chooseEngine,
  designNames,
  planRun,
  prepareRun,
  selectDut,
  type ModelProvider,
} from '../../src/engine';
import { holesForModel } from '../../src/engine/evaluate';
import { diagnosticsLog } from '../../src/engine/llm/feedback';
import { ChorusError, type Hole } from '../../src/protocol';

let work: string;
let fileA: string;
let fileB: string;
let tbBeside: string;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'chorus-plan-'));
  mkdirSync(join(work, 'a'));
  mkdirSync(join(work, 'b'));
  fileA = join(work, 'a', 'fifo.sv');
  fileB = join(work, 'b', 'fifo.sv');
  writeFileSync(
    fileA,
    'module top_fifo(input logic clk, output logic [3:0] q);\n  inner_fifo u (.clk(clk), .q(q));\nendmodule\n',
  );
  writeFileSync(
    fileB,
    'module inner_fifo(input logic clk, output logic [3:0] q);\n  always_ff @(posedge clk) q <= q + 1;\nendmodule\n',
  );
  // Beside a: a helper module the top does not use, a second one it does, and a testbench.
  writeFileSync(join(work, 'a', 'unused.sv'), 'module unused(input logic x);\nendmodule\n');
  tbBeside = join(work, 'a', 'tb_top_fifo.sv');
  writeFileSync(tbBeside, 'module tb_top_fifo;\n  top_fifo uut (.clk(), .q());\nendmodule\n');
});
after(() => rmSync(work, { recursive: true, force: true }));

const provider = (configured: string | undefined): ModelProvider => ({
  configured: () => configured,
  open: () => Promise.reject(new Error('not opened in this test')),
});

test('explicit files: absolute paths, the top found by analysis', async () => {
  const dut = await selectDut({ files: [fileA, fileB] });
  assert.deepEqual(dut.files, [fileA, fileB]);
  assert.equal(dut.top.name, 'top_fifo');
});

test('a document: it and the sibling sources its top needs; testbenches and unused modules stay out', async () => {
  writeFileSync(
    join(work, 'a', 'inner_copy.sv'),
    'module inner_fifo(input logic clk, output logic [3:0] q);\nendmodule\n',
  );
  try {
    const dut = await selectDut({ document: fileA });
    assert.equal(dut.files[0], fileA);
    assert.deepEqual(dut.files.slice(1), [join(work, 'a', 'inner_copy.sv')]);
    assert.equal(dut.top.name, 'top_fifo');
  } finally {
    rmSync(join(work, 'a', 'inner_copy.sv'));
  }
});

test('one top rule: an unknown top names what to check', async () => {
  await assert.rejects(
    selectDut({ files: [fileA, fileB], top: 'nope' }),
    (err: unknown) => err instanceof ChorusError && /'nope' is not defined/.test(err.message),
  );
});

test('an engine that needs a model and has none is refused by planRun, with the one message', async () => {
  await assert.rejects(
    planRun({ files: [fileA, fileB], targets: {}, engine: 'llm' }, provider(undefined)),
    (err: unknown) =>
      err instanceof ChorusError && err.kind === 'bad_input' && /The llm engine needs a model/.test(err.message),
  );
});

test('the auto engine choice: the model when one is configured or found, else the model-free search', async () => {
  assert.equal(chooseEngine(undefined, provider(undefined)), 'random');
  assert.equal(chooseEngine('auto', provider('/m/chorus.gguf')), 'llm');
  assert.equal(chooseEngine('hybrid', provider(undefined)), 'hybrid', 'an explicit engine is kept');
  const plan = await planRun({ files: [fileA, fileB], targets: {} }, provider('http://localhost:8000/v1'));
  assert.equal(plan.request.engine, 'llm');
  assert.deepEqual(plan.request.rtlFiles, [fileA, fileB]);
  assert.equal(plan.request.top, 'top_fifo');
});

test('text names files by base name, by their path from the common folder when two share one', async () => {
  const unique = designNames([fileA, join(work, 'b', 'other.sv')]);
  assert.equal(unique(fileA), 'fifo.sv');
  const shared = designNames([fileA, fileB]);
  assert.equal(shared(fileA), join('a', 'fifo.sv'));
  assert.equal(shared(fileB), join('b', 'fifo.sv'));
  assert.equal(shared('/tmp/run/tb_top_fifo.sv'), 'tb_top_fifo.sv', 'a file outside the DUT by its base name');

  const ctx = await prepareRun({ rtlFiles: [fileA, fileB], engine: 'llm', targets: {}, workDir: work });
  assert.deepEqual(
    ctx.rtl.map((f) => f.name),
    [join('a', 'fifo.sv'), join('b', 'fifo.sv')],
    'the prompt tells the two files apart',
  );
  const holes: Hole[] = [
    { kind: 'line', file: fileA, line: 2, detail: 'block never executed' },
    { kind: 'branch', file: fileB, line: 2, detail: 'if arm never taken' },
  ];
  const text = holesForModel(holes, 40, ctx.displayName);
  assert.match(text, /- b\/fifo\.sv:2 branch/);
  assert.match(text, /- a\/fifo\.sv:2 line/);
  assert.doesNotMatch(text, new RegExp(work), 'no absolute paths in the model text');
  assert.equal(
    diagnosticsLog([{ file: join(work, 'run', 'tb_x.sv'), line: 3, column: 1, severity: 'error', message: 'x' }]),
    'tb_x.sv:3:1: error: x',
  );

  const messages = await askMessages({ files: [fileA, fileB], question: 'why?' });
  assert.match(messages[1].content, /\/\/ File: a\/fifo\.sv/);
  assert.match(messages[1].content, /\/\/ File: b\/fifo\.sv/);
});

test('the design is analysed once per run: generateToEnd takes the selection planRun made', async () => {
  const plan = await planRun({ files: [fileA, fileB], targets: {} }, provider(undefined));
  // The planned analysis is what the run uses: a marker on it reaches the run's context.
  const ctx = await prepareRun({ ...plan.request, workDir: work }, plan.dut);
  assert.equal(ctx.analysis, plan.dut.analysis, 'the same analysis object, not a second pass');
  // A selection for other files is not reused.
  const other = await prepareRun({ ...plan.request, rtlFiles: [fileB, fileA], workDir: work }, plan.dut);
  assert.notEqual(other.analysis, plan.dut.analysis);
});
