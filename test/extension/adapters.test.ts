import './stub/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CoverageSummary, GenerateResult, LoopEvent, Targets, TopsParams } from '../../src/protocol';
import { judge } from '../../src/engine/verdict';
import { ChorusError } from '../../src/protocol';
import { describeError, ErrorReporter } from '../../src/extension/errors';
import { progressStep, summaryText, targetsMissed, type ProgressState } from '../../src/extension/format';
import { modelPickItems, validateEndpoint } from '../../src/extension/modelPicker';
import { orderTops, pickTop } from '../../src/extension/topPicker';
import { asTop, asUri } from '../../src/extension/commands';
import * as vscode from 'vscode';
import { stub } from './stub/vscode';

const cov = (line: number, branch: number): CoverageSummary => ({
  line: { covered: line, total: 100, pct: line },
  branch: { covered: branch, total: 100, pct: branch },
  toggle: { covered: 0, total: 0, pct: 100 },
});

/** The engine's verdict on a run that ran, with no holes: what the extension shows. */
const verdictOf = (coverage: CoverageSummary, targets: Targets) => ({
  verdict: judge({ coverage, holes: [], targets, ran: true, cancelled: false }),
});

test('coverage texts skip kinds without points and name missed targets', () => {
  assert.equal(summaryText(cov(96, 87.5)), 'line 96% · branch 87.5%');
  assert.equal(targetsMissed(verdictOf(cov(100, 80), { line: 100, branch: 90 })), 'branch 80% < 90%');
  assert.equal(targetsMissed(verdictOf(cov(100, 100), { line: 100, branch: 100 })), '');
  assert.equal(targetsMissed(verdictOf(cov(50, 100), { overall: 80 })), 'overall 75% < 80%');
  // "Overall" is the mean of the kinds' percentages (the engine's reading), not covered points over all points:
  // 50 of 100 lines and 4 of 4 branch arms read 75 %, not 54 of 104.
  const fewBranches: CoverageSummary = { ...cov(50, 100), branch: { covered: 4, total: 4, pct: 100 } };
  assert.equal(targetsMissed(verdictOf(fewBranches, { overall: 70 })), '');
  assert.equal(targetsMissed(verdictOf(fewBranches, { overall: 80 })), 'overall 75% < 80%');
});

test('loop events → progress notification lines and bar increments', () => {
  const state: ProgressState = { round: 0, maxRounds: 4, tokens: 0 };
  const events: LoopEvent[] = [
    { type: 'start', top: 'fifo', engine: 'llm', targets: {}, files: [] },
    { type: 'roundStart', round: 1 },
    ...Array.from({ length: 50 }, (): LoopEvent => ({ type: 'tokens', round: 1, text: 'x' })),
    { type: 'build', round: 1, status: 'ok', ms: 900, diagnostics: [] },
    { type: 'coverage', round: 1, coverage: cov(80, 60), holes: [], status: 'ok' },
    {
      type: 'roundEnd',
      round: { index: 1, status: 'ok', coverage: cov(80, 60), ms: { generate: 1, build: 1, sim: 1 } },
    },
    { type: 'roundStart', round: 2 },
    { type: 'build', round: 2, status: 'compile_error', ms: 300, diagnostics: [] },
  ];
  const steps = events
    .map((e) => progressStep(state, e))
    .filter((s) => s.message !== undefined || s.increment !== undefined);
  assert.deepEqual(
    steps.map((s) => s.message ?? `+${s.increment}`),
    [
      'Starting (llm)…',
      'Round 1 of 4: generating…',
      'Round 1 of 4: writing the testbench…',
      'Round 1 of 4: simulating…',
      'Round 1 of 4 — line 80% · branch 60%',
      '+25',
      'Round 2 of 4: generating… — line 80% · branch 60%',
      'Round 2 of 4: build compile error… — line 80% · branch 60%',
    ],
  );
  const final = {
    type: 'final',
    result: { coverage: cov(100, 100), stopReason: 'targets met' } as GenerateResult,
  } as LoopEvent;
  assert.equal(progressStep(state, final).message, 'Done (targets met) — line 100% · branch 100%');
});

test('errors from the server read as kind + message; cancellations are not errors', () => {
  assert.deepEqual(describeError(new ChorusError('missing_tool', 'Verilator not found: install it.')), {
    kind: 'missing_tool',
    message: 'Verilator not found: install it.',
  });
  assert.deepEqual(
    describeError({ code: -32803, message: 'Build failed: see the log.', data: { kind: 'bad_input' } }),
    {
      kind: 'bad_input',
      message: 'Build failed: see the log.',
    },
  );
  assert.equal(describeError({ code: -32800, message: 'cancelled' }).kind, 'cancelled');
  assert.equal(describeError({ code: -32603, message: 'boom', data: { kind: 'nonsense' } }).kind, 'failed');
  assert.equal(describeError(new ChorusError('cancelled', 'Cancelled.')).kind, 'cancelled');
});

