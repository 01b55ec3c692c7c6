/** The server reads a filelist's -v/-y libraries as the CLI does: only the library files the sources use join the design. */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { NO_DESIGN_SETTINGS } from '../../src/protocol';
import { resolveDesign } from '../../src/server/design';
import { repoRoot } from '../helpers/cli';

const fixture = resolve(repoRoot, 'test/fixtures/libraries');

test('a filelist with -v and -y: the sources, then the library files their modules need', async () => {
  const document = resolve(fixture, 'src/lib_top.sv');
  const design = await resolveDesign({ ...NO_DESIGN_SETTINGS, filelist: 'libs.f' }, document, fixture);
  assert.ok(design.files, 'the filelist lists the document, so the run gets its files');
  assert.equal(design.files[0], document);
  assert.ok(
    design.files.includes(resolve(fixture, 'cells/cells.v')),
    `the -v file is needed: ${design.files.join(', ')}`,
  );
  assert.ok(
    design.files.some((f) => f.startsWith(resolve(fixture, 'ydir'))),
    `a -y module is found: ${design.files.join(', ')}`,
  );
  assert.ok(!design.files.includes(resolve(fixture, 'ydir/lib_unused.sv')), 'a -y module nobody uses stays out');
});
