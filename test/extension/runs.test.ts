/**
 * One run from the command palette, against a scripted server: loop events become live gutter marks, progress
 * lines and chat messages; the result becomes Test Coverage, a testbench file beside the DUT and status text.
 */
import './stub/register';
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { CoverageSummary, GenerateParams, GenerateResult, HostToWebview, LineCoverage, LoopEvent, Hole } from '../../src/protocol';
import { ErrorReporter } from '../../src/extension/errors';
import { CoverageGutter } from '../../src/extension/gutter';
import { Runs } from '../../src/extension/runs';
import type { ChorusServer } from '../../src/extension/server';
import { readSettings } from '../../src/extension/settings';
import { StatusBar } from '../../src/extension/statusBar';
import { CoverageStore } from '../../src/extension/store';
import { CoverageTests } from '../../src/extension/testCoverage';
import { MARKER_PREFIX, TestbenchWriter } from '../../src/extension/testbench';
import { repoRoot } from '../helpers/cli';
import { documentChanged, makeDocument, makeEditor, stub, SymbolKind, type FakeEditor } from './stub/vscode';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

function memento() {
  const data = new Map<string, unknown>();
  return { get: <T>(k: string) => data.get(k) as T | undefined, update: async (k: string, v: unknown) => void data.set(k, v), keys: () => [...data.keys()] };
}

const k = (covered: number, total: number) => ({ covered, total, pct: Math.round((1000 * covered) / total) / 10 });
const cov = (l: number, b: number): CoverageSummary => ({ line: k(l, 10), branch: k(b, 8), toggle: k(20, 40) });
// counter.sv: line 17 `if (!rst_n)`, 26 `if (count == MAX)`, 34 `2'b11: count <= load_value;`
const round1: LineCoverage[] = [
  { file: 'counter.sv', line: 17, hits: 40, branches: [{ label: 'if', count: 4 }, { label: 'else', count: 36 }], missingToggles: [] },
  { file: 'counter.sv', line: 26, hits: 9, branches: [{ label: 'if', count: 0 }, { label: 'else', count: 9 }], missingToggles: [] },
  { file: 'counter.sv', line: 34, hits: 0, branches: [], missingToggles: [] },
];
const holes1: Hole[] = [
  { kind: 'branch', file: 'counter.sv', line: 26, detail: 'if arm of if (count == MAX) never taken' },
  { kind: 'line', file: 'counter.sv', line: 34, detail: "case item 2'b11" },
];
const round2: LineCoverage[] = round1.map((l) => ({ ...l, hits: l.hits || 3, branches: l.branches.map((b) => ({ ...b, count: b.count || 1 })) }));

interface Harness {
  dir: string;
  dut: vscode.Uri;
  editor: FakeEditor;
  runs: Runs;
  store: CoverageStore;
  posted: HostToWebview[];
  gutter: CoverageGutter;
  calls: GenerateParams[];
}

let h: Harness;
let script: (p: GenerateParams, token: vscode.CancellationToken, emit: (e: LoopEvent) => void) => Promise<GenerateResult>;

function marks(editor: FakeEditor): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [type, opts] of editor.decorations) {
    const icon = String((type as { options: { gutterIconPath: string } }).options.gutterIconPath);
    const state = icon.replace(/^.*\//, '').replace('.svg', '');
    out[state] = opts.map((o) => o.range.start.line + 1);
  }
  return out;
}

beforeEach(() => {
  stub.reset();
  const dir = mkdtempSync(join(tmpdir(), 'chorus-ext-'));
  copyFileSync(join(repoRoot, 'examples', 'counter', 'counter.sv'), join(dir, 'counter.sv'));
  const dut = vscode.Uri.file(join(dir, 'counter.sv'));
  stub.workspaceFolder = vscode.Uri.file(dir);
  stub.symbols = [{ name: 'counter', kind: SymbolKind.Module, children: [] }];
  const editor = makeEditor(makeDocument(dut, readFileSync(dut.fsPath, 'utf8')));
  stub.activeTextEditor = editor;
  stub.visibleTextEditors = [editor];

  const store = new CoverageStore();
  const posted: HostToWebview[] = [];
  const calls: GenerateParams[] = [];
  const late: { runs?: Runs } = {};
  const server: ChorusServer = {
    generate: (p, token) => {
      calls.push(p);
      return script(p, token!, (event) => late.runs!.onLoopEvent({ runId: p.runId, uri: p.uri, event }));
    },
    coverage: async () => ({ result: null, lines: [] }),
    steer: async () => undefined,
    ask: async () => undefined,
    listModels: async () => ({ models: [] }),
    exportLcov: async () => ({ lcov: '' }),
  };
  const state = memento();
  const context = { asAbsolutePath: (p: string) => join(repoRoot, p), workspaceState: state } as unknown as vscode.ExtensionContext;
  const runs = new Runs({
    server,
    store,
    tests: new CoverageTests(async () => {}),
    status: new StatusBar({ configured: false, modelFree: true }),
    chat: { post: (m) => posted.push(m) },
    testbenches: new TestbenchWriter(vscode.workspace.fs, state, async () => false),
    errors: new ErrorReporter(silent, () => {}),
    logger: silent,
    settings: () => readSettings(vscode.workspace.getConfiguration('chorus')),
    state,
    selectModel: async () => undefined,
  });
  late.runs = runs;
  const gutter = new CoverageGutter(context, store);
  h = { dir, dut, editor, runs, store, posted, gutter, calls };
});