test('an error is shown once while its notification is open, with Show log', async () => {
  stub.reset();
  let dismiss: (v: string | undefined) => void = () => {};
  stub.answer = () => new Promise((r) => (dismiss = r));
  const logged: string[] = [];
  let logShown = 0;
  const rep = new ErrorReporter({ debug() {}, info() {}, warn() {}, error: (m) => logged.push(m) }, () => logShown++);
  assert.equal(rep.report(new ChorusError('failed', 'Simulation timed out: raise chorus.simTimeoutSeconds.')), true);
  rep.report(new ChorusError('failed', 'Simulation timed out: raise chorus.simTimeoutSeconds.'));
  assert.equal(stub.messages.length, 1, 'the same error is not stacked');
  assert.deepEqual(stub.messages[0].items, ['Show log']);
  assert.equal(logged.length, 2, 'but every occurrence is logged');
  dismiss('Show log');
  await new Promise((r) => setImmediate(r));
  assert.equal(logShown, 1);
  rep.report(new ChorusError('failed', 'Simulation timed out: raise chorus.simTimeoutSeconds.'));
  assert.equal(stub.messages.length, 2, 'shown again once the first was closed');
  assert.equal(rep.report({ code: -32800, message: 'x' }), false);
  assert.equal(stub.messages.length, 2, 'a cancellation shows nothing');
  rep.report(new ChorusError('missing_tool', 'Verilator not found.'));
  assert.deepEqual(stub.messages[2].items, ['Open settings', 'Show log']);
  assert.match(stub.messages[2].text, /Install it or set its path/);
});

test("top picker: the server's candidates, the last pick first; one candidate is taken without asking", async () => {
  assert.deepEqual(orderTops(['top', 'other'], 'other'), ['other', 'top']);
  assert.deepEqual(orderTops(['top', 'other'], 'gone'), ['top', 'other']);
  stub.reset();
  const offered: string[][] = [];
  stub.quickPick = (items) => (offered.push(items.map((i) => i.label)), items[1]);
  const asked: TopsParams[] = [];
  let tops = ['counter'];
  const server = { tops: async (p: TopsParams) => (asked.push(p), { modules: ['sub', ...tops], tops }) };
  const doc = { uri: vscode.Uri.file('/w/counter.sv') };
  assert.deepEqual(await pickTop(server, doc), { top: 'counter', cancelled: false });
  assert.deepEqual(asked, [{ uri: 'file:///w/counter.sv' }], 'chorus/tops with the document URI');
  assert.deepEqual(offered, [], 'one candidate: nothing asked');
  tops = ['counter', 'spare'];
  assert.deepEqual(await pickTop(server, doc, 'spare'), { top: 'counter', cancelled: false });
  assert.deepEqual(offered, [['spare', 'counter']], 'several: asked, the last pick first');
});

test('command arguments: a Uri, a URI string, a path, or the server lens object { uri, top }', () => {
  assert.equal(asUri('file:///w/fifo.sv')?.fsPath, '/w/fifo.sv');
  assert.equal(asUri('/w/fifo.sv')?.fsPath, '/w/fifo.sv');
  assert.equal(asUri({ uri: 'file:///w/alu.sv', top: 'alu' })?.fsPath, '/w/alu.sv');
  assert.equal(asUri(undefined), undefined);
  assert.equal(asUri(42), undefined);
  assert.equal(asTop({ uri: 'file:///w/alu.sv', top: 'alu' }, undefined), 'alu');
  assert.equal(asTop('file:///w/alu.sv', 'alu_top'), 'alu_top');
  assert.equal(asTop('file:///w/alu.sv', undefined), undefined);
});

test('model picker: list entries, the current one marked, then endpoint, browse and none', () => {
  const items = modelPickItems(
    [
      {
        id: 'chorus-4b-q4_k_m',
        label: 'CHORUS 4B Q4_K_M',
        uri: 'models/chorus-4b.Q4_K_M.gguf',
        present: false,
        sizeBytes: 2.5e9,
        source: 'manifest',
      },
      { id: 'found-1', label: 'my.gguf', uri: '/m/my.gguf', present: true, source: 'found' },
    ],
    { model: '/m/my.gguf', endpoint: '' },
  );
  assert.deepEqual(
    items.map((i) => i.action.kind),
    ['model', 'model', 'endpoint', 'browse', 'none'],
  );
  assert.equal(items[0].description, 'manifest · 2.5 GB · not downloaded');
  assert.ok(items[1].label.startsWith('$(check) '));
  assert.ok(!items[0].label.startsWith('$(check) '));
  assert.equal(validateEndpoint('http://localhost:8000/v1'), undefined);
  assert.match(validateEndpoint('ftp://x') ?? '', /http/);
  assert.match(validateEndpoint('localhost') ?? '', /base URL/);
});
