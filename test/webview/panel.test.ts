// The built chat panel in headless Chromium: a recorded run replayed into it, the DOM checked, the user's messages
// checked on the way back, a reload restored from state, screenshots in both themes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Hole, HostToWebview } from '../../src/protocol';
import { ensureFreshCli, repoRoot } from '../helpers/cli';
import {
  loadRun,
  loopEventOf,
  postToPanel,
  posted,
  runMessages,
  startHarness,
  waitForPosted,
  type Harness,
} from './harness';

const artifacts = join(repoRoot, 'test-artifacts', 'webview');
const rec = loadRun('fifo-3-rounds.json');
const runId = rec.run.runId;
const messages = runMessages(rec);
const KINDS = 3;

/** Index just after the `roundEnd` of `round` in `messages`. */
function afterRoundEnd(round: number): number {
  return (
    messages.findIndex((m) => m.type === 'loopEvent' && m.event.type === 'roundEnd' && m.event.round.index === round) +
    1
  );
}

function testbenchOf(round: number): string {
  for (const e of rec.events) if (e.type === 'parsed' && e.round === round && e.testbench) return e.testbench;
  throw new Error(`the recording has no testbench for round ${round}`);
}

function holesAfter(round: number): Hole[] {
  for (const e of rec.events) if (e.type === 'coverage' && e.round === round) return e.holes;
  throw new Error(`the recording has no coverage for round ${round}`);
}

const distinctLines = (holes: Hole[]) => new Set(holes.map((h) => `${h.file}:${h.line}`)).size;

async function openPanel(h: Harness, theme: 'dark' | 'light', width = 1180, height = 900): Promise<Page> {
  const page = await h.browser.newPage({ viewport: { width, height } });
  page.on('pageerror', (err) => assert.fail(`panel script error: ${err.message}`));
  await page.goto(h.pageUrl(theme));
  await waitForPosted(page, 'ready');
  return page;
}

