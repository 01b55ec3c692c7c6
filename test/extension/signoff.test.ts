/**
 * "CHORUS: Export waivers…" and "CHORUS: Generate on top of my regression…": what they ask, what they send, and
 * that a file CHORUS did not write is replaced only after the user's modal consent.
 */
import './stub/register';
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { EngineName, ExportWaiversParams, ExportWaiversResult } from '../../src/protocol';
import type { LaunchOptions } from '../../src/extension/runLauncher';
import { RunLauncher } from '../../src/extension/runLauncher';
import { RunRegistry } from '../../src/extension/runRegistry';
import { readSettings } from '../../src/extension/settings';
import {
  EXPORT_FORMATS,
  exportWaivers,
  generateOnRegression,
  REPLACE,
  USE_MODEL_FREE_FOR_REGRESSION,
} from '../../src/extension/signoff';
import { CoverageStore } from '../../src/extension/store';
import { fakeServer, finalResult, memento, openCounter, silent, type CounterWorkspace } from './runFixtures';
import { stub } from './stub/vscode';

let ws: CounterWorkspace;
let store: CoverageStore;
let sent: ExportWaiversParams[];
let answers: ExportWaiversResult[];

const server = {
  exportWaivers: async (p: ExportWaiversParams): Promise<ExportWaiversResult> => {
    sent.push(p);
    return answers.shift() ?? { status: 'written', file: vscode.Uri.parse(p.target).fsPath, excluded: 4 };
  },
};

beforeEach(() => {
  ws = openCounter();
  store = new CoverageStore();
  sent = [];
  answers = [];
});
afterEach(() => {
  store.dispose();
  rmSync(ws.dir, { recursive: true, force: true });
});

function ran(): void {
  const result = finalResult({}, []);
  store.update(ws.dut, { top: 'counter', holes: [], lines: [], result });
}

const pickFormat = (format: string) => {
  stub.quickPick = (items) => (items as unknown as { format: string }[]).find((i) => i.format === format);
};

test('every format the CLI exports is offered, with the CLI option it stands for', () => {
  assert.deepEqual(
    EXPORT_FORMATS.map((f) => [f.format, f.description]),
    [
      ['vlt', '--vlt'],
      ['urgEl', '--urg-el'],
      ['imcTcl', '--imc-tcl'],
      ['lcov', '--lcov'],
      ['cobertura', '--cobertura'],
    ],
  );
});

test('before any run nothing is asked or sent', async () => {
  await exportWaivers({ server, store, logger: silent }, ws.dut);
  assert.equal(sent.length, 0);
  assert.equal(stub.dialogs.length, 0);
  assert.match(stub.messages[0].text, /No run to export/);
});

test('a format, a save location, then one request; the written file is reported', async () => {
  ran();
  pickFormat('vlt');
  const target = vscode.Uri.file(join(ws.dir, 'signoff', 'counter.vlt'));
  stub.saveDialog = () => target;
  await exportWaivers({ server, store, logger: silent }, ws.dut);
  const save = stub.dialogs.find((d) => d.kind === 'save')?.options as { defaultUri: vscode.Uri };
  assert.equal(save.defaultUri.fsPath, join(ws.dir, 'signoff', 'counter.vlt'));
  assert.deepEqual(sent, [{ uri: ws.dut.toString(), format: 'vlt', target: target.toString() }]);
  assert.equal(stub.messages.at(-1)?.text, 'Exported 4 excluded points to signoff/counter.vlt.');
});

test('URG and IMC ask for the DUT’s path in the user’s testbench; dismissing it sends nothing', async () => {
  ran();
  pickFormat('urgEl');
  stub.saveDialog = () => vscode.Uri.file(join(ws.dir, 'x.el'));
  await exportWaivers({ server, store, logger: silent }, ws.dut);
  assert.equal(sent.length, 0, 'the input box was dismissed');
  stub.inputBox = () => ' top.u_dut ';
  await exportWaivers({ server, store, logger: silent }, ws.dut);
  assert.equal(sent[0]?.dutPath, 'top.u_dut');
  const input = stub.dialogs.find((d) => d.kind === 'input')?.options as {
    value: string;
    validateInput(v: string): string | undefined;
  };
  assert.equal(input.value, 'tb.dut');
  assert.equal(input.validateInput('tb.dut'), undefined);
  assert.ok(input.validateInput('tb dut'));
});

