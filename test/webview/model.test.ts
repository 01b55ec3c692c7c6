// The panel's logic without a browser: the message contract, the transcript model, and the pure helpers the views
// draw from.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isHostToWebview, isWebviewToHost, type HostToWebview } from '../../src/protocol';
import { createNonce, panelCsp, renderPanelHtml } from '../../src/extension/webviewHtml';
import { chartGeometry } from '../../src/webview/chartGeometry';
import { formatDelta } from '../../src/webview/format';
import { describeKinds, groupHoles, summarizeDetails } from '../../src/webview/holeGroups';
import {
  addSteer,
  applyHostMessage,
  createModel,
  interpretInput,
  MAX_RUNS,
  previousCoverage,
  restoreModel,
} from '../../src/webview/model';
import { splitFences, splitThinking } from '../../src/webview/responseText';
import { roundStages } from '../../src/webview/stages';
import { loadRun, runMessages } from './harness';

const rec = loadRun('fifo-3-rounds.json');

function replay(messages: HostToWebview[]) {
  const model = createModel();
  for (const m of messages) applyHostMessage(model, m);
  return model;
}

describe('renderPanelHtml', () => {
  const nonce = createNonce();
  const html = renderPanelHtml({
    scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/panel.js',
    styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/extra.css',
    cspSource: 'https://*.vscode-cdn.net',
    nonce,
    title: 'CHORUS <chat> & "runs"',
  });

  test('a strict CSP: nonce scripts only, no inline anything', () => {
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, new RegExp(`script-src 'nonce-${nonce}'(;|$)`));
    assert.match(csp, /style-src https:\/\/\*\.vscode-cdn\.net 'nonce-/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*;|http:/);
    assert.equal(csp, panelCsp('https://*.vscode-cdn.net', nonce));
  });

  test('every script is an external file carrying the nonce; no inline handlers', () => {
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1);
    for (const [, attrs, body] of scripts) {
      assert.match(attrs, new RegExp(`nonce="${nonce}"`));
      assert.match(attrs, /src="https:/);
      assert.match(attrs, /type="module"/);
      assert.equal(body.trim(), '');
    }
    assert.doesNotMatch(html, /\son[a-z]+=/i);
    assert.match(html, /<link rel="stylesheet" href="https:\/\/file\+\.vscode-resource[^"]*extra\.css">/);
  });

  test('escapes the title and preloads scripts before the panel', () => {
    assert.match(html, /<title>CHORUS &lt;chat&gt; &amp; &quot;runs&quot;<\/title>/);
    const withPreload = renderPanelHtml({
      scriptUri: 'a.js',
      cspSource: 'x',
      nonce,
      title: 't',
      preloadScriptUris: ['stub.js'],
    });
    assert.ok(withPreload.indexOf('src="stub.js"') < withPreload.indexOf('src="a.js"'));
  });

  test('refuses a weak nonce and makes fresh ones', () => {
    assert.throws(
      () => renderPanelHtml({ scriptUri: 'a.js', cspSource: 'x', nonce: 'abc', title: 't' }),
      /createNonce/,
    );
    assert.notEqual(createNonce(), createNonce());
    assert.match(createNonce(), /^[A-Za-z0-9_-]{22}$/);
  });
});

describe('message validation', () => {
  test('accepts each panel → host message and refuses malformed ones', () => {
    assert.ok(isWebviewToHost({ type: 'ready', restoredRuns: [] }));
    assert.ok(isWebviewToHost({ type: 'steer', steerId: 's1', text: 'go', runId: 'r' }));
    assert.ok(isWebviewToHost({ type: 'steer', steerId: 's1', text: 'go' }));
    assert.ok(isWebviewToHost({ type: 'revealHole', file: 'fifo.sv', line: 20 }));
    assert.ok(isWebviewToHost({ type: 'applyTestbench', runId: 'r', round: 2, testbench: 'module t; endmodule' }));
    assert.ok(!isWebviewToHost({ type: 'revealHole', file: 'fifo.sv', line: '20' }));
    assert.ok(!isWebviewToHost({ type: 'steer', text: 'no id' }));
    assert.ok(!isWebviewToHost({ type: 'ready', restoredRuns: [1] }));
    assert.ok(!isWebviewToHost({ type: 'runStart', run: {} }), 'a host message is not a panel message');
    assert.ok(!isWebviewToHost(null));
    assert.ok(!isWebviewToHost({ type: 'toString' }));
  });

  test('accepts host → panel messages, including a whole recorded run', () => {
    for (const m of runMessages(rec)) assert.ok(isHostToWebview(m), JSON.stringify(m).slice(0, 80));
    assert.ok(isHostToWebview({ type: 'reset' }));
    assert.ok(isHostToWebview({ type: 'askChunk', askId: 'a', text: 'x', done: false }));
    assert.ok(!isHostToWebview({ type: 'askChunk', askId: 'a', text: 'x' }));
    assert.ok(!isHostToWebview({ type: 'loopEvent', runId: 'r', event: 'tokens' }));
  });
});

