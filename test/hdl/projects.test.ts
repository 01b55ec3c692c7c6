// Project files (Bender.yml with its Bender.lock and .bender checkouts, a FuseSoC core, .slang/server.json,
// verible.filelist) read into the same design as a hand-written .f: files in order, include folders, macros. Bad
// project files name the file and line. The upstream manifests of the corpus are read with their files stood in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { readFilelist, type Filelist } from '../../src/hdl';
import { ChorusError, designFileKind, parseDesignSettings } from '../../src/protocol';
import { corpusPath } from '../helpers/corpus';

const FIX = resolve(__dirname, '../fixtures/projects');
const DEPS = resolve(__dirname, '../fixtures/projects-bender-deps');

/** The design without Bender's TARGET_* macros, which a hand-written list does not carry. */
function build(fl: Filelist): { files: string[]; includeDirs: string[]; defines: Record<string, string | undefined> } {
  const defines = Object.fromEntries(Object.entries(fl.defines).filter(([k]) => !k.startsWith('TARGET_')));
  return { files: fl.files, includeDirs: fl.includeDirs, defines };
}

async function failure(read: Promise<unknown>): Promise<ChorusError> {
  try {
    await read;
  } catch (err) {
    assert.ok(err instanceof ChorusError, String(err));
    assert.equal(err.kind, 'bad_input');
    return err;
  }
  assert.fail('the project file was read without an error');
}

