/**
 * `chorus/exportWaivers`: the last run's exclusions written by the engine's exports through its output rule. A
 * new file or one CHORUS wrote is written; a file CHORUS did not write is left as it is and the answer asks for
 * consent, then `force` replaces it; a source of the run is never replaced. And the signoff design settings
 * (`chorus.waiverFile`, `chorus.regressionCoverage`) resolve against the workspace folder.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ChorusError, NO_DESIGN_SETTINGS, parseDesignSettings, Requests } from '../../src/protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { holeDiagnostics } from '../../src/server/diagnostics';
import { hoverAt } from '../../src/server/hover';
import { coverageTitle } from '../../src/server/lenses';
import { resolveDesign } from '../../src/server/design';
import { requestHandlers, type RequestContext } from '../../src/server/requests';
import { ResultStore } from '../../src/server/results';
import { checkWaiverSetting } from '../../src/server/runs';
import { SOURCE, waivedRun, type WaivedRun } from '../helpers/waivedRun';

let run: WaivedRun;
let handlers: ReturnType<typeof requestHandlers>;
const url = (p: string) => pathToFileURL(p).href;

before(async () => {
  run = await waivedRun();
  const results = new ResultStore();
  results.set({ result: run.result, points: run.points, files: [run.file], finishedAt: Date.now() });
  // The export reads only the results and the workspace folders of the server's context.
  const ctx = { results, folders: () => [run.dir] } as unknown as RequestContext;
  handlers = requestHandlers(ctx);
});
after(() => rmSync(run.dir, { recursive: true, force: true }));

const exportTo = async (format: 'vlt' | 'urgEl' | 'imcTcl' | 'lcov' | 'cobertura', file: string, extra = {}) =>
  handlers.exportWaivers({ uri: url(run.file), format, target: url(file), ...extra }, undefined as never);

test('the request is declared with its params schema', () => {
  assert.equal(Requests.exportWaivers.method, 'chorus/exportWaivers');
});

test('.vlt: coverage_off on the wholly excluded lines only', async () => {
  const file = join(run.dir, 'signoff', 'm.vlt');
  const answer = await exportTo('vlt', file);
  assert.deepEqual(answer, { status: 'written', file, excluded: 4 });
  const text = readFileSync(file, 'utf8');
  assert.ok(text.startsWith('`verilator_config\n// CHORUS exclusions'), text);
  const off = [...text.matchAll(/-lines (\S+)/g)].map((m) => m[1]);
  // 7 waived, 9 proven, 13 a kept UNR; 3 has a covered point, 11 an open hole.
  assert.deepEqual(off, ['7', '9', '13']);
});

test('lcov and Cobertura leave the waived points out', async () => {
  const lcov = join(run.dir, 'signoff', 'm.lcov.info');
  await exportTo('lcov', lcov);
  const text = readFileSync(lcov, 'utf8');
  const da = [...text.matchAll(/^DA:(\d+),/gm)].map((m) => Number(m[1]));
  assert.deepEqual(da, [3, 4, 11]);
  assert.doesNotMatch(text, /^BRDA:3,\d+,1,/m, 'the waived else arm is left out');
  const xml = join(run.dir, 'signoff', 'm.cobertura.xml');
  await exportTo('cobertura', xml);
  const cob = readFileSync(xml, 'utf8');
  assert.match(cob, /filename="rtl\/m\.sv"/, 'files relative to the workspace folder');
  assert.deepEqual(
    [...cob.matchAll(/<line number="(\d+)"/g)].map((m) => Number(m[1])),
    [3, 4, 11],
  );
});

test('URG and IMC exports are placed under the DUT path the user gave', async () => {
  const el = join(run.dir, 'signoff', 'm.el');
  await exportTo('urgEl', el, { dutPath: 'top.u_m' });
  assert.ok(readFileSync(el, 'utf8').startsWith('// CHORUS exclusions for URG'));
  const tcl = join(run.dir, 'signoff', 'm.tcl');
  await exportTo('imcTcl', tcl);
  assert.ok(readFileSync(tcl, 'utf8').startsWith('# CHORUS exclusions for IMC'));
});

test('a file CHORUS did not write is kept until the user consents; one it wrote is replaced', async () => {
  const mine = join(run.dir, 'signoff', 'mine.vlt');
  writeFileSync(mine, '// my own configuration\n');
  const asked = await exportTo('vlt', mine);
  assert.equal(asked.status, 'needsConsent');
  assert.match(asked.status === 'needsConsent' ? asked.message : '', /not written by CHORUS/);
  assert.equal(readFileSync(mine, 'utf8'), '// my own configuration\n', 'nothing written without consent');
  const forced = await exportTo('vlt', mine, { force: true });
  assert.equal(forced.status, 'written');
  assert.ok(readFileSync(mine, 'utf8').startsWith('`verilator_config'));
  // Now CHORUS's own: replaced without asking.
  assert.equal((await exportTo('vlt', mine)).status, 'written');
  // Another format's file is not CHORUS's file of this format.
  assert.equal((await exportTo('lcov', mine)).status, 'needsConsent');
});

test('a source of the run or its waiver file is never replaced, not even with consent', async () => {
  const before = readFileSync(run.file, 'utf8');
  await assert.rejects(exportTo('vlt', run.file, { force: true }), /input of the run/);
  assert.equal(readFileSync(run.file, 'utf8'), before);
  writeFileSync(run.waiverFile, '# CHORUS waivers\nversion = 1\n');
  await assert.rejects(exportTo('vlt', run.waiverFile, { force: true }), /input of the run/);
});

test('a document without a run is refused with what to do', async () => {
  await assert.rejects(
    (async () =>
      handlers.exportWaivers(
        { uri: url(join(run.dir, 'other.sv')), format: 'vlt', target: url(join(run.dir, 'x.vlt')) },
        undefined as never,
      ))(),
    (err: unknown) => err instanceof ChorusError && /run "Generate high-coverage stimulus" first/.test(err.message),
  );
});

test('chorus.waiverFile and chorus.regressionCoverage resolve against the workspace folder', async () => {
  const settings = parseDesignSettings({
    get: (k) =>
      ({ waiverFile: 'signoff/m.waivers.toml', regressionCoverage: ['regr/a.dat', '/abs/b.dat'] })[k as string],
  });
  const design = await resolveDesign(settings, run.file, run.dir);
  assert.equal(design.waiverFile, join(run.dir, 'signoff', 'm.waivers.toml'));
  assert.deepEqual(design.regression, [join(run.dir, 'regr', 'a.dat'), '/abs/b.dat']);
  const none = await resolveDesign(NO_DESIGN_SETTINGS, run.file, run.dir);
  assert.equal(none.waiverFile, undefined);
  assert.deepEqual(none.regression, []);
  assert.throws(
    () => parseDesignSettings({ get: (k) => (k === 'regressionCoverage' ? 'a.dat' : undefined) }),
    /chorus\.regressionCoverage: expected a list of coverage\.dat paths/,
  );
});

test('chorus.waiverFile naming a file CHORUS did not write is refused before the run, naming the setting', async () => {
  const notes = join(run.dir, 'notes.toml');
  writeFileSync(notes, 'title = "my notes"\n');
  await assert.rejects(
    checkWaiverSetting(notes, [run.file]),
    /chorus\.waiverFile names .*notes\.toml, which CHORUS may not write .*choose another path, or clear the setting/,
  );
  const bad = join(run.dir, 'bad.waivers.toml');
  writeFileSync(bad, '# CHORUS waivers\nversion = 1\n[[waiver]]\nfile = 3\n');
  await assert.rejects(
    checkWaiverSetting(bad, [run.file]),
    (err: unknown) => err instanceof ChorusError && err.location?.file === bad && err.location.line === 4,
  );
  await checkWaiverSetting(join(run.dir, 'absent.waivers.toml'), [run.file]);
});

test('the server’s hover, diagnostics and lens name waived points as waived, not as holes', () => {
  const doc = TextDocument.create(url(run.file), 'systemverilog', 1, SOURCE);
  const hover = (line: number) => {
    const h = hoverAt(doc, { line: line - 1, character: 0 }, run.result.lines ?? [], run.holes, run.file);
    return h && typeof h.contents === 'object' && 'value' in h.contents ? h.contents.value : '';
  };
  assert.match(hover(7), /if branch never taken: \*\*LOW_RISK waiver by ana: debug opcode, never used\*\*/);
  assert.match(hover(3), /- else: never taken \(waived LOW_RISK\)/);
  assert.match(hover(13), /UNR waiver by chorus: k-induction, depth 2 \(proof: induction, depth 2, yosys 0\.55/);
  const diagnostics = holeDiagnostics(run.holes, run.file);
  assert.deepEqual(
    diagnostics.map((d) => [d.range.start.line + 1, d.message.split(':')[0]]),
    [
      [3, 'Waived'],
      [7, 'Waived'],
      [9, 'Proven unreachable'],
      [11, 'Not covered'],
      [13, 'Waived'],
    ],
  );
  assert.match(coverageTitle(run.result), / · 1 proven unreachable · 3 waived · 1 hole$/);
});
