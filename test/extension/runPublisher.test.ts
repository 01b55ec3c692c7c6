/**
 * The publisher puts a run's result (the response) where the user looks for it: the store (gutter), the Test
 * Coverage view, and the testbench file beside the DUT, which it never replaces without consent once the user
 * changed it. Cancelled and failed runs are marked in Test Coverage and passed on unchanged.
 */
import './stub/register';
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { AsyncEmitter } from '../../src/extension/asyncEvent';
import type { RunEnd, RunStart } from '../../src/extension/runLauncher';
import { RunPublisher, type TestbenchWritten } from '../../src/extension/runPublisher';
import type { RunRecord } from '../../src/extension/runRegistry';
import { readSettings } from '../../src/extension/settings';
import { CoverageStore } from '../../src/extension/store';
import { CoverageTests } from '../../src/extension/testCoverage';
import { MARKER_PREFIX, TestbenchWriter } from '../../src/extension/testbench';
import {
  cov,
  finalResult,
  memento,
  openCounter,
  round1Holes,
  round1Lines,
  round2Lines,
  runRecord,
  type CounterWorkspace,
} from './runFixtures';
import { stub } from './stub/vscode';

interface Harness extends CounterWorkspace {
  run: RunRecord;
  store: CoverageStore;
  tests: CoverageTests;
  publisher: RunPublisher;
  started: vscode.EventEmitter<RunStart>;
  ended: AsyncEmitter<RunEnd>;
  settled: RunEnd[];
  written: TestbenchWritten[];
  /** The overwrite dialog's answer. */
  replace: boolean;
  asked: string[];
  tb: string;
}

let h: Harness;

beforeEach(() => {
  const ws = openCounter();
  const store = new CoverageStore();
  const tests = new CoverageTests(async () => {});
  const started = new vscode.EventEmitter<RunStart>();
  const ended = new AsyncEmitter<RunEnd>();
  const testbenches = new TestbenchWriter(vscode.workspace.fs, memento(), async (target, reason) => {
    h.asked.push(`${vscode.workspace.asRelativePath(target)} ${reason}`);
    return h.replace;
  });
  const settings = () => readSettings(vscode.workspace.getConfiguration('chorus'));
  const publisher = new RunPublisher(
    { tests, testbenches, store, settings },
    { started: started.event, ended: ended.event },
  );
  const settled: RunEnd[] = [];
  const written: TestbenchWritten[] = [];
  publisher.onDidSettle((e) => settled.push(e));
  publisher.onDidWriteTestbench((w) => written.push(w));
  h = {
    ...ws,
    run: runRecord(ws.dut),
    store,
    tests,
    publisher,
    started,
    ended,
    settled,
    written,
    replace: false,
    asked: [],
    tb: join(ws.dir, 'tb', 'tb_counter.sv'),
  };
});

afterEach(() => {
  h.publisher.dispose();
  h.tests.dispose();
  rmSync(h.dir, { recursive: true, force: true });
});

/** One run through the publisher: started, then ended with `outcome`; returns what it settled as. */
async function publish(outcome: RunEnd['outcome'], testRun?: vscode.TestRun): Promise<RunEnd['outcome']> {
  const run = { ...h.run, runId: `run-${h.settled.length + 1}` };
  h.started.fire({ run, settings: readSettings(vscode.workspace.getConfiguration('chorus')), testRun });
  await h.ended.fire({ run, outcome });
  assert.equal(h.settled.at(-1)?.run, run);
  return h.settled.at(-1)!.outcome;
}

const completed = (lines = round2Lines(''), testbench?: string): RunEnd['outcome'] => {
  const result = finalResult(
    {},
    lines.map((l) => ({ ...l, file: h.dut.fsPath })),
  );
  return { kind: 'completed', result: testbench === undefined ? result : { ...result, testbench }, ms: 1234 };
};

test('a result goes to the store, Test Coverage and a testbench file beside the DUT', async () => {
  const settled = await publish(completed());
  const entry = h.store.get(h.dut);
  assert.deepEqual(entry?.coverage, cov(10, 8));
  assert.equal(entry?.result?.top, 'counter');
  assert.deepEqual(
    entry?.files.get(h.dut.fsPath)?.lines.map((l) => l.hits),
    [40, 9, 3],
    'the result line table',
  );
  assert.equal(entry?.testbench?.fsPath, h.tb);

  const run = stub.testRuns[0];
  assert.equal(run.name, 'CHORUS: counter');
  assert.equal(run.coverage.length, 1);
  assert.equal(run.coverage[0].uri.fsPath, h.dut.fsPath);
  assert.deepEqual([run.coverage[0].statementCoverage.covered, run.coverage[0].statementCoverage.total], [3, 3]);
  assert.deepEqual([run.started.length, run.passed.length, run.ended], [1, 1, true]);

  const text = readFileSync(h.tb, 'utf8');
  assert.ok(text.startsWith(MARKER_PREFIX));
  assert.match(text, /counter uut/);
  assert.deepEqual(stub.shown.at(-1), { uri: vscode.Uri.file(h.tb).toString(), viewColumn: vscode.ViewColumn.Beside });
  assert.equal(
    settled.kind === 'completed' && settled.result.testbenchPath,
    h.tb,
    'the settled result says where the testbench went',
  );
  assert.deepEqual(
    h.written.map((w) => [w.target.fsPath, w.outcome]),
    [[h.tb, 'created']],
  );
});