describe('transcript model', () => {
  test('a recorded run becomes a request, three rounds and a result', () => {
    const model = replay(runMessages(rec));
    assert.deepEqual(
      model.entries.map((e) => e.kind),
      ['request', 'round', 'round', 'round', 'result'],
    );
    const run = model.runs[rec.run.runId];
    assert.equal(run.rounds.length, 3);
    const tokens = rec.events
      .filter((e) => e.type === 'tokens' && e.round === 2)
      .map((e) => (e.type === 'tokens' ? e.text : ''));
    assert.equal(run.rounds[1].text, tokens.join(''));
    const start3 = rec.events.find((e) => e.type === 'roundStart' && e.round === 3);
    assert.ok(start3?.type === 'roundStart' && start3.instruction);
    assert.equal(run.rounds[2].instruction, start3.instruction);
    assert.equal(run.rounds[0].instruction, undefined);
    assert.equal(run.rounds[0].coverage?.branch.pct, 50);
    assert.equal(previousCoverage(run, 3)?.branch.pct, 75);
    assert.equal(previousCoverage(run, 1), undefined);
    assert.equal(run.result?.pass, true);
    assert.equal(run.holes.length, 1);
    assert.equal(model.liveRunId, undefined, 'final ends the run');
    assert.equal(model.lastRunId, rec.run.runId);
  });

  test('events of a run it never saw start make it the live one', () => {
    const model = createModel();
    applyHostMessage(model, { type: 'loopEvent', runId: 'late', event: { type: 'tokens', round: 2, text: 'hi' } });
    assert.equal(model.liveRunId, 'late');
    assert.deepEqual(
      model.entries.map((e) => e.kind),
      ['request', 'round'],
    );
    applyHostMessage(model, { type: 'runEnded', runId: 'late', outcome: 'cancelled' });
    assert.equal(model.liveRunId, undefined);
    assert.equal(model.runs.late.ended?.outcome, 'cancelled');
  });

  test('steering is answered, asks stream, notices append; reset and restore start over', () => {
    const model = replay(runMessages(rec).slice(0, 10));
    const steer = addSteer(model, 'push while full', new Set());
    assert.equal(steer.runId, rec.run.runId);
    applyHostMessage(model, {
      type: 'steerResult',
      steerId: steer.steerId,
      accepted: false,
      message: 'The random engine takes no instructions.',
    });
    assert.equal(steer.state, 'refused');
    applyHostMessage(model, { type: 'askChunk', askId: 'q1', text: 'Because ', done: false, question: 'why?' });
    applyHostMessage(model, { type: 'askChunk', askId: 'q1', text: 'pop never…', done: true });
    const ask = model.entries.find((e) => e.kind === 'ask');
    assert.ok(ask && ask.kind === 'ask');
    assert.equal(ask.answer, 'Because pop never…');
    assert.equal(ask.state, 'done');
    // A host replaying a steer the panel never sent brings its text along.
    applyHostMessage(model, { type: 'steerResult', steerId: 'old', accepted: true, round: 2, text: 'hold reset low' });
    const replayed = model.entries.find((e) => e.kind === 'steer' && e.steerId === 'old');
    assert.ok(replayed?.kind === 'steer' && replayed.text === 'hold reset low' && replayed.state === 'accepted');
    model.mode = 'ask';
    const dirty = applyHostMessage(model, {
      type: 'restore',
      messages: [{ type: 'notice', level: 'info', text: 'x' }, { type: 'reset' }],
    });
    assert.ok(dirty.has('all'));
    assert.deepEqual(
      model.entries.map((e) => e.kind),
      ['notice'],
      'a nested reset inside restore is ignored',
    );
    assert.equal(model.mode, 'ask', 'the composer keeps its mode');
    applyHostMessage(model, { type: 'reset' });
    assert.equal(model.entries.length, 0);
  });

  test('keeps at most MAX_RUNS runs, dropping the oldest with their entries', () => {
    const model = createModel();
    for (let i = 0; i < MAX_RUNS + 2; i++) {
      applyHostMessage(model, {
        type: 'runStart',
        run: { runId: `r${i}`, dut: 'fifo', files: [], targets: {}, engine: 'random' },
      });
      applyHostMessage(model, { type: 'notice', level: 'info', text: `note ${i}` });
    }
    assert.equal(Object.keys(model.runs).length, MAX_RUNS);
    assert.ok(!model.runs.r0 && !model.runs.r1 && model.runs.r2);
    assert.equal(model.entries[0].kind, 'request');
  });

  test('saved state round-trips through JSON; unknown state starts afresh', () => {
    const model = replay(runMessages(rec));
    const saved: unknown = JSON.parse(JSON.stringify(model));
    assert.deepEqual(restoreModel(saved), saved);
    assert.equal(restoreModel(saved)?.runs[rec.run.runId].rounds.length, 3);
    assert.equal(restoreModel({ version: 99, entries: [], runs: {} }), undefined);
    assert.equal(restoreModel('junk'), undefined);
  });

  test('a leading "?" makes a question whatever the mode', () => {
    assert.deepEqual(interpretInput('  ? why  ', 'steer'), { mode: 'ask', text: 'why' });
    assert.deepEqual(interpretInput('drive pushes', 'steer'), { mode: 'steer', text: 'drive pushes' });
    assert.deepEqual(interpretInput('why', 'ask'), { mode: 'ask', text: 'why' });
  });
});