test('a file CHORUS did not write: a modal asks, Replace sends force, dismissing writes nothing', async () => {
  ran();
  pickFormat('lcov');
  stub.saveDialog = () => vscode.Uri.file(join(ws.dir, 'mine.info'));
  const refusal =
    'The file exists and was not written by CHORUS: pass --force to overwrite it, or choose another --lcov.';
  answers = [{ status: 'needsConsent', file: join(ws.dir, 'mine.info'), message: refusal }];
  await exportWaivers({ server, store, logger: silent }, ws.dut);
  assert.equal(sent.length, 1, 'no second request without consent');
  const ask = stub.messages.find((m) => m.level === 'warning');
  assert.ok(ask?.modal, 'a modal confirm');
  assert.deepEqual(ask.items, [REPLACE]);
  assert.match(ask.text, /mine\.info was not written by CHORUS/);

  sent = [];
  answers = [{ status: 'needsConsent', file: join(ws.dir, 'mine.info'), message: refusal }];
  stub.answer = (level) => (level === 'warning' ? REPLACE : undefined);
  await exportWaivers({ server, store, logger: silent }, ws.dut);
  assert.deepEqual(
    sent.map((p) => p.force),
    [undefined, true],
  );
});

interface RegressionHarness {
  calls: LaunchOptions[];
  engine: string;
  auto: EngineName | undefined;
}

function regressionDeps(h: RegressionHarness) {
  return {
    launcher: {
      generate: async (o: LaunchOptions) => {
        h.calls.push(o);
        return undefined;
      },
    },
    settings: () => ({ ...readSettings(vscode.workspace.getConfiguration('chorus')), engine: h.engine as never }),
    autoEngine: () => h.auto,
  };
}

test('Generate on top of my regression: the coverage.dat files picked become the run’s regression', async () => {
  const h: RegressionHarness = { calls: [], engine: 'random', auto: undefined };
  const dats = [vscode.Uri.file(join(ws.dir, 'a.dat')), vscode.Uri.file(join(ws.dir, 'b.dat'))];
  await generateOnRegression(regressionDeps(h), ws.dut);
  assert.equal(h.calls.length, 0, 'no files picked: no run');
  stub.openDialog = () => dats;
  await generateOnRegression(regressionDeps(h), ws.dut);
  assert.deepEqual(h.calls, [{ dut: ws.dut, regression: dats }]);
  const open = stub.dialogs.find((d) => d.kind === 'open')?.options as {
    canSelectMany: boolean;
    filters: Record<string, string[]>;
  };
  assert.equal(open.canSelectMany, true);
  assert.deepEqual(Object.values(open.filters), [['dat']]);
  assert.equal(stub.messages.length, 0, 'the model-free engine needs no warning');
});

test('with the llm or hybrid engine the user is told only the model-free engine runs on a regression', async () => {
  const dats = [vscode.Uri.file(join(ws.dir, 'a.dat'))];
  stub.openDialog = () => dats;
  for (const [engine, auto] of [
    ['llm', undefined],
    ['auto', 'hybrid'],
  ] as const) {
    stub.messages = [];
    const h: RegressionHarness = { calls: [], engine, auto };
    await generateOnRegression(regressionDeps(h), ws.dut);
    assert.equal(h.calls.length, 0, 'dismissed: no run');
    const warning = stub.messages[0];
    assert.ok(warning?.modal);
    assert.match(warning.text, /only supported by the model-free engine/);
    assert.match(warning.text, new RegExp(`engine is ${auto ?? engine}`));
    stub.answer = () => USE_MODEL_FREE_FOR_REGRESSION;
    await generateOnRegression(regressionDeps(h), ws.dut);
    assert.deepEqual(h.calls, [{ dut: ws.dut, regression: dats, engine: 'random' }]);
    stub.answer = () => undefined;
  }
});

test('the launcher sends the regression as file URIs, with the engine the user chose', async () => {
  stub.config['chorus.engine'] = 'llm';
  const fake = fakeServer(() => {});
  fake.script = async (p) => finalResult(p, []);
  const launcher = new RunLauncher({
    server: fake,
    runs: new RunRegistry(),
    settings: () => readSettings(vscode.workspace.getConfiguration('chorus')),
    state: memento(),
    selectModel: async () => assert.fail('the model-free search needs no model'),
    modelAvailable: () => false,
  });
  const dat = vscode.Uri.file(join(ws.dir, 'regr', 'coverage.dat'));
  await launcher.generate({ dut: ws.dut, regression: [dat], engine: 'random' });
  assert.equal(fake.calls.length, 1);
  assert.deepEqual(fake.calls[0].regression, [dat.toString()]);
  assert.equal(fake.calls[0].engine, 'random');
  await launcher.generate({ dut: ws.dut });
  assert.equal(fake.calls.length, 1, 'without a regression, llm with no model still asks for one (dismissed here)');
  launcher.dispose();
});
