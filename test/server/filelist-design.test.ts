/**
 * The design settings through the built language server over stdio, on a design whose top needs an include
 * folder and a define and whose ALU sits in a second folder (test/e2e/fixtures/filelist-design, read through its
 * filelist rtl/top.f): symbols of the macro file, filelist discovery, a run on the filelist's files, the design's
 * lint warnings as diagnostics (replaced by the next run), and bad settings named with the list's file and line.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic, DocumentSymbol } from 'vscode-languageserver';
import { analyzeSources } from '../../src/engine';
import { Notifications, Requests, type LoopEventParams } from '../../src/protocol';
import { didOpen, onNotification, request, startServer, type ServerUnderTest } from '../helpers/lsp';
import { limitMs } from '../helpers/time-limits';

const fixture = join(__dirname, '..', 'e2e', 'fixtures', 'filelist-design');
const LINT_SOURCE = 'chorus (Verilator lint)';
// Diagnostics follow a change by one analysis (a Verilator preprocessor run for the macro file): the first test,
// two such publishes and a symbol request, took 3.5 s at load average 18.
const PUBLISH_MS = limitMs(3_500, 18);

let ws: string;
let topPath: string;
let aluPath: string;
let topUri: string;
let aluUri: string;
let lsp: ServerUnderTest;
let settings: Record<string, unknown> = {};
const published = new Map<string, Diagnostic[]>();
const loopEvents: LoopEventParams[] = [];
let version = 1;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = PUBLISH_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline)
      throw new Error(`No ${what} within ${timeoutMs / 1000} s; published: ${JSON.stringify([...published])}`);
    await sleep(100);
  }
}

/** Changes the settings as an editor does: the answer to `workspace/configuration`, then the change notification. */
async function setSettings(next: Record<string, unknown>): Promise<void> {
  settings = next;
  await lsp.conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
}

async function touch(uri: string, text: string): Promise<void> {
  published.delete(uri);
  await lsp.conn.sendNotification('textDocument/didChange', {
    textDocument: { uri, version: ++version },
    contentChanges: [{ text }],
  });
}

before(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chorus-filelist-ws-'));
  cpSync(fixture, ws, { recursive: true });
  topPath = join(ws, 'rtl', 'acc_top.sv');
  aluPath = join(ws, 'ip', 'acc_alu.sv');
  topUri = pathToFileURL(topPath).toString();
  aluUri = pathToFileURL(aluPath).toString();
  lsp = await startServer(
    () => settings,
    undefined,
    (conn) => {
      conn.onNotification('textDocument/publishDiagnostics', (p: { uri: string; diagnostics: Diagnostic[] }) =>
        published.set(p.uri, p.diagnostics),
      );
      onNotification(conn, Notifications.loopEvent, (p) => loopEvents.push(p));
    },
    ws,
  );
});

after(async () => {
  await lsp?.close();
  rmSync(ws, { recursive: true, force: true });
});

const symbolsOf = async (uri: string) =>
  lsp.conn.sendRequest<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
const portDetail = (symbols: DocumentSymbol[], port: string) =>
  symbols.find((s) => s.name === 'acc_top')?.children?.find((c) => c.name === port)?.detail;

test("the macro file's symbols: unsized without the design settings, the define's widths with the filelist", async () => {
  const text = readFileSync(topPath, 'utf8');
  await didOpen(lsp.conn, topUri, text);
  // The include folder is unknown: `ACC_WIDTH cannot be expanded, so the ports have no known width.
  assert.equal(portDetail(await symbolsOf(topUri), 'din'), 'input');

  await setSettings({ filelist: 'rtl/top.f' });
  await touch(topUri, text);
  const withList = await waitFor('diagnostics after the filelist setting', () => published.get(topUri));
  assert.deepEqual(
    withList.filter((d) => d.source === 'chorus'),
    [],
    "the macro file reads cleanly with the filelist's include folder",
  );

  const symbols = await symbolsOf(topUri);
  assert.deepEqual(
    symbols.map((s) => s.name),
    ['acc_top'],
  );
  // ACC_WIDTH is 8 from the filelist's +define+ (the header's own default is 4).
  assert.equal(portDetail(symbols, 'din'), 'input [7:0]');
  assert.equal(portDetail(symbols, 'acc'), 'output [7:0]');
  const lenses = await lsp.conn.sendRequest<{ command?: { title: string } }[]>('textDocument/codeLens', {
    textDocument: { uri: topUri },
  });
  assert.ok(
    lenses.some((l) => l.command?.title === 'Generate high-coverage stimulus'),
    JSON.stringify(lenses),
  );
});