describe('reply text', () => {
  test('thinking is split off, and held back while "<think>" is still arriving', () => {
    assert.deepEqual(splitThinking('<think>\nplan\n</think>\n\nfilename: a.sv'), {
      thinking: 'plan',
      thinkingOpen: false,
      answer: 'filename: a.sv',
    });
    assert.deepEqual(splitThinking('<think>pla'), { thinking: 'pla', thinkingOpen: true, answer: '' });
    assert.deepEqual(splitThinking('<thi'), { thinking: '', thinkingOpen: true, answer: '' });
    assert.deepEqual(splitThinking('filename: a.sv'), { thinkingOpen: false, answer: 'filename: a.sv' });
  });

  test('fences split prose from code at every point of a stream', () => {
    const full = 'filename: tb.sv\n```systemverilog\nmodule tb;\nendmodule\n```\nDone.';
    assert.deepEqual(splitFences(full), [
      { kind: 'text', text: 'filename: tb.sv' },
      { kind: 'code', text: 'module tb;\nendmodule', lang: 'systemverilog', closed: true },
      { kind: 'text', text: 'Done.' },
    ]);
    // Every prefix: prose only grows, a code block appears once its opening line is complete and stays open until
    // the closing fence.
    let last = '';
    for (let i = 1; i <= full.length; i++) {
      const segs = splitFences(full.slice(0, i));
      const first = segs[0];
      assert.ok(first?.kind === 'text' && first.text.startsWith(last.slice(0, first.text.length)));
      if (first.kind === 'text') last = first.text;
      assert.ok(!segs.some((s) => s.kind === 'text' && s.text.includes('```')), `no fence shown as prose at ${i}`);
      const code = segs.find((s) => s.kind === 'code');
      if (code && code.kind === 'code') assert.equal(code.closed, i >= full.indexOf('```\nDone') + 3);
    }
  });
});

