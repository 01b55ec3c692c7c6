// -v/-y libraries as simulators resolve them: a module the sources instantiate but do not define is found in a -v
// file or as <name><libext> in a -y folder, transitively; unused library files are left out; a module defined
// twice is an error naming both files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { libraryFilesNeeded, readFilelist } from '../../src/hdl';
import { ChorusError } from '../../src/protocol';

const FIX = join(__dirname, '..', 'fixtures', 'libraries');
const read = (f: string) => readFile(f, 'utf8');
const exists = (f: string) =>
  stat(f).then(
    (s) => s.isFile(),
    () => false,
  );

test('only the library files the sources need are added: the -v file, then the -y modules and what they use', async () => {
  const list = await readFilelist('libs.f', { cwd: FIX });
  assert.deepEqual(list.files, [join(FIX, 'src', 'lib_top.sv')]);
  const needed = await libraryFilesNeeded(
    list.files,
    { files: list.libraryFiles, dirs: list.libraryDirs, extensions: list.libraryExtensions },
    read,
    exists,
  );
  assert.deepEqual(needed.files, [
    join(FIX, 'cells', 'cells.v'),
    join(FIX, 'ydir', 'lib_or.sv'),
    join(FIX, 'ydir', 'lib_inv.v'),
  ]);
  assert.deepEqual(needed.sourceTops, ['lib_top']);
});

test('+libext+ decides which names a -y folder is searched for', async () => {
  const list = await readFilelist('libs.f', { cwd: FIX });
  const svOnly = await libraryFilesNeeded(
    list.files,
    { files: list.libraryFiles, dirs: list.libraryDirs, extensions: ['.sv'] },
    read,
    exists,
  );
  // lib_inv.v is not found with .sv only: Verilator then names the missing module.
  assert.deepEqual(svOnly.files, [join(FIX, 'cells', 'cells.v'), join(FIX, 'ydir', 'lib_or.sv')]);
});

test('a module a source defines wins over a library file that defines it too', async () => {
  const needed = await libraryFilesNeeded(
    [join(FIX, 'ydir', 'lib_or.sv'), join(FIX, 'ydir', 'lib_inv.v')],
    { files: [], dirs: [join(FIX, 'ydir')], extensions: [] },
    read,
    exists,
  );
  assert.deepEqual(needed.files, []);
});

test('a module defined twice among the sources is an error naming both files', async () => {
  const list = await readFilelist('dup.f', { cwd: FIX });
  await assert.rejects(
    libraryFilesNeeded(list.files, { files: [], dirs: [], extensions: [] }, read, exists),
    (err: unknown) =>
      err instanceof ChorusError &&
      err.message.includes(
        `Module 'dup_cell' is defined twice, in ${join(FIX, 'dup', 'a.sv')} and ${join(FIX, 'dup', 'b.sv')}`,
      ),
  );
});
