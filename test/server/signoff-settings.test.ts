/**
 * The signoff settings reach the engine through the built language server: `chorus.waiverFile` makes a run check
 * and write the waiver file (a person's entry excludes its point, proofs are added), the result the editor gets
 * carries the waived hole and the verdict's count, and `chorus/exportWaivers` writes the run's exclusions; a
 * regression with an engine that cannot start from one is refused in words that say so.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseWaivers } from '../../src/engine/waivers/file';
import { Requests, type GenerateResult } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { request, startServer, type ServerUnderTest } from '../helpers/lsp';
import { fileReply, replayModel } from '../helpers/replay';

let work: string;
let design: string;
let waivers: string;
let lsp: ServerUnderTest;
let settings: Record<string, unknown>;
let result: GenerateResult;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'chorus-signoff-settings-'));
  mkdirSync(join(work, 'rtl'));
  mkdirSync(join(work, 'signoff'));
  design = join(work, 'rtl', 'xmux.sv');
  copyFileSync(join(repoRoot, 'test', 'fixtures', 'signoff', 'xmux.sv'), design);
  waivers = join(work, 'signoff', 'xmux.waivers.toml');
  writeFileSync(
    waivers,
    '# CHORUS waivers\nversion = 1\n\n[[waiver]]\nfile = "../rtl/xmux.sv"\nline = 7\nkind = "toggle"\npoint = "bad"\n' +
      'instance = ""\ncategory = "LOW_RISK"\nreason = "debug flag"\nwho = "Ana Reviewer"\n',
  );
  settings = {
    engine: 'random',
    waiverFile: 'signoff/xmux.waivers.toml',
    targets: { line: 100, branch: 100, toggle: 100 },
  };
  lsp = await startServer(() => settings, undefined, undefined, work);
  result = await request(lsp.conn, Requests.generate, {
    uri: pathToFileURL(design).href,
    runId: 'signoff',
    top: 'xmux',
    seed: 1,
  });
});

after(async () => {
  await lsp?.close();
  rmSync(work, { recursive: true, force: true });
});

test('chorus.waiverFile: the run checks the file, the waived hole and the verdict reach the editor', () => {
  assert.equal(result.waivers?.file, waivers, JSON.stringify(result.waivers));
  assert.equal(result.waivers?.applied, 1);
  const waived = result.holes.find((h) => h.kind === 'toggle' && h.waiver);
  assert.deepEqual(waived?.waiver, { category: 'LOW_RISK', reason: 'debug flag', who: 'Ana Reviewer' });
  assert.equal(result.verdict?.excluded.toggle?.waived, 1, JSON.stringify(result.verdict));
  const entries = parseWaivers(readFileSync(waivers, 'utf8'), waivers);
  assert.ok(
    entries.some((e) => e.category === 'LOW_RISK' && e.who === 'Ana Reviewer'),
    'the person’s entry is kept',
  );
  assert.equal(entries.filter((e) => e.category === 'UNR').length, result.waivers?.added);
});

test('chorus/exportWaivers writes the run’s exclusions, and asks before replacing a file CHORUS did not write', async () => {
  const vlt = join(work, 'signoff', 'xmux.vlt');
  const params = { uri: pathToFileURL(design).href, format: 'vlt' as const, target: pathToFileURL(vlt).href };
  const written = await request(lsp.conn, Requests.exportWaivers, params);
  assert.equal(written.status, 'written');
  assert.ok(readFileSync(vlt, 'utf8').startsWith('`verilator_config\n// CHORUS exclusions'));
  const mine = join(work, 'signoff', 'mine.el');
  writeFileSync(mine, 'my exclusions\n');
  const asked = await request(lsp.conn, Requests.exportWaivers, {
    ...params,
    format: 'urgEl',
    target: pathToFileURL(mine).href,
  });
  assert.equal(asked.status, 'needsConsent');
  assert.equal(readFileSync(mine, 'utf8'), 'my exclusions\n');
});

test('a regression with an engine that cannot start from one is refused, saying only the model-free one can', async () => {
  settings = {
    engine: 'hybrid',
    model: replayModel([fileReply('module tb_xmux; endmodule', 'tb_xmux.sv')]),
    regressionCoverage: ['regr/coverage.dat'],
  };
  await assert.rejects(
    request(lsp.conn, Requests.generate, { uri: pathToFileURL(design).href, runId: 'merge', top: 'xmux' }),
    /only supported by the model-free engine for now, and this run's engine is hybrid/,
  );
});

test('the request’s regression reaches the engine, which reads it before the run (a missing file is named)', async () => {
  settings = { engine: 'random' };
  const missing = join(work, 'regr', 'gone.dat');
  await assert.rejects(
    request(lsp.conn, Requests.generate, {
      uri: pathToFileURL(design).href,
      runId: 'merge-missing',
      top: 'xmux',
      regression: [pathToFileURL(missing).href],
    }),
    (err: Error) => err.message.includes('gone.dat'),
  );
});