afterEach(() => {
  h.gutter.dispose();
  rmSync(h.dir, { recursive: true, force: true });
});

function finalResult(p: GenerateParams, lines: LineCoverage[]): GenerateResult {
  return {
    top: 'counter',
    engine: p.engine ?? 'random',
    pass: true,
    targets: p.targets ?? {},
    coverage: cov(10, 8),
    holes: [],
    rounds: [{ index: 1, status: 'ok', coverage: cov(8, 6), ms: { generate: 5, build: 900, sim: 30 } }],
    testbench: 'module tb_counter;\n  counter uut (.*);\nendmodule\n',
    stopReason: 'targets met',
    diagnostics: [],
    lines,
  };
}

test('loop events update the gutter live; the result is published, written and shown', async () => {
  const seen: Record<string, number[]>[] = [];
  script = async (p, _token, emit) => {
    emit({ type: 'start', top: 'counter', engine: 'random', targets: p.targets ?? {}, files: [h.dut.fsPath] });
    emit({ type: 'roundStart', round: 1 });
    emit({ type: 'build', round: 1, status: 'ok', ms: 900, diagnostics: [] });
    emit({ type: 'coverage', round: 1, coverage: cov(8, 6), holes: holes1, status: 'ok', lines: round1 });
    seen.push(marks(h.editor));
    emit({ type: 'roundEnd', round: { index: 1, status: 'ok', coverage: cov(8, 6), ms: { generate: 5, build: 900, sim: 30 } } });
    emit({ type: 'final', result: finalResult(p, round2) });
    return finalResult(p, round2);
  };
  const result = await h.runs.generate({});
  assert.equal(result?.top, 'counter');
  assert.deepEqual(h.calls[0].top, 'counter', 'the only top candidate is sent');
  assert.equal(h.calls[0].engine, undefined, 'engine auto: the server decides');
  const start = h.posted[0];
  assert.equal(start.type === 'runStart' && start.run.engine, 'random', 'no model configured: shown as the model-free engine');

  assert.deepEqual(seen[0], { covered: [17], uncovered: [34], partial: [26] }, 'after round 1, before the run ended');
  assert.deepEqual(marks(h.editor), { covered: [17, 26, 34], uncovered: [], partial: [] }, 'after the final result');
  const hover = h.editor.decorations.values().next().value;
  assert.ok(hover?.every((o) => o.hoverMessage && o.hoverMessage.value.includes('CHORUS')));

  const progress = stub.progress[0];
  assert.equal(progress.title, 'CHORUS: counter');
  assert.ok(progress.reports.some((r) => r.message === 'Round 1 of 3 — line 80% · branch 75% · toggle 50%'));
  const bar = progress.reports.find((r) => r.increment !== undefined);
  assert.deepEqual(bar, { message: 'Round 1 of 3 — line 80% · branch 75% · toggle 50%', increment: 100 / 3 }, 'the bar moves, the line stays');

  const run = stub.testRuns[0];
  assert.equal(run.coverage.length, 1);
  assert.equal(run.coverage[0].uri.fsPath, h.dut.fsPath);
  assert.deepEqual([run.coverage[0].statementCoverage.covered, run.coverage[0].statementCoverage.total], [3, 3]);
  assert.equal(run.passed.length, 1);
  assert.ok(run.ended);

  const tb = join(h.dir, 'tb', 'tb_counter.sv');
  const text = readFileSync(tb, 'utf8');
  assert.ok(text.startsWith(MARKER_PREFIX));
  assert.match(text, /counter uut/);
  assert.deepEqual(stub.shown.at(-1), { uri: vscode.Uri.file(tb).toString(), viewColumn: vscode.ViewColumn.Beside });

  assert.match(stub.statusItems[0].text, /line 100% · branch 100%/);
  const types = h.posted.map((m) => (m.type === 'loopEvent' ? `loopEvent:${m.event.type}` : m.type));
  assert.deepEqual(types.slice(0, 2), ['runStart', 'loopEvent:start']);
  assert.ok(types.includes('loopEvent:coverage'));
  assert.deepEqual(types.slice(-2), ['loopEvent:final', 'runEnded']);
  assert.equal(types.filter((t) => t === 'loopEvent:final').length, 1, 'the final event is relayed once, after the write');
  const final = h.posted.at(-2);
  assert.equal(final?.type === 'loopEvent' && final.event.type === 'final' && final.event.result.testbenchPath, tb);
  const ended = h.posted.at(-1);
  assert.equal(ended?.type === 'runEnded' && ended.outcome, 'completed');
  assert.equal(stub.context['chorus.running'], false);

  // An edit makes the measured line numbers wrong: the marks go until the next run; the toggle hides them too.
  documentChanged.fire({ document: h.editor.document, contentChanges: [{ text: '\n' }] });
  assert.deepEqual(marks(h.editor), { covered: [], uncovered: [], partial: [] });
  await h.runs.generate({});
  assert.deepEqual(marks(h.editor).covered, [17, 26, 34]);
  await h.gutter.toggle();
  assert.deepEqual(marks(h.editor), { covered: [], uncovered: [], partial: [] });
  assert.equal(stub.context['chorus.gutterVisible'], false);
  await h.gutter.toggle();
  assert.deepEqual(marks(h.editor).covered, [17, 26, 34]);
});