test('a result without a line table keeps the live one; an empty testbench writes nothing', async () => {
  h.store.update(h.dut, {
    top: 'counter',
    coverage: cov(8, 6),
    holes: round1Holes(h.dut.fsPath),
    lines: round1Lines(h.dut.fsPath),
  });
  const outcome = completed(round2Lines(''), '  \n');
  if (outcome.kind === 'completed') outcome.result.lines = undefined;
  const settled = await publish(outcome);
  const entry = h.store.get(h.dut);
  assert.deepEqual(
    entry?.files.get(h.dut.fsPath)?.lines.map((l) => l.hits),
    [40, 9, 0],
    "round 1's table stays",
  );
  assert.deepEqual(entry?.holes, [], "the result's holes replace the live ones");
  assert.equal(settled.kind === 'completed' && settled.result.testbenchPath, undefined);
  assert.deepEqual(h.written, []);
});

test('a testbench the user edited is replaced only with consent; declined, the new one opens unsaved', async () => {
  await publish(completed());
  writeFileSync(h.tb, readFileSync(h.tb, 'utf8') + '// my change\n');

  const declined = await publish(completed(round2Lines(''), 'module tb_counter; /* v2 */ endmodule\n'));
  assert.deepEqual(h.asked, ['tb/tb_counter.sv has been edited since CHORUS wrote it']);
  assert.match(readFileSync(h.tb, 'utf8'), /my change/);
  assert.ok(stub.shown.at(-1)?.uri.startsWith('untitled:'), 'the new testbench is shown unsaved');
  assert.equal(
    declined.kind === 'completed' && declined.result.testbenchPath,
    undefined,
    'no file holds this testbench',
  );
  assert.equal(h.written.at(-1)?.outcome, 'declined');

  h.replace = true;
  const replaced = await publish(completed(round2Lines(''), 'module tb_counter; /* v3 */ endmodule\n'));
  assert.match(readFileSync(h.tb, 'utf8'), /v3/);
  assert.doesNotMatch(readFileSync(h.tb, 'utf8'), /my change/);
  assert.equal(replaced.kind === 'completed' && replaced.result.testbenchPath, h.tb);
  assert.equal(h.written.at(-1)?.outcome, 'overwritten');

  writeFileSync(h.tb, '// a file of my own\n');
  h.replace = false;
  assert.equal(
    await h.publisher.writeTestbench(h.dut, 'counter', 'module tb_counter; endmodule\n'),
    undefined,
    'the chat\'s "apply" asks too',
  );
  assert.equal(h.asked.at(-1), 'tb/tb_counter.sv was not written by CHORUS');
  assert.equal(readFileSync(h.tb, 'utf8'), '// a file of my own\n');
});

test('cancelled and failed runs are marked in Test Coverage and settle unchanged', async () => {
  assert.deepEqual(await publish({ kind: 'cancelled' }), { kind: 'cancelled' });
  assert.deepEqual([stub.testRuns[0].skipped.length, stub.testRuns[0].ended], [1, true]);

  const error = Object.assign(new Error('Verilator not found'), { code: -32803, data: { kind: 'missing_tool' } });
  const failed = await publish({ kind: 'failed', error });
  assert.equal(failed.kind === 'failed' && failed.error, error);
  assert.equal(stub.testRuns[1].errored[0].message.message, 'Verilator not found');
  assert.equal(h.store.get(h.dut), undefined, 'nothing to store');
});

test('a run from the Coverage profile publishes into its test run and leaves ending it to the profile', async () => {
  const profileRun = h.tests.controller.createTestRun(new vscode.TestRunRequest(), 'CHORUS coverage', false);
  await publish(completed(), profileRun);
  assert.equal(stub.testRuns.length, 1, 'no test run of its own');
  assert.deepEqual(
    [stub.testRuns[0].coverage.length, stub.testRuns[0].passed.length, stub.testRuns[0].ended],
    [1, 1, false],
  );
});

test('a result that cannot be published settles as failed', async () => {
  stub.config['chorus.testbenchFolder'] = 'tb';
  writeFileSync(join(h.dir, 'tb'), 'a file where the folder should be');
  const settled = await publish(completed());
  assert.equal(settled.kind, 'failed');
  assert.equal(stub.testRuns[0].errored.length, 1);
  assert.equal(stub.testRuns[0].ended, true);
});