test('a macro call the text analysis cannot parse reads through the preprocessor: symbols and no syntax error', async () => {
  const path = join(ws, 'rtl', 'acc_pipe.sv');
  // An assertion macro whose argument holds `|->`, as common_cells' `ASSERT calls do: no grammar parses it unexpanded.
  const text = [
    '`include "acc_defs.svh"',
    '`define ACC_CHECK(name, prop, clk) name: assert property (@(posedge clk) prop);',
    'module acc_pipe (input logic clk, input logic rst, input logic [`ACC_WIDTH-1:0] d, output logic [`ACC_WIDTH-1:0] q);',
    "  `ACC_FF(q, d, '0, clk, rst)",
    "  `ACC_CHECK(held, rst |-> ##1 q == '0, clk)",
    'endmodule',
    '',
  ].join('\n');
  assert.ok(analyzeSources([{ name: path, content: text }]).errors.length > 0, 'the text as written does not parse');
  writeFileSync(path, text);
  const uri = pathToFileURL(path).toString();
  await didOpen(lsp.conn, uri, text);
  const diagnostics = await waitFor('diagnostics of the macro call file', () => published.get(uri));
  assert.deepEqual(
    diagnostics.filter((d) => d.source === 'chorus'),
    [],
    JSON.stringify(diagnostics),
  );
  const symbols = await symbolsOf(uri);
  assert.equal(
    symbols.find((s) => s.name === 'acc_pipe')?.children?.find((c) => c.name === 'q')?.detail,
    'output [7:0]',
  );
});

test('chorus.defines and chorus.includeDirs alone make the macro file read too', async () => {
  await setSettings({ includeDirs: ['include'], defines: ['ACC_WIDTH=6'] });
  assert.equal(portDetail(await symbolsOf(topUri), 'din'), 'input [5:0]');
  await setSettings({ includeDirs: ['include'], defines: { ACC_WIDTH: 3 } });
  assert.equal(portDetail(await symbolsOf(topUri), 'din'), 'input [2:0]');
});

test('chorus.defines reach `ifdef in the text analysis: a port a define enables is a symbol only with it', async () => {
  // Only directives, no macro calls: the document is read as written (no preprocessor run), with the defines. The
  // define has no value, so the analysis cache must tell it from no define at all.
  const path = join(ws, 'rtl', 'acc_dbg.sv');
  const text = [
    'module acc_dbg (',
    '  input logic clk,',
    '`ifdef ACC_DEBUG',
    '  output logic dbg,',
    '`endif',
    '  input logic d',
    ');',
    'endmodule',
    '',
  ].join('\n');
  writeFileSync(path, text);
  const uri = pathToFileURL(path).toString();
  await setSettings({});
  await didOpen(lsp.conn, uri, text);
  const ports = async () => (await symbolsOf(uri)).find((s) => s.name === 'acc_dbg')?.children?.map((c) => c.name);
  assert.deepEqual(await ports(), ['clk', 'd']);
  await setSettings({ defines: ['ACC_DEBUG'] });
  assert.deepEqual(await ports(), ['clk', 'dbg', 'd']);
  await setSettings({});
});

test('chorus/filelistsFor names the lists that list the document', async () => {
  writeFileSync(join(ws, 'other.f'), 'ip/acc_alu.sv\n');
  const lists = [pathToFileURL(join(ws, 'other.f')).toString(), pathToFileURL(join(ws, 'rtl', 'top.f')).toString()];
  assert.deepEqual((await request(lsp.conn, Requests.filelistsFor, { uri: topUri, lists })).lists, [lists[1]]);
  assert.deepEqual((await request(lsp.conn, Requests.filelistsFor, { uri: aluUri, lists })).lists, lists);
  // A list written for `-F`, its paths relative to its own folder, is read that way when the workspace folder fails.
  writeFileSync(join(ws, 'rtl', 'self.f'), '+incdir+../include\n+define+ACC_WIDTH=5\nacc_top.sv\n../ip/acc_alu.sv\n');
  const self = pathToFileURL(join(ws, 'rtl', 'self.f')).toString();
  assert.deepEqual((await request(lsp.conn, Requests.filelistsFor, { uri: topUri, lists: [self] })).lists, [self]);
  await setSettings({ filelist: 'rtl/self.f' });
  assert.equal(portDetail(await symbolsOf(topUri), 'din'), 'input [4:0]');
});

// A run on this design took 10.7 s here (its first build) and 8.6 s warm, at load average 18; with the whole build
// cache cold, as on a fresh CI machine, a model-free run took 94 s at load 17 (test/e2e/product.test.ts).
const RUN_MS = limitMs(93_700, 17);

