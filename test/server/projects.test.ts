/**
 * Project files as `chorus.filelist` through the built language server over stdio (test/fixtures/projects): each
 * of Bender.yml, a FuseSoC core, .slang/server.json and verible.filelist gives the macro file the widths its
 * define sets, as the hand-written .f does; `chorus/filelistsFor` names them all for discovery;
 * `chorus.projectTargets` reaches the Bender reader; a bad Bender.yml is an Error on its line.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic, DocumentSymbol } from 'vscode-languageserver';
import { Requests } from '../../src/protocol';
import { didOpen, request, startServer, type ServerUnderTest } from '../helpers/lsp';
import { limitMs } from '../helpers/time-limits';

const fixture = join(__dirname, '..', 'fixtures', 'projects');
/** A design read and a publish: the filelist server test measured 3.5 s for two at load average 18. */
const PUBLISH_MS = limitMs(3_500, 18);

let ws: string;
let topUri: string;
let lsp: ServerUnderTest;
let settings: Record<string, unknown> = {};
const published = new Map<string, Diagnostic[]>();
const uri = (name: string) => pathToFileURL(join(ws, name)).toString();

before(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chorus-projects-ws-'));
  cpSync(fixture, ws, { recursive: true });
  topUri = uri('rtl/acc_top.sv');
  lsp = await startServer(
    () => settings,
    undefined,
    (conn) =>
      conn.onNotification('textDocument/publishDiagnostics', (p: { uri: string; diagnostics: Diagnostic[] }) =>
        published.set(p.uri, p.diagnostics),
      ),
    ws,
  );
  await didOpen(lsp.conn, topUri, readFileSync(join(ws, 'rtl/acc_top.sv'), 'utf8'));
});

after(async () => {
  await lsp?.close();
  rmSync(ws, { recursive: true, force: true });
});

async function setSettings(next: Record<string, unknown>): Promise<void> {
  settings = next;
  await lsp.conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
}

async function dinDetail(): Promise<string | undefined> {
  const symbols = await lsp.conn.sendRequest<DocumentSymbol[]>('textDocument/documentSymbol', {
    textDocument: { uri: topUri },
  });
  return symbols.find((s) => s.name === 'acc_top')?.children?.find((c) => c.name === 'din')?.detail;
}

test('chorus/filelistsFor names every project file that lists the document, as a run reads it', async () => {
  const lists = ['hand.f', 'Bender.yml', 'acc.core', '.slang/server.json', 'verible.filelist', 'ip/alu.f'].map(uri);
  const { lists: found } = await request(lsp.conn, Requests.filelistsFor, { uri: topUri, lists });
  assert.deepEqual(found, lists.slice(0, 5));
});

test('each project file as chorus.filelist gives the analysis the define and include folder the .f gives', async () => {
  assert.equal(await dinDetail(), 'input', 'without design settings the macro width is unknown');
  for (const list of ['hand.f', 'Bender.yml', 'acc.core', '.slang/server.json', 'verible.filelist']) {
    await setSettings({ filelist: list });
    assert.equal(await dinDetail(), 'input [7:0]', list);
  }
  // The fpga targets leave out the group that defines ACC_WIDTH: the header's default, 4.
  await setSettings({ filelist: 'Bender.yml', projectTargets: ['fpga', 'xilinx'] });
  assert.equal(await dinDetail(), 'input [3:0]');
});

test('a bad target expression in Bender.yml is an Error diagnostic on its line', async () => {
  writeFileSync(
    join(ws, 'Bender.yml'),
    'package:\n  name: acc\nexport_include_dirs: [include]\nsources:\n  - target: all(rtl\n    files: [rtl/acc_top.sv]\n',
  );
  await setSettings({ filelist: 'Bender.yml', projectTargets: ['x'] });
  assert.equal(await dinDetail(), 'input', 'a bad design is no design: the text as written');
  const deadline = Date.now() + PUBLISH_MS;
  let diagnostics: Diagnostic[] | undefined;
  while (!(diagnostics = published.get(uri('Bender.yml')))?.length && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  assert.ok(diagnostics?.length, `no diagnostic on Bender.yml within ${PUBLISH_MS / 1000} s`);
  assert.equal(diagnostics[0].range.start.line, 4);
  assert.match(diagnostics[0].message, /Unknown target expression 'all\(rtl'/);
});