describe('view helpers', () => {
  test('chart geometry: a point per round and kind, inside the plot, higher for more coverage', () => {
    const rounds = rec.events.flatMap((e) => (e.type === 'coverage' ? [{ round: e.round, coverage: e.coverage }] : []));
    const g = chartGeometry(rounds, rec.run.targets);
    assert.equal(g.series.length, 3);
    assert.equal(g.series.flatMap((s) => s.points).length, 9);
    for (const p of g.series.flatMap((s) => s.points)) {
      assert.ok(p.x >= g.plot.x0 && p.x <= g.plot.x1 && p.y <= g.plot.y0 && p.y >= g.plot.y1);
    }
    const branch = g.series.find((s) => s.kind === 'branch')!.points;
    assert.ok(branch[0].y > branch[1].y && branch[1].y > branch[2].y, 'branch 50 → 75 → 100 climbs');
    assert.equal(branch[2].y, g.plot.y1);
    assert.deepEqual(
      g.xTicks.map((t) => t.label),
      ['1', '2', '3'],
    );
    assert.deepEqual(
      g.targets.map((t) => t.kind),
      ['line', 'branch'],
    );
    const one = chartGeometry(rounds.slice(0, 1), {});
    assert.equal(one.series[0].points[0].x, (one.plot.x0 + one.plot.x1) / 2, 'a single round sits mid-plot');
  });

  test('holes group by line', () => {
    const holes = rec.events.flatMap((e) => (e.type === 'coverage' && e.round === 1 ? e.holes : []));
    const groups = groupHoles(holes);
    assert.equal(groups.length, new Set(holes.map((h) => h.line)).size);
    const mem = groups.find((g) => g.line === 20)!;
    assert.equal(mem.kinds.toggle, holes.filter((h) => h.line === 20).length);
    assert.equal(describeKinds({ branch: 2, line: 1 }), 'line · branch ×2');
    assert.equal(summarizeDetails(['a', 'b', 'c', 'd', 'e']), 'a, b, c … +2');
    // Points proven unreachable never merge with a line's holes: their own rows, after every hole, with the proof.
    const mixed = groupHoles([
      {
        kind: 'line',
        file: 'a.sv',
        line: 3,
        detail: 'default',
        unreachable: 'full case',
        proof: { method: 'analysis' },
      },
      { kind: 'branch', file: 'a.sv', line: 3, detail: 'else' },
      {
        kind: 'branch',
        file: 'a.sv',
        line: 9,
        detail: 'if',
        unreachable: 'k-induction, depth 4',
        proof: { method: 'induction', depth: 4 },
      },
      { kind: 'line', file: 'a.sv', line: 7, detail: 'block', formal: 'timeout' },
    ]);
    assert.deepEqual(
      mixed.map((g) => [g.line, g.details.join(','), g.proof, g.formal]),
      [
        [3, 'else', undefined, undefined],
        [7, 'block', undefined, 'timeout'],
        [3, 'default', 'analysis: full case', undefined],
        [9, 'if', 'k-induction (depth 4)', undefined],
      ],
    );
  });

  test('stages: the next stage runs, later ones wait, failures skip the rest', () => {
    assert.deepEqual(roundStages({ index: 1, text: '' }, true), {
      parse: 'active',
      compile: 'pending',
      simulation: 'pending',
    });
    assert.deepEqual(
      roundStages({ index: 1, text: '', parse: { outcome: 'ok', patch: false }, testbench: 'x' }, true),
      {
        parse: 'ok',
        compile: 'active',
        simulation: 'pending',
      },
    );
    const broken = {
      index: 1,
      text: '',
      parse: { outcome: 'ok', patch: false },
      testbench: 'x',
      build: { status: 'compile_error' as const, ms: 1, diagnostics: [] },
    };
    assert.deepEqual(roundStages(broken, true), { parse: 'ok', compile: 'failed', simulation: 'skipped' });
    assert.deepEqual(roundStages({ index: 1, text: '', parse: { outcome: 'no code block', patch: false } }, false), {
      parse: 'failed',
      compile: 'skipped',
      simulation: 'skipped',
    });
  });

  test('deltas read as percentage points', () => {
    assert.equal(formatDelta(75, 50), '+25.0');
    assert.equal(formatDelta(50, 75), '−25.0');
    assert.equal(formatDelta(80, 80), '±0');
    assert.equal(formatDelta(80, undefined), undefined);
  });
});
