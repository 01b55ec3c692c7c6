import './stub/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CoverageSummary } from '../../src/protocol';
import { StatusBar, statusView } from '../../src/extension/statusBar';
import { stub } from './stub/vscode';

const cov: CoverageSummary = {
  line: { covered: 24, total: 25, pct: 96 },
  branch: { covered: 22, total: 25, pct: 88 },
  toggle: { covered: 70, total: 100, pct: 70 },
};

test('not configured: says so and a click opens the model picker', () => {
  const v = statusView({ configured: false, modelFree: false });
  assert.equal(v.text, '$(circle-slash) CHORUS: no model');
  assert.equal(v.command, 'chorus.selectModel');
  const free = statusView({ configured: false, modelFree: true });
  assert.equal(free.command, 'chorus.openChat', 'the model-free engine needs no model');
  assert.doesNotMatch(free.text, /no model/);
});

test('a model the server found (auto means llm) is not "no model": it loads on the first run', () => {
  const found = statusView({ configured: true, modelFree: false, model: { state: 'not_configured' } });
  assert.equal(found.text, '$(beaker) CHORUS');
  assert.match(found.tooltip, /loads on the first run/);
  assert.equal(found.command, 'chorus.openChat');
  const none = statusView({ configured: false, modelFree: false, model: { state: 'not_configured' } });
  assert.equal(none.text, '$(circle-slash) CHORUS: no model', 'the server has none and the chosen engine needs one');
});

test('loading shows the percent, ready the backend, generating the speed, error the message', () => {
  assert.equal(
    statusView({ configured: true, modelFree: false, model: { state: 'loading', percent: 42.4 } }).text,
    '$(sync~spin) CHORUS: loading 42%',
  );
  const ready = statusView({
    configured: true,
    modelFree: false,
    model: { state: 'ready', model: '/m/chorus-4b.Q4_K_M.gguf', backend: 'cuda' },
  });
  assert.equal(ready.text, '$(check) CHORUS: ready');
  assert.match(ready.tooltip, /chorus-4b\.Q4_K_M\.gguf is loaded \(cuda\)/);
  assert.equal(ready.command, 'chorus.openChat');
  assert.equal(
    statusView({ configured: true, modelFree: false, model: { state: 'generating', tokensPerSecond: 11.26 } }).text,
    '$(loading~spin) CHORUS: 11.3 tok/s',
  );
  const err = statusView({
    configured: true,
    modelFree: false,
    model: { state: 'error', message: 'Out of memory: lower chorus.contextSize.' },
  });
  assert.equal(err.error, true);
  assert.equal(err.tooltip.split('\n')[0], 'Out of memory: lower chorus.contextSize.');
});

test('the last coverage follows the model state', () => {
  const v = statusView({
    configured: true,
    modelFree: false,
    model: { state: 'ready' },
    last: { top: 'fifo', coverage: cov },
  });
  assert.equal(v.text, '$(check) CHORUS: ready · line 96% · branch 88%');
  assert.match(v.tooltip, /Last run on fifo: line 96% · branch 88% · toggle 70%\./);
});

test('the item renders the view and updates in place', () => {
  stub.reset();
  const bar = new StatusBar({ configured: false, modelFree: false });
  const item = stub.statusItems[0];
  assert.equal(item.visible, true);
  assert.equal(item.command, 'chorus.selectModel');
  bar.update({ configured: true, model: { state: 'error', message: 'bad' } });
  assert.equal(item.text, '$(error) CHORUS: model error');
  assert.equal(item.backgroundColor?.id, 'statusBarItem.errorBackground');
  bar.update({ model: { state: 'ready' } });
  assert.equal(item.backgroundColor, undefined);
});