function scratch(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-projects-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

test('each project file yields the build of the hand-written .f beside it, read from any working folder', async () => {
  const hand = build(await readFilelist('hand.f', { cwd: FIX }));
  assert.deepEqual(hand.files, [join(FIX, 'rtl/acc_top.sv'), join(FIX, 'ip/acc_alu.sv')]);
  for (const name of ['Bender.yml', 'acc.core', '.slang/server.json', 'verible.filelist']) {
    const fl = await readFilelist(join(FIX, name), { cwd: tmpdir() });
    assert.deepEqual(build(fl), hand, name);
    assert.equal(fl.lists[0], join(FIX, name));
  }
});

test('Bender: target groups follow the targets, with a TARGET_ macro per active target', async () => {
  const plain = await readFilelist(join(FIX, 'Bender.yml'));
  // The defaults (verilator, simulation, rtl): no fpga group, no test group (its file does not exist, unread).
  assert.deepEqual(Object.keys(plain.defines).sort(), [
    'ACC_WIDTH',
    'TARGET_RTL',
    'TARGET_SIMULATION',
    'TARGET_VERILATOR',
  ]);
  const fpga = await readFilelist(join(FIX, 'Bender.yml'), { targets: ['FPGA', 'xilinx', '-simulation'] });
  assert.deepEqual(fpga.files, [join(FIX, 'fpga/acc_clock_gate.sv')]);
  assert.ok('TARGET_XILINX' in fpga.defines && !('TARGET_SIMULATION' in fpga.defines));
  // A missing file in a group that is read is an error on its line.
  const err = await failure(readFilelist(join(FIX, 'Bender.yml'), { targets: ['test'] }));
  assert.deepEqual(err.location, { file: join(FIX, 'Bender.yml'), line: 21 });
  assert.match(err.message, /tb\/missing_tb\.sv does not exist/);
});

test('Bender: dependencies come from Bender.lock and their checkouts, before the package', async () => {
  const fl = await readFilelist(join(DEPS, 'Bender.yml'), { cwd: tmpdir() });
  assert.deepEqual(build(fl), build(await readFilelist('hand.f', { cwd: DEPS })));
  assert.deepEqual(fl.lists, [
    join(DEPS, 'Bender.yml'),
    join(DEPS, 'Bender.lock'),
    join(DEPS, '.bender/git/checkouts/acc_alu-43ff08dd3a6287ed/Bender.yml'),
    join(DEPS, 'vendor/acc_defs/Bender.yml'),
  ]);
});

test('Bender: a dependency not checked out, or no Bender.lock, is an error naming bender checkout', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-bender-'));
  try {
    cpSync(DEPS, dir, { recursive: true });
    rmSync(join(dir, '.bender'), { recursive: true });
    let err = await failure(readFilelist(join(dir, 'Bender.yml')));
    assert.deepEqual(err.location, { file: join(dir, 'Bender.yml'), line: 7 });
    assert.match(err.message, /acc_alu is not checked out .*run `bender checkout` in /);
    rmSync(join(dir, 'Bender.lock'));
    err = await failure(readFilelist(join(dir, 'Bender.yml')));
    assert.deepEqual(err.location, { file: join(dir, 'Bender.yml'), line: 7 });
    assert.match(err.message, /Bender\.lock does not exist: run `bender checkout`/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Bender: an unknown target expression, a bad key and bad YAML name their line; globs expand sorted', async () => {
  const dir = scratch({
    'Bender.yml': 'package:\n  name: t\nsources:\n  - target: all(rtl,\n    files: [a.sv]\n',
    'bad-key/Bender.yml': 'package:\n  name: t\nsources:\n  - target: rtl\n    filez: [a.sv]\n',
    'bad-yaml/Bender.yml': 'package:\n  name: t\nsources: [a.sv\n',
    'glob/Bender.yml': 'package:\n  name: g\nsources:\n  - src/*.sv\n  - src/**/*.v\n',
    'glob/src/b.sv': '',
    'glob/src/a.sv': '',
    'glob/src/deep/c.v': '',
    'glob/src/notes.txt': '',
  });
  try {
    let err = await failure(readFilelist(join(dir, 'Bender.yml')));
    assert.deepEqual(err.location, { file: join(dir, 'Bender.yml'), line: 4 });
    assert.match(err.message, /Unknown target expression 'all\(rtl,'/);
    err = await failure(readFilelist(join(dir, 'bad-key/Bender.yml')));
    assert.equal(err.location?.line, 5);
    assert.match(err.message, /Unknown key 'filez'/);
    err = await failure(readFilelist(join(dir, 'bad-yaml/Bender.yml')));
    assert.equal(err.location?.file, join(dir, 'bad-yaml/Bender.yml'));
    assert.match(err.message, /Not valid YAML/);
    const fl = await readFilelist(join(dir, 'glob/Bender.yml'));
    assert.deepEqual(
      fl.files,
      ['src/a.sv', 'src/b.sv', 'src/deep/c.v'].map((f) => join(dir, 'glob', f)),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('FuseSoC: flags pick filesets; a missing fileset or file names its line', async () => {
  const fl = await readFilelist(join(FIX, 'acc.core'), { targets: ['fpga'] });
  assert.equal(fl.files.at(-1), join(FIX, 'fpga/acc_clock_gate.sv'));
  const dir = scratch({
    'a.core':
      'CAPI=2:\nname: ::a:0\nfilesets:\n  rtl:\n    files: [a.sv]\ntargets:\n  default:\n    filesets: [rtl, gone]\n',
    'b.core':
      'CAPI=2:\nname: ::b:0\nfilesets:\n  rtl:\n    files:\n      - b.sv\ntargets:\n  default:\n    filesets: [rtl]\n',
    'a.sv': '',
  });
  try {
    let err = await failure(readFilelist(join(dir, 'a.core')));
    assert.deepEqual(err.location, { file: join(dir, 'a.core'), line: 8 });
    assert.match(err.message, /No fileset 'gone'/);
    err = await failure(readFilelist(join(dir, 'b.core')));
    assert.deepEqual(err.location, { file: join(dir, 'b.core'), line: 6 });
    assert.match(err.message, /b\.sv does not exist/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Every `- path.sv` an upstream manifest names, created empty in `dir`, so its format is read without its IP. */
function standIn(manifest: string, dir: string): void {
  const text = readFileSync(manifest, 'utf8');
  for (const m of text.matchAll(/^\s*- ([\w/.-]+\.s?vh?)\b/gm)) {
    mkdirSync(dirname(join(dir, m[1])), { recursive: true });
    writeFileSync(join(dir, m[1]), '');
  }
  cpSync(manifest, join(dir, 'Bender.yml'));
}

test('the upstream manifests of the corpus: cv32e40p (one source group) and common_cells (target groups)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-upstream-'));
  try {
    // Their dependencies are path packages here, as a `bender checkout` of local clones would leave them.
    const lock = (names: string[]) =>
      `packages:\n${names.map((n) => `  ${n}:\n    revision: null\n    version: null\n    source:\n      Path: deps/${n}\n    dependencies: []\n`).join('')}`;
    const cv = join(dir, 'cv32e40p');
    standIn(corpusPath('real-ip-2', 'cv32e40p', 'Bender.yml'), cv);
    mkdirSync(join(cv, 'rtl/include'), { recursive: true });
    const cvDeps = ['fpnew', 'common_cells', 'tech_cells_generic'];
    writeFileSync(join(cv, 'Bender.lock'), lock(cvDeps));
    for (const n of cvDeps) scratchPackage(join(cv, 'deps', n), n);
    const fl = await readFilelist(join(cv, 'Bender.yml'));
    const own = fl.files.filter((f) => !f.includes('/deps/')).map((f) => f.slice(cv.length + 1));
    // Default targets: rtl (the simulation clock gate) and not(asic) (the flip-flop register file).
    assert.equal(own.length, 27);
    assert.ok(own.includes('rtl/cv32e40p_register_file_ff.sv') && !own.includes('rtl/cv32e40p_register_file_latch.sv'));
    assert.ok(own.includes('bhv/cv32e40p_sim_clock_gate.sv'));
    assert.deepEqual(fl.includeDirs, [join(cv, 'rtl/include')]);

    const cc = join(dir, 'common_cells');
    standIn(corpusPath('real-ip', 'common_cells', 'Bender.yml'), cc);
    mkdirSync(join(cc, 'include'), { recursive: true });
    writeFileSync(join(cc, 'Bender.lock'), lock(['common_verification', 'tech_cells_generic']));
    for (const n of ['common_verification', 'tech_cells_generic']) scratchPackage(join(cc, 'deps', n), n);
    const cells = (await readFilelist(join(cc, 'Bender.yml'))).files.map((f) => f.slice(cc.length + 1));
    assert.ok(cells.includes('src/cc_fifo.sv') && cells.includes('src/deprecated/fifo_v3.sv'));
    assert.ok(!cells.some((f) => f.startsWith('test/') || f.startsWith('formal/')));
    const noDeprecated = (await readFilelist(join(cc, 'Bender.yml'), { targets: ['cc_no_deprecated'] })).files;
    assert.ok(!noDeprecated.some((f) => f.includes('/deprecated/')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function scratchPackage(dir: string, name: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'Bender.yml'), `package:\n  name: ${name}\n`);
}

test('design files are told apart by name; chorus.projectTargets takes target names and -name', () => {
  assert.deepEqual(
    ['a/Bender.yml', 'x.core', 'w/.slang/server.json', 'server.json', 'verible.filelist', 'top.f', 'list.flist'].map(
      designFileKind,
    ),
    ['bender', 'fusesoc', 'slang', 'filelist', 'verible', 'filelist', 'filelist'],
  );
  const cfg = (projectTargets: unknown) => ({
    get: (k: string) => (k === 'projectTargets' ? projectTargets : undefined),
  });
  assert.deepEqual(parseDesignSettings(cfg(['fpga', '-rtl', 'xilinx.7'])).projectTargets, ['fpga', '-rtl', 'xilinx.7']);
  assert.deepEqual(parseDesignSettings(cfg(undefined)).projectTargets, []);
  for (const bad of ['fpga', ['a b'], [3], ['x:y']])
    assert.throws(() => parseDesignSettings(cfg(bad)), /^ChorusError: chorus\.projectTargets: /);
});
