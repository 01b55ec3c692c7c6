/**
 * Filelist discovery with the vscode stub and a fake server: a `.f` that lists the open design file is offered
 * once; accepted, its workspace-relative path becomes `chorus.filelist`; declined, it is remembered in the
 * workspace state and never offered again; a set `chorus.filelist` means no search at all.
 */
import './stub/register';
import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { FilelistsForParams } from '../../src/protocol';
import {
  DECLINE_FILELIST,
  DECLINED_KEY,
  FilelistDiscovery,
  filelistSettingValue,
  USE_FILELIST,
} from '../../src/extension/filelistDiscovery';
import { memento, silent } from './runFixtures';
import { makeDocument, makeEditor, stub } from './stub/vscode';

const ws = '/ws';
const topList = vscode.Uri.file(`${ws}/rtl/top.f`).toString();
const deepList = vscode.Uri.file(`${ws}/sim/lists/all.f`).toString();
const unrelated = vscode.Uri.file(`${ws}/other.f`).toString();
/** The stub's document, as the extension's code types it. */
const doc = (uri: vscode.Uri, text: string, languageId?: string) =>
  makeDocument(uri, text, languageId) as unknown as vscode.TextDocument;
const top = doc(vscode.Uri.file(`${ws}/rtl/acc_top.sv`), 'module acc_top; endmodule\n');
const alu = doc(vscode.Uri.file(`${ws}/ip/acc_alu.sv`), 'module acc_alu; endmodule\n');

/** The server's answer: which lists name which documents. */
const listing: Record<string, string[]> = {
  [topList]: [top.uri.toString(), alu.uri.toString()],
  [deepList]: [top.uri.toString()],
  [unrelated]: [],
};
let asked: FilelistsForParams[] = [];
const server = {
  filelistsFor: async (p: FilelistsForParams) => {
    asked.push(p);
    return { lists: p.lists.filter((l) => listing[l]?.includes(p.uri)) };
  },
};

beforeEach(() => {
  stub.reset();
  stub.workspaceFolder = vscode.Uri.file(ws);
  stub.files = [deepList, unrelated, topList].map((u) => vscode.Uri.parse(u));
  asked = [];
});

function discovery(state = memento()) {
  return { state, d: new FilelistDiscovery({ server, state, logger: silent }) };
}

test('accepted: the shallowest list that names the file becomes chorus.filelist, relative to the workspace folder', async () => {
  stub.answer = (_level, text) => (/Use rtl\/top\.f for this design\?/.test(text) ? USE_FILELIST : undefined);
  const { d } = discovery();
  await d.check(top);
  assert.equal(stub.messages.length, 1, JSON.stringify(stub.messages));
  assert.match(stub.messages[0].text, /lists acc_top\.sv/);
  assert.deepEqual(stub.messages[0].items, [USE_FILELIST, DECLINE_FILELIST]);
  assert.equal(stub.config['chorus.filelist'], 'rtl/top.f');
  // Shallow lists first; node_modules and .git are never searched; the search is bounded.
  assert.deepEqual(asked[0].lists, [unrelated, topList, deepList]);
  const call = stub.findFilesCalls[0];
  assert.match(String(call.exclude), /node_modules/);
  assert.match(String(call.exclude), /\.git/);
  assert.equal(typeof call.max, 'number');
  d.dispose();
});

test('project files are searched with .f lists; Bender and FuseSoC checkouts are not', async () => {
  const { d } = discovery();
  await d.check(top);
  const { include, exclude } = stub.findFilesCalls[0];
  const pattern = String((include as { pattern?: unknown }).pattern ?? include);
  for (const kind of ['*.f', 'Bender.yml', '*.core', '.slang/server.json', 'verible.filelist'])
    assert.ok(pattern.includes(kind), `${kind} in ${pattern}`);
  assert.match(String(exclude), /\.bender/);
  assert.match(String(exclude), /fusesoc_libraries/);
  d.dispose();
});

test('declined: remembered in the workspace state, never offered again, also in a later session', async () => {
  stub.answer = () => DECLINE_FILELIST;
  const first = discovery();
  await first.d.check(top);
  assert.deepEqual(first.state.get(DECLINED_KEY), [topList]);
  assert.equal(stub.config['chorus.filelist'], undefined);
  first.d.dispose();

  // A new session with the same workspace state: the declined list is no candidate; the next one is offered.
  stub.messages = [];
  const later = discovery(first.state);
  await later.d.check(top);
  assert.ok(!asked.at(-1)?.lists.includes(topList), JSON.stringify(asked.at(-1)));
  assert.equal(stub.messages.length, 1);
  assert.match(stub.messages[0].text, /Use sim\/lists\/all\.f/);
  assert.deepEqual(later.state.get(DECLINED_KEY), [topList, deepList]);
  later.d.dispose();
});

test('dismissed: not offered again in this session, for this file or another one it lists', async () => {
  const { d } = discovery();
  await d.check(top);
  await d.check(top);
  await d.check(alu);
  assert.equal(stub.messages.filter((m) => /rtl\/top\.f/.test(m.text)).length, 1, JSON.stringify(stub.messages));
  d.dispose();
});

test('a set chorus.filelist, a file outside the workspace or no design file: no search, no offer', async () => {
  stub.config['chorus.filelist'] = 'rtl/top.f';
  const { d } = discovery();
  await d.check(top);
  await d.check(doc(vscode.Uri.file('/elsewhere/x.sv'), 'module x; endmodule\n'));
  await d.check(doc(vscode.Uri.file(`${ws}/README.md`), '# hi\n', 'markdown'));
  assert.deepEqual(stub.findFilesCalls, []);
  assert.deepEqual(stub.messages, []);
  d.dispose();
});

test('the active editor is checked at start and whenever it changes', async () => {
  stub.answer = () => USE_FILELIST;
  stub.activeTextEditor = makeEditor(makeDocument(top.uri, 'module acc_top; endmodule\n'));
  const { d } = discovery();
  const deadline = Date.now() + 5000;
  while (stub.config['chorus.filelist'] === undefined && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 10));
  assert.equal(stub.config['chorus.filelist'], 'rtl/top.f');
  d.dispose();

  stub.reset();
  stub.workspaceFolder = vscode.Uri.file(ws);
  stub.files = [vscode.Uri.parse(topList)];
  const next = discovery();
  stub.activeEditorChanged.fire(makeEditor(makeDocument(alu.uri, 'module acc_alu; endmodule\n')));
  while (!stub.messages.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.match(stub.messages[0]?.text ?? '', /Use rtl\/top\.f for this design\? It lists acc_alu\.sv/);
  next.d.dispose();
});

test('the setting value uses forward slashes, relative to the folder', () => {
  assert.equal(filelistSettingValue('/ws', '/ws/rtl/top.f'), 'rtl/top.f');
  assert.equal(filelistSettingValue('/ws', '/ws/top.f'), 'top.f');
});
