// EDA filelists: nested -f/-F, +incdir+, +define+, libraries, comments, environment variables; bad lists name
// the list and line. Read on small fixtures and on the real-ip corpus in place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readFilelist } from '../../src/hdl';
import { ChorusError } from '../../src/protocol';
import { corpusPath } from '../helpers/corpus';

const FIX = resolve(__dirname, '../fixtures/filelist');

async function badList(name: string, env: Record<string, string> = {}): Promise<ChorusError> {
  try {
    await readFilelist(name, { cwd: FIX, env });
  } catch (err) {
    assert.ok(err instanceof ChorusError, String(err));
    assert.equal(err.kind, 'bad_input');
    return err;
  }
  assert.fail(`${name} was read without an error`);
}

test('a nested filelist gives files in order, include folders, defines and libraries', async () => {
  const fl = await readFilelist('top.f', { cwd: FIX, env: { FL_INC: '../include' } });
  // -F nested/leaf.f: its paths (and its $FL_INC folder) are relative to nested/; the top list's to the working folder.
  assert.deepEqual(fl.files, [join(FIX, 'rtl/sub/leaf.sv'), join(FIX, 'rtl/top.sv')]);
  // ${FL_INC}=../include from nested/ is the same folder as the top list's +incdir+include: listed once.
  assert.deepEqual(fl.includeDirs, [join(FIX, 'include')]);
  assert.deepEqual(fl.defines, { W: '8', FAST: undefined });
  assert.deepEqual(fl.libraryDirs, [join(FIX, 'lib')]);
  assert.deepEqual(fl.libraryFiles, [join(FIX, 'lib/fl_lib.v')]);
  assert.deepEqual(fl.libraryExtensions, ['.v', '.sv']);
  assert.deepEqual(fl.lists, [join(FIX, 'top.f'), join(FIX, 'nested/leaf.f')]);
});

test('an environment variable that names a missing folder is an error naming the nested list and line', async () => {
  const err = await badList('top.f', { FL_INC: 'no_such_dir' });
  assert.equal(err.location?.file, join(FIX, 'nested/leaf.f'));
  assert.equal(err.location?.line, 3);
  assert.match(err.message, /no_such_dir does not exist/);
});

test('a missing source file names the list and line', async () => {
  const err = await badList('missing.f');
  assert.equal(err.location?.file, join(FIX, 'missing.f'));
  assert.equal(err.location?.line, 2);
  assert.match(err.message, /rtl\/nope\.sv does not exist/);
});

test('a loop of -f lists is an error naming the loop', async () => {
  const err = await badList('loop_a.f');
  assert.equal(err.location?.file, join(FIX, 'loop_b.f'));
  assert.equal(err.location?.line, 1);
  assert.match(err.message, /includes itself .*loop_a\.f -> .*loop_b\.f -> .*loop_a\.f/);
});

test('an unknown option names the list and line', async () => {
  const err = await badList('unknown.f');
  assert.equal(err.location?.line, 3);
  assert.match(err.message, /Unknown filelist option -timescale=1ns\/1ps/);
});

test('an unset environment variable names the list and line', async () => {
  const err = await badList('unset.f');
  assert.equal(err.location?.line, 1);
  assert.match(err.message, /FL_UNSET_VAR is not set/);
});

test('a missing top list is an error naming it', async () => {
  const err = await badList('no_such.f');
  assert.equal(err.location?.file, join(FIX, 'no_such.f'));
  assert.match(err.message, /No such filelist/);
});

test('every real-ip filelist reads in place, relative to the corpus folder', async () => {
  const REAL_IP = corpusPath('real-ip');
  const lists = readdirSync(join(REAL_IP, 'items')).filter((n) => n.endsWith('.f'));
  assert.ok(lists.length >= 12, `found ${lists.length} lists`);
  for (const name of lists) {
    const fl = await readFilelist(join('items', name), { cwd: REAL_IP });
    const entries = readFileSync(join(REAL_IP, 'items', name), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const sources = entries.filter((l) => !l.startsWith('+'));
    assert.deepEqual(fl.files, [...new Set(sources.map((s) => join(REAL_IP, s)))], name);
    assert.equal(fl.includeDirs.length, entries.filter((l) => l.startsWith('+incdir+')).length, name);
    if (name.startsWith('cc_')) assert.deepEqual(fl.includeDirs, [join(REAL_IP, 'common_cells/include')], name);
  }
});