/** Waits until the panel has drawn `n` round cards and the frame after the last message has run. */
async function settled(page: Page, rounds: number): Promise<void> {
  await page.waitForFunction((n) => document.querySelectorAll('.round-card').length === n, rounds);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

describe('chat panel (built bundle in Chromium)', () => {
  let h: Harness;

  before(async () => {
    // Built once by scripts/test.mjs; rebuilt only when stale, never under a test file running beside this one.
    ensureFreshCli();
    mkdirSync(artifacts, { recursive: true });
    h = await startHarness();
  });

  after(async () => {
    await h?.close();
  });

  test('replays a recorded run, talks back, survives a reload', async () => {
    const page = await openPanel(h, 'dark', 1180, 1100);
    const ready = (await posted(page)).find((m) => m.type === 'ready');
    assert.deepEqual(ready, { type: 'ready', restoredRuns: [] });
    assert.equal(await page.locator('.empty-state').isVisible(), true, 'an empty panel says how to start');

    await postToPanel(page, [
      {
        type: 'modelStatus',
        status: { state: 'generating', model: 'chorus-4b-q4_k_m.gguf', tokensPerSecond: 11.3, backend: 'cpu' },
      },
    ]);
    await page.waitForFunction(() => document.querySelector('.status-line')?.textContent?.includes('11.3 tok/s'));

    // Round 1: the card, its testbench, its holes.
    await postToPanel(page, messages.slice(0, afterRoundEnd(1)));
    await settled(page, 1);
    assert.equal(await page.locator('.request code').textContent(), 'fifo');
    assert.match(
      (await page.locator('.request .meta').textContent()) ?? '',
      /line 100% · branch 100%.*chorus-4b-q4_k_m\.gguf/,
    );
    assert.equal(await page.locator('.holes button.hole').count(), distinctLines(holesAfter(1)));
    assert.equal(await page.locator('svg.coverage-chart circle.point').count(), 1 * KINDS);
    assert.equal(
      await page.locator('vscode-button.stop').getAttribute('disabled'),
      null,
      'Stop is available while the run goes',
    );

    // Round 2, then the user steers round 3 while the run is live.
    await postToPanel(page, messages.slice(afterRoundEnd(1), afterRoundEnd(2)));
    await settled(page, 2);
    const steerText = 'Drive back-to-back pushes while full, then pop and push in the same cycle.';
    const input = page.locator('vscode-textarea.composer-input textarea');
    await input.click();
    await input.pressSequentially(steerText);
    const before = (await posted(page)).length;
    await input.press('Enter');
    const steer = await waitForPosted(page, 'steer', before);
    assert.equal(steer.text, steerText);
    assert.equal(steer.runId, runId);
    assert.equal(await input.inputValue(), '', 'the input clears after sending');
    await postToPanel(page, [{ type: 'steerResult', steerId: steer.steerId, accepted: true, runId, round: 3 }]);
    await page.waitForFunction(
      () => document.querySelector('.steer .steer-state')?.textContent === 'Round 3 will follow it.',
    );

    // Stop goes to the host for the live run.
    await page.locator('vscode-button.stop').click();
    assert.equal((await waitForPosted(page, 'stop', before)).runId, runId);

    // The rest of the run.
    await postToPanel(page, messages.slice(afterRoundEnd(2)));
    await settled(page, 3);
    await page.waitForSelector('.result.ok');

    const cards = page.locator('.round-card');
    assert.deepEqual(await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-round'))), ['1', '2', '3']);
    // Every round parsed, compiled and simulated.
    assert.equal(await page.locator('.round-card .chip.ok').count(), 3 * 3);
    // One highlighted testbench per round, with exactly the parsed text.
    const code = page.locator('.round-card .code-block pre.code code');
    assert.equal(await code.count(), 3);
    for (let r = 1; r <= 3; r++) {
      assert.equal(await code.nth(r - 1).textContent(), testbenchOf(r).replace(/\n$/, ''));
    }
    assert.ok((await page.locator('.code-block .hljs-keyword').count()) > 20, 'keywords are highlighted');
    // The reply's code gives way to the testbench block; its prose stays.
    assert.equal(await page.locator('.round-card .reply pre.code').count(), 0);
    assert.equal(await cards.nth(0).locator('.code-title').textContent(), 'tb_fifo.sv');
    assert.doesNotMatch(
      (await cards.nth(0).locator('.reply').textContent()) ?? '',
      /filename:/,
      'the file name is in the block header',
    );
    assert.equal(
      await cards.nth(0).locator('details.thinking').getAttribute('open'),
      null,
      'thinking is folded once done',
    );
    // Round 3 shows the instruction it followed.
    assert.match((await cards.nth(2).locator('.steered').textContent()) ?? '', /same cycle/);
    // Coverage with the change from the round before: branch 50 → 75 → 100.
    assert.equal(await cards.nth(1).locator('.cov-row[data-kind="branch"] .cov-delta').textContent(), '+25.0');
    assert.equal(await cards.nth(2).locator('.cov-row[data-kind="branch"] .cov-pct').textContent(), '100.0%');
    assert.equal(await cards.nth(0).locator('.cov-row[data-kind="line"] .cov-delta').textContent(), '');
    // The chart: a point per round and kind, at the measured values.
    const points = page.locator('svg.coverage-chart circle.point');
    assert.equal(await points.count(), 3 * KINDS);
    assert.equal(
      await page
        .locator('svg.coverage-chart circle.point[data-kind="branch"][data-round="2"]')
        .getAttribute('data-pct'),
      '75',
    );
    assert.equal(await page.locator('svg.coverage-chart polyline.trace').count(), KINDS);
    assert.deepEqual(await page.locator('svg.coverage-chart text.tick.x').allTextContents(), ['1', '2', '3']);
    assert.deepEqual(await page.locator('svg.coverage-chart text.axis-title').allTextContents(), ['Round', 'Coverage']);
    // The final holes.
    const holes = page.locator('.holes button.hole');
    assert.equal(await holes.count(), distinctLines(holesAfter(3)));
    assert.match((await holes.first().textContent()) ?? '', /fifo\.sv:20.*mem\[0\]\[7\]/);
    assert.match((await page.locator('.result').textContent()) ?? '', /Targets met after 3 rounds/);
    // Retry for a finished run; Stop only while one goes.
    assert.notEqual(await page.locator('vscode-button.stop').getAttribute('disabled'), null);
    assert.equal(await page.locator('vscode-button.retry').getAttribute('disabled'), null);

    // Clicking a hole asks the host to reveal it; so does Enter on a focused one (keyboard).
    let mark = (await posted(page)).length;
    await holes.first().click();
    assert.deepEqual(await waitForPosted(page, 'revealHole', mark), {
      type: 'revealHole',
      file: 'fifo.sv',
      line: 20,
      runId,
    });
    mark = (await posted(page)).length;
    await holes.first().focus();
    await page.keyboard.press('Enter');
    assert.equal((await waitForPosted(page, 'revealHole', mark)).line, 20);

    // Apply and Copy carry the round's testbench.
    mark = (await posted(page)).length;
    await cards.nth(1).locator('.code-actions vscode-button', { hasText: 'Apply' }).click();
    assert.deepEqual(await waitForPosted(page, 'applyTestbench', mark), {
      type: 'applyTestbench',
      runId,
      round: 2,
      testbench: testbenchOf(2),
    });
    await cards.nth(2).locator('.code-actions vscode-button', { hasText: 'Copy' }).click();
    assert.equal((await waitForPosted(page, 'copy', mark)).text, testbenchOf(3));
    await page.locator('vscode-button.retry').click();
    assert.equal((await waitForPosted(page, 'retry', mark)).runId, runId);

    // A question: a leading "?" makes it one whatever the mode; Shift+Enter is a new line, not a send.
    mark = (await posted(page)).length;
    await input.click();
    await input.pressSequentially('? Why is mem[0][7] never toggled?');
    await input.press('Shift+Enter');
    await input.pressSequentially('Which input would reach it?');
    assert.equal((await posted(page)).length, mark, 'Shift+Enter does not send');
    await input.press('Enter');
    const ask = await waitForPosted(page, 'ask', mark);
    assert.equal(ask.question, 'Why is mem[0][7] never toggled?\nWhich input would reach it?');
    assert.equal(ask.runId, runId);
    const answer =
      "Slot 0 only ever held 0x3C and 0xFF values with bit 7 set once.\n```systemverilog\ncycle(1, 0, 8'h00);\n```\nPush a word with bit 7 clear into slot 0 after one with it set.";
    const chunks: HostToWebview[] = answer
      .match(/[\s\S]{1,7}/g)!
      .map((text) => ({ type: 'askChunk', askId: ask.askId, text, done: false }));
    chunks.push({ type: 'askChunk', askId: ask.askId, text: '', done: true });
    await postToPanel(page, chunks, 5);
    await page.waitForFunction(() =>
      document.querySelector('.answer-bubble .answer')?.textContent?.includes('bit 7 clear'),
    );
    assert.equal(
      (await page.locator('.answer-bubble pre.code .hljs-number').count()) > 0,
      true,
      'code in answers is highlighted',
    );

    // Keyboard: from the input, Tab reaches Retry and then Send (Stop is disabled: no run goes).
    await input.focus();
    const focusedClass = () => page.evaluate(() => document.activeElement?.className ?? '');
    await page.keyboard.press('Tab');
    assert.equal(await focusedClass(), 'retry');
    await page.keyboard.press('Tab');
    assert.equal(await focusedClass(), 'send');

    assert.deepEqual(
      await page.evaluate(() => window.__cspViolations),
      [],
      'nothing breaks the content security policy',
    );
    await page.screenshot({ path: join(artifacts, 'panel.png') });

    // Reload: the webview state brings the transcript back without the host's help.
    await page.reload();
    const readyAgain = await waitForPosted(page, 'ready');
    assert.deepEqual(readyAgain.restoredRuns, [runId]);
    await settled(page, 3);
    assert.equal(await page.locator('.round-card .code-block pre.code code').count(), 3);
    assert.equal(await page.locator('svg.coverage-chart circle.point').count(), 3 * KINDS);
    assert.equal(await page.locator('.holes button.hole').count(), distinctLines(holesAfter(3)));
    assert.match((await page.locator('.steer .user-text').textContent()) ?? '', /back-to-back pushes/);
    assert.match((await page.locator('.answer-bubble').textContent()) ?? '', /bit 7 clear/);
    assert.equal(await page.locator('.empty-state').isVisible(), false);

    // Reset clears it.
    await postToPanel(page, [{ type: 'reset' }]);
    await page.waitForFunction(() => document.querySelectorAll('.round-card').length === 0);
    assert.equal(await page.locator('.dashboard').isVisible(), false);
    await page.close();
  });

  test('a host restore replaces the transcript, and a light theme reads well', async () => {
    const page = await openPanel(h, 'light', 1180, 900);
    await postToPanel(page, [
      { type: 'modelStatus', status: { state: 'ready', model: 'chorus-4b-q4_k_m.gguf', backend: 'cpu' } },
      { type: 'notice', level: 'info', text: 'This message goes away with the restore.' },
      { type: 'restore', messages },
    ]);
    await settled(page, 3);
    assert.equal(await page.locator('.notice').count(), 0);
    assert.equal(await page.locator('svg.coverage-chart circle.point').count(), 3 * KINDS);
    // Scroll round 2 into view so the screenshot shows a card with its code.
    await page.locator('.round-card[data-round="3"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(artifacts, 'panel-light.png') });
    await page.close();
  });

  test('failures read clearly: no testbench, a compile error, a failed run, a broken model', async () => {
    const page = await openPanel(h, 'dark', 900, 1000);
    const id = 'broken-1';
    const ev = loopEventOf(id);
    const zero = { covered: 0, total: 5, pct: 0 };
    const cov = { line: zero, branch: zero, toggle: zero };
    await postToPanel(page, [
      {
        type: 'modelStatus',
        status: {
          state: 'error',
          model: 'chorus-4b-q4_k_m.gguf',
          message: 'Model file not found: run “CHORUS: Download model” or set chorus.model.',
        },
      },
      {
        type: 'runStart',
        run: {
          runId: id,
          dut: 'uart_tx',
          files: ['examples/uart_tx/uart_tx.sv'],
          targets: { line: 90 },
          engine: 'llm',
          model: 'chorus-4b-q4_k_m.gguf',
        },
      },
      ev({ type: 'roundStart', round: 1 }),
      ev({ type: 'tokens', round: 1, text: 'I would drive the serial line with a few bytes.' }),
      ev({ type: 'parsed', round: 1, outcome: 'no ```systemverilog block in the reply' }),
      ev({
        type: 'roundEnd',
        round: { index: 1, status: 'rejected', coverage: cov, ms: { generate: 9000, build: 0, sim: 0 }, reward: 0 },
      }),
      ev({ type: 'roundStart', round: 2 }),
      ev({
        type: 'tokens',
        round: 2,
        text: 'filename: tb_uart_tx.sv\n```systemverilog\nmodule tb;\n  uart_tx uut(.clk(clk));\nendmodule\n```\n',
      }),
      ev({
        type: 'parsed',
        round: 2,
        outcome: 'ok: tb_uart_tx.sv',
        testbench: 'module tb;\n  uart_tx uut(.clk(clk));\nendmodule\n',
      }),
      ev({
        type: 'build',
        round: 2,
        status: 'compile_error',
        ms: 812,
        diagnostics: [
          {
            file: 'tb_uart_tx.sv',
            line: 2,
            column: 19,
            severity: 'error',
            message: "Can't find definition of variable: 'clk'",
          },
          { file: 'tb_uart_tx.sv', line: 2, column: 3, severity: 'warning', message: 'Cell has missing pin: rst_n' },
        ],
      }),
      ev({ type: 'log', level: 'warn', message: 'Round 2 did not compile; the model gets the log.' }),
      ev({
        type: 'roundEnd',
        round: {
          index: 2,
          status: 'compile_error',
          coverage: cov,
          ms: { generate: 11000, build: 812, sim: 0 },
          reward: 0,
        },
      }),
      {
        type: 'runEnded',
        runId: id,
        outcome: 'failed',
        message: 'Verilator exited with code 1 twice: fix the DUT or the instance name, then Retry.',
      },
    ]);
    await settled(page, 2);
    await page.waitForSelector('.result.error');
    const cards = page.locator('.round-card');
    assert.match(
      (await cards.nth(0).locator('.parse-note').textContent()) ?? '',
      /No testbench: no ```systemverilog block/,
    );
    assert.deepEqual(
      await cards
        .nth(0)
        .locator('.chip')
        .evaluateAll((els) => els.map((e) => e.className)),
      ['chip failed', 'chip skipped', 'chip skipped'],
    );
    assert.deepEqual(
      await cards
        .nth(1)
        .locator('.chip')
        .evaluateAll((els) => els.map((e) => e.className)),
      ['chip ok', 'chip failed', 'chip skipped'],
    );
    assert.equal(await cards.nth(1).locator('.diagnostics li').count(), 2);
    assert.match(
      (await cards.nth(1).locator('.diagnostics').textContent()) ?? '',
      /tb_uart_tx\.sv:2:19 error: Can't find definition/,
    );
    assert.equal(
      await cards.nth(1).locator('.coverage-rows').isVisible(),
      false,
      'no coverage is shown for a build that failed',
    );
    assert.equal(await page.locator('.notice.warning').count(), 1);
    assert.match((await page.locator('.result.error').textContent()) ?? '', /The run failed\.Verilator exited/);
    assert.equal(await page.locator('.status-line').getAttribute('data-state'), 'error');
    assert.match((await page.locator('.status-text').textContent()) ?? '', /Model file not found/);
    assert.equal(await page.locator('vscode-button.retry').getAttribute('disabled'), null);
    await page.screenshot({ path: join(artifacts, 'panel-failures.png') });
    await page.close();
  });

  test('a run whose testbenches never compiled says nothing was measured, not "no holes left"', async () => {
    const page = await openPanel(h, 'dark', 900, 1000);
    const id = 'unmeasured-1';
    const none = { covered: 0, total: 0, pct: 0 };
    const cov = { line: none, branch: none, toggle: none };
    const ev = loopEventOf(id);
    await postToPanel(page, [
      {
        type: 'runStart',
        run: { runId: id, dut: 'fifo', files: ['examples/fifo/fifo.sv'], targets: { line: 100 }, engine: 'llm' },
      },
      ev({ type: 'roundStart', round: 1 }),
      ev({ type: 'tokens', round: 1, text: 'gibberish' }),
      ev({ type: 'parsed', round: 1, outcome: 'no ```systemverilog block in the reply' }),
      ev({
        type: 'roundEnd',
        round: { index: 1, status: 'no_code', coverage: cov, ms: { generate: 2700, build: 0, sim: 0 }, reward: 0 },
      }),
      ev({
        type: 'final',
        result: {
          top: 'fifo',
          engine: 'llm',
          pass: false,
          targets: { line: 100 },
          coverage: cov,
          holes: [],
          rounds: [{ index: 1, status: 'no_code', coverage: cov, ms: { generate: 2700, build: 0, sim: 0 }, reward: 0 }],
          testbench: '',
          stopReason: 'stalled',
          diagnostics: [],
          closed: false,
        },
      }),
      { type: 'runEnded', runId: id, outcome: 'completed' },
    ]);
    await settled(page, 1);
    await page.waitForSelector('.result-cov');
    assert.equal(
      await page.locator('.result-cov').textContent(),
      'Nothing was measured: no testbench compiled and ran.',
    );
    assert.equal(await page.locator('.result-closure').count(), 0, 'no closure line for a run that measured nothing');
    assert.equal(
      await page.locator('.holes-slot .empty').textContent(),
      'Nothing was measured: no testbench compiled and ran.',
    );
    assert.match((await page.locator('.dash-summary').textContent()) ?? '', /fifo · nothing measured/);
    await page.close();
  });

  test('fits a narrow side bar', async () => {
    const page = await openPanel(h, 'dark', 380, 860);
    await postToPanel(page, messages.slice(0, afterRoundEnd(2)));
    await settled(page, 2);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.equal(overflow, 0, 'nothing spills sideways');
    // The dashboard folds away to a one-line summary.
    await page.locator('.dash-toggle').click();
    await page.waitForFunction(() => document.querySelector('.dash-toggle')?.getAttribute('aria-expanded') === 'false');
    assert.equal(await page.locator('.dash-body').isVisible(), false);
    assert.match((await page.locator('.dash-summary').textContent()) ?? '', /round 2 · line 80\.0%/);
    // The mode switch turns the input into a question box.
    await page.locator('vscode-radio[value="ask"]').click();
    await page.waitForFunction(() => document.querySelector('vscode-button.send')?.textContent === 'Ask');
    const mark = (await posted(page)).length;
    const input = page.locator('vscode-textarea.composer-input textarea');
    await input.click();
    await input.pressSequentially('What drives level?');
    await input.press('Enter');
    assert.equal((await waitForPosted(page, 'ask', mark)).question, 'What drives level?');
    await page.screenshot({ path: join(artifacts, 'panel-narrow.png') });
    await page.close();
  });

  test('the final summary says whether the run is closed; points proven unreachable are listed apart from holes', async () => {
    const page = await openPanel(h, 'dark', 1000, 1200);
    const last = messages[messages.length - 1];
    assert.ok(last.type === 'loopEvent' && last.event.type === 'final', 'the recording ends with its result');
    const final = last.event.result;
    const fifo = final.holes[0].file;
    const proven: Hole[] = [
      {
        kind: 'branch',
        file: fifo,
        line: 31,
        detail: 'else arm never taken',
        unreachable: 'k-induction, depth 3',
        proof: { method: 'induction', depth: 3 },
      },
      {
        kind: 'line',
        file: fifo,
        line: 40,
        detail: 'block never executed',
        unreachable: 'the state register holds only 3 values',
        proof: { method: 'analysis' },
      },
    ];
    const undecided: Hole = {
      kind: 'line',
      file: fifo,
      line: 44,
      detail: 'block never executed',
      formal: 'timeout after 10 s',
    };
    const open = (closed: boolean, holes: Hole[]): HostToWebview => ({
      type: 'loopEvent',
      runId,
      event: {
        type: 'final',
        result: {
          ...final,
          holes: [...final.holes, ...holes],
          closed,
          formal: { proven: 2, witnesses: 1, unknown: closed ? 0 : 1, ms: 2400 },
        },
      },
    });
    await postToPanel(page, [...messages.slice(0, -1), open(false, [...proven, undecided])]);
    await settled(page, 3);
    await page.waitForSelector('.result-closure');
    assert.equal(
      await page.locator('.result-closure').textContent(),
      '1 line/branch point neither covered nor proven unreachable · formal: 2 proven unreachable · 1 witness · 1 unknown · 2.4 s in Yosys',
    );
    assert.match(
      (await page.locator('.result-cov').textContent()) ?? '',
      new RegExp(`· ${final.holes.length + 1} holes left · 2 proven unreachable$`),
    );
    // The holes first, then the proofs under their own heading, each naming its proof.
    const rows = page.locator('.holes button.hole');
    const provenRows = page.locator('.holes button.hole.proven');
    assert.equal(await rows.count(), distinctLines(final.holes) + 3);
    assert.equal(await provenRows.count(), 2);
    assert.equal(await page.locator('.holes-divider').textContent(), 'Proven unreachable (not holes)');
    assert.equal(
      await page.locator('.hole-formal').textContent(),
      'formal engine: timeout after 10 s',
      'an undecided hole says why',
    );
    assert.deepEqual(await page.locator('.hole.proven .hole-proof').allTextContents(), [
      'proven unreachable: k-induction (depth 3)',
      'proven unreachable: analysis: the state register holds only 3 values',
    ]);
    assert.equal(await rows.last().locator('.hole-proof').count(), 1, 'the proofs come after every hole');
    assert.equal(await rows.first().locator('.hole-proof').count(), 0);
    assert.equal(
      await page.locator('.holes-title vscode-badge').textContent(),
      String(final.holes.length + 1),
      'the badge counts holes, not proofs',
    );
    await page.screenshot({ path: join(artifacts, 'panel-closure.png') });

    // A closed run says so.
    await postToPanel(page, [{ type: 'reset' }, ...messages.slice(0, -1), open(true, proven)]);
    await settled(page, 3);
    await page.waitForSelector('.result-closure.closed');
    assert.match(
      (await page.locator('.result-closure').textContent()) ?? '',
      /^Closed: every line and branch point covered or proven unreachable · formal: 2 proven/,
    );
    await page.close();
  });

  test('a long token stream is drawn in frames, not per token', async () => {
    const page = await openPanel(h, 'dark', 800, 700);
    await postToPanel(page, [messages[0], { type: 'loopEvent', runId, event: { type: 'roundStart', round: 1 } }]);
    await settled(page, 1);
    await page.evaluate(() => {
      const w = window as unknown as { __mutations: number };
      w.__mutations = 0;
      new MutationObserver((records) => (w.__mutations += records.length)).observe(
        document.querySelector('.round-card')!,
        {
          subtree: true,
          childList: true,
          characterData: true,
        },
      );
    });
    const tokens = 5000;
    const piece = 'push <= 1; ';
    const stream: HostToWebview[] = [
      {
        type: 'loopEvent',
        runId,
        event: { type: 'tokens', round: 1, text: 'filename: tb_fifo.sv\n```systemverilog\n' },
      },
    ];
    for (let i = 0; i < tokens; i++)
      stream.push({
        type: 'loopEvent',
        runId,
        event: { type: 'tokens', round: 1, text: i % 20 === 19 ? '\n' : piece },
      });
    await postToPanel(page, stream, 250);
    const expected = stream
      .slice(1)
      .map((m) => (m.type === 'loopEvent' && m.event.type === 'tokens' ? m.event.text : ''))
      .join('');
    await page.waitForFunction(
      (n) => (document.querySelector('.round-card .reply pre.code')?.textContent?.length ?? 0) === n,
      expected.length,
    );
    assert.equal(await page.locator('.round-card .reply pre.code').textContent(), expected);
    const mutations = await page.evaluate(() => (window as unknown as { __mutations: number }).__mutations);
    assert.ok(mutations < tokens / 10, `${mutations} DOM mutations for ${tokens} tokens`);
    await page.close();
  });
});
