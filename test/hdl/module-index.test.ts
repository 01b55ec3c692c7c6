// The module index of a design folder: a file that fails to analyse never hides another file's modules; a
// module the design needs that two files define is an error naming both. Through selectDut, as a run uses it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { filesNeeded, indexModules } from '../../src/hdl';
import { selectDut } from '../../src/engine/plan';
import { ChorusError } from '../../src/protocol';

const IDX = resolve(__dirname, '../fixtures/filelist/index');
const read = (f: string) => readFile(f, 'utf8');

test('a file the analysis cannot read is still indexed by its module headers', async () => {
  const files = ['idx_top.v', 'idx_leaf.v', 'idx_macro.sv', 'idx_broken.v'].map((f) => join(IDX, f));
  const index = await indexModules(files, read);
  assert.deepEqual(index.failed.map((f) => f.file).sort(), [join(IDX, 'idx_broken.v'), join(IDX, 'idx_macro.sv')]);
  assert.deepEqual(index.definitions.get('idx_macro'), [join(IDX, 'idx_macro.sv')]);
  assert.deepEqual(index.definitions.get('idx_broken'), [join(IDX, 'idx_broken.v')]);
  assert.deepEqual(filesNeeded(index, 'idx_top'), [
    join(IDX, 'idx_top.v'),
    join(IDX, 'idx_leaf.v'),
    join(IDX, 'idx_macro.sv'),
  ]);
});

test('selectDut from a document finds every sibling its top needs, past siblings that fail to analyse', async () => {
  const dut = await selectDut({ document: join(IDX, 'idx_top.v') });
  assert.equal(dut.top.name, 'idx_top');
  assert.deepEqual(dut.files, [join(IDX, 'idx_top.v'), join(IDX, 'idx_leaf.v'), join(IDX, 'idx_macro.sv')]);
});

test('a needed module defined in two files is an error naming both', async () => {
  await assert.rejects(selectDut({ document: join(IDX, 'dup', 'dup_top.v') }), (err: unknown) => {
    assert.ok(err instanceof ChorusError);
    assert.equal(err.kind, 'bad_input');
    assert.match(err.message, /Module 'dup_twin' is defined in two files, .*twin_a\.v and .*twin_b\.v/);
    return true;
  });
});

test('the document itself wins for the modules it defines', async () => {
  const dut = await selectDut({ document: join(IDX, 'dup', 'twin_a.v') });
  assert.equal(dut.top.name, 'dup_twin');
  assert.deepEqual(dut.files, [join(IDX, 'dup', 'twin_a.v')]);
});