test('Stop cancels the request; the run ends as cancelled without an error', async () => {
  let started: () => void = () => {};
  const going = new Promise<void>((r) => (started = r));
  script = (_p, token, emit) =>
    new Promise((_resolve, reject) => {
      emit({ type: 'roundStart', round: 1 });
      token.onCancellationRequested(() => reject(Object.assign(new Error('Request cancelled'), { code: -32800 })));
      started();
    });
  const pending = h.runs.generate({});
  await going;
  assert.equal(stub.context['chorus.running'], true);
  assert.equal(h.runs.stop(), true);
  assert.equal(await pending, undefined);
  const ended = h.posted.at(-1);
  assert.deepEqual(ended && ended.type === 'runEnded' ? [ended.outcome, ended.message] : [], ['cancelled', undefined]);
  assert.equal(stub.testRuns[0].skipped.length, 1);
  assert.equal(stub.messages.filter((m) => m.level === 'error').length, 0);
  assert.equal(h.runs.stop(), false, 'nothing left to stop');
});

test('a server error ends the run as failed, shown once with Show log', async () => {
  script = async () => {
    throw Object.assign(new Error('Verilator not found: install it with `apt-get install verilator` or set chorus.verilatorPath'), {
      code: -32803,
      data: { kind: 'missing_tool' },
    });
  };
  assert.equal(await h.runs.generate({}), undefined);
  const errors = stub.messages.filter((m) => m.level === 'error');
  assert.equal(errors.length, 1);
  assert.match(errors[0].text, /Verilator not found/);
  assert.deepEqual(errors[0].items, ['Open settings', 'Show log']);
  const ended = h.posted.at(-1);
  assert.equal(ended?.type === 'runEnded' && ended.outcome, 'failed');
  assert.equal(stub.testRuns[0].errored.length, 1);
});

test('in a restricted workspace nothing runs and the user is told why', async () => {
  stub.trusted = false;
  script = async () => assert.fail('the server must not be asked');
  assert.equal(await h.runs.generate({}), undefined);
  assert.equal(h.calls.length, 0);
  assert.match(stub.messages[0].text, /restricted workspace/);
  assert.deepEqual(stub.messages[0].items, ['Manage Workspace Trust']);
});

test('a testbench the user edited is not overwritten: the new one opens unsaved', async () => {
  script = async (p) => finalResult(p, round2);
  await h.runs.generate({});
  const tb = join(h.dir, 'tb', 'tb_counter.sv');
  writeFileSync(tb, readFileSync(tb, 'utf8') + '// my change\n');
  script = async (p) => ({ ...finalResult(p, round2), testbench: 'module tb_counter; /* v2 */ endmodule\n' });
  await h.runs.generate({});
  assert.match(readFileSync(tb, 'utf8'), /my change/);
  assert.ok(stub.shown.at(-1)?.uri.startsWith('untitled:'), 'the new testbench is shown unsaved');
  const notice = h.posted.find((m) => m.type === 'notice' && m.text.startsWith('Kept'));
  assert.ok(notice);
});

test('several top candidates: a quick pick, remembered for the next run', async () => {
  stub.symbols = [
    { name: 'counter', kind: SymbolKind.Module, children: [] },
    { name: 'counter_top', kind: SymbolKind.Module, children: [] },
  ];
  const offered: string[][] = [];
  stub.quickPick = (items) => {
    offered.push(items.map((i) => i.label));
    return items.find((i) => i.label === 'counter_top');
  };
  script = async (p) => ({ ...finalResult(p, []), top: p.top ?? '?' });
  await h.runs.generate({});
  assert.equal(h.calls[0].top, 'counter_top');
  await h.runs.generate({});
  assert.deepEqual(offered[1], ['counter_top', 'counter'], 'the last choice first');
  stub.quickPick = () => undefined;
  await h.runs.generate({});
  assert.equal(h.calls.length, 2, 'dismissing the pick cancels the run');
});
