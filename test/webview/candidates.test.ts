// A round with several candidates in the built chat panel (headless Chromium): its card lists them, the kept one
// first with its expert, outcome and coverage, and any candidate's testbench can be opened.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CandidateRun, HostToWebview } from '../../src/protocol';
import { ensureFreshCli } from '../helpers/cli';
import { loadRun, postToPanel, runMessages, startHarness, waitForPosted, type Harness } from './harness';

const rec = loadRun('fifo-3-rounds.json');
const runId = rec.run.runId;
const messages = runMessages(rec);
let h: Harness;

before(async () => {
  // Built once by scripts/test.mjs; rebuilt only when stale, never under a test file running beside this one.
  ensureFreshCli();
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

test('a round card lists its candidates, the kept one first, and opens any candidate’s testbench', async () => {
  const page = await h.browser.newPage({ viewport: { width: 1000, height: 900 } });
  page.on('pageerror', (err) => assert.fail(`panel script error: ${err.message}`));
  await page.goto(h.pageUrl('dark'));
  await waitForPosted(page, 'ready');

  const endOfRound1 = messages.findIndex(
    (m) => m.type === 'loopEvent' && m.event.type === 'roundEnd' && m.event.round.index === 1,
  );
  const end = messages[endOfRound1];
  assert.ok(end.type === 'loopEvent' && end.event.type === 'roundEnd');
  const coverage = end.event.round.coverage;
  const candidates: CandidateRun[] = [
    { expert: 'lora:verilog-a.gguf', status: 'ok', coverage, kept: true, testbench: 'module tb_kept; endmodule' },
    {
      expert: 'lora:verilog-b.gguf',
      status: 'compile_error',
      coverage,
      kept: false,
      testbench: 'module tb_other; endmodule',
    },
    { expert: 'endpoint:qwen3', status: 'error', coverage, kept: false, error: 'HTTP 503' },
  ];
  const listed: HostToWebview = { type: 'loopEvent', runId, event: { type: 'candidates', round: 1, candidates } };
  await postToPanel(page, [...messages.slice(0, endOfRound1), listed, end]);

  const box = page.locator('.round-card[data-round="1"] details.candidates');
  await box.waitFor({ state: 'attached' });
  assert.equal(await box.locator('summary').textContent(), '3 candidates · kept: lora:verilog-a.gguf');
  await box.locator('summary').click();
  const rows = box.locator('li.candidate');
  assert.equal(await rows.count(), 3);
  assert.equal(await rows.nth(0).locator('.candidate-expert').textContent(), 'lora:verilog-a.gguf');
  assert.match((await rows.nth(0).locator('.candidate-status').textContent()) ?? '', /^kept · ok$/);
  assert.equal(await rows.nth(0).getAttribute('class'), 'candidate kept');
  assert.equal(await rows.nth(1).locator('.candidate-status').textContent(), 'compile error');
  assert.equal(await rows.nth(2).locator('.candidate-status').textContent(), 'failed: HTTP 503');
  assert.equal(
    await rows.nth(2).locator('button.candidate-open').count(),
    0,
    'a failed candidate has no testbench to open',
  );

  const before = (await page.evaluate(() => window.__posted.length)) as number;
  await rows.nth(1).locator('button.candidate-open').click();
  const opened = await waitForPosted(page, 'openTestbench', before);
  assert.deepEqual(opened, { type: 'openTestbench', runId, round: 1, testbench: 'module tb_other; endmodule' });
  await page.close();
});