test(
  "a run on the filelist: its files and folders, and the design's lint warnings as diagnostics on the ALU",
  { timeout: RUN_MS },
  async () => {
    await setSettings({ filelist: 'rtl/top.f', engine: 'random' });
    const result = await request(lsp.conn, Requests.generate, {
      uri: topUri,
      runId: 'fl-1',
      engine: 'random',
      seed: 1,
      budgetSeconds: 5,
      targets: { line: 100, branch: 100 },
    });
    assert.equal(result.top, 'acc_top');
    const start = loopEvents.find((e) => e.runId === 'fl-1' && e.event.type === 'start')?.event;
    assert.ok(start?.type === 'start');
    assert.deepEqual([...start.files].sort(), [aluPath, topPath].sort(), "the filelist's files, from both folders");
    assert.ok(result.coverage.line.covered > 0, JSON.stringify(result.coverage));
    assert.ok(
      result.holes.every((h) => h.file === topPath || h.file === aluPath),
      'holes are in the design',
    );

    // The WIDTH warning of `{1'b0, a} >> 1` (9 bits into 8): once, on the ALU (not open), at its line and column.
    const width = (result.designWarnings ?? []).filter((d) => d.message.includes('[WIDTH]'));
    assert.equal(width.length, 1, JSON.stringify(result.designWarnings));
    const onAlu = await waitFor('lint diagnostics on the ALU', () => published.get(aluUri));
    const lint = onAlu.filter((d) => d.source === LINT_SOURCE);
    assert.equal(lint.length, 1, JSON.stringify(onAlu));
    assert.equal(lint[0].code, 'WIDTH');
    assert.equal(lint[0].severity, 2, 'a Warning');
    assert.deepEqual(lint[0].range.start, { line: 12, character: 17 });
    assert.doesNotMatch(lint[0].message, /\[WIDTH\]/);
    // Never mixed with the testbench's messages: none of the run's own diagnostics is a lint warning of the design.
    assert.ok(
      result.diagnostics.every((d) => !d.message.includes('[WIDTH]')),
      JSON.stringify(result.diagnostics),
    );
    assert.ok(!(published.get(topUri) ?? []).some((d) => d.source === LINT_SOURCE), 'the top has no lint warning');
  },
);

test('the next run replaces the lint warnings: fixed in the ALU, they are gone', { timeout: RUN_MS }, async () => {
  writeFileSync(aluPath, readFileSync(aluPath, 'utf8').replace("y = {1'b0, a} >> 1;", 'y = a >> 1;'));
  published.delete(aluUri);
  const result = await request(lsp.conn, Requests.generate, {
    uri: topUri,
    runId: 'fl-2',
    engine: 'random',
    seed: 1,
    budgetSeconds: 5,
    targets: { line: 100, branch: 100 },
  });
  assert.deepEqual(result.designWarnings ?? [], []);
  const onAlu = await waitFor("the ALU's diagnostics replaced", () => published.get(aluUri));
  assert.deepEqual(
    onAlu.filter((d) => d.source === LINT_SOURCE),
    [],
  );
});

test('bad settings fail the run naming the setting, or the list and line, with what to do', async () => {
  await setSettings({ filelist: 'rtl/nope.f' });
  await assert.rejects(
    request(lsp.conn, Requests.generate, { uri: topUri, runId: 'bad-1', engine: 'random' }),
    (err: Error) => {
      assert.match(err.message, /chorus\.filelist names rtl\/nope\.f/);
      assert.match(err.message, /fix the path/);
      return true;
    },
  );

  const bad = join(ws, 'rtl', 'bad.f');
  writeFileSync(bad, '+incdir+include\n-timescale 1ns/1ps\nrtl/acc_top.sv\n');
  await setSettings({ filelist: 'rtl/bad.f' });
  await assert.rejects(
    request(lsp.conn, Requests.generate, { uri: topUri, runId: 'bad-2', engine: 'random' }),
    (err: Error) => {
      assert.ok(err.message.startsWith(`${bad}:2: Unknown filelist option -timescale`), err.message);
      assert.match(err.message, /chorus\.filelist setting: fix the list/);
      return true;
    },
  );
  // The bad line shows in the Problems view, on the list.
  await touch(topUri, readFileSync(topPath, 'utf8'));
  const badUri = pathToFileURL(bad).toString();
  const onList = await waitFor('a diagnostic on the bad filelist line', () => published.get(badUri));
  assert.equal(onList.length, 1);
  assert.equal(onList[0].range.start.line, 1);
  assert.match(onList[0].message, /Unknown filelist option -timescale/);

  await setSettings({ defines: { 'NOT A NAME': 1 } });
  await assert.rejects(
    request(lsp.conn, Requests.generate, { uri: topUri, runId: 'bad-3', engine: 'random' }),
    /chorus\.defines: 'NOT A NAME' is not a macro name: fix it in the workspace settings/,
  );
  await setSettings({ topParameters: { W: '8' } });
  await assert.rejects(
    request(lsp.conn, Requests.generate, { uri: topUri, runId: 'bad-5', engine: 'random' }),
    /acc_top has no parameter 'W'/,
    'the top parameters reach the run: acc_top has none',
  );
  await setSettings({ topParameters: { W: [8] } });
  await assert.rejects(
    request(lsp.conn, Requests.generate, { uri: topUri, runId: 'bad-6', engine: 'random' }),
    /chorus\.topParameters: the value of W must be a number or Verilog constant text/,
  );
  await setSettings({ includeDirs: ['no-such-folder'] });
  await assert.rejects(
    request(lsp.conn, Requests.generate, { uri: topUri, runId: 'bad-4', engine: 'random' }),
    /chorus\.includeDirs names no-such-folder/,
  );
  // Fixed: the list's diagnostic goes once a document is read with good settings.
  await setSettings({ filelist: 'rtl/top.f' });
  await touch(topUri, readFileSync(topPath, 'utf8'));
  await waitFor('the filelist diagnostic cleared', () => (published.get(badUri)?.length === 0 ? true : undefined));
});
