// The harness self-check: a throwaway probe extension, built here, installed into a real code-server workbench in
// headless chromium; every helper the product test relies on must find what the probe shows, and stopping the
// session must leave no process behind, not even one that escaped into its own process group.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { limitMs } from '../helpers/time-limits';
import { startWorkbench, type Workbench } from './harness';
import { ensureE2eTools } from './install';
import { buildProbeVsix, PROBE_COMMANDS, PROBE_ID, PROBE_SETTINGS_ITEM, type ProbeVsix } from './probe-extension';
import { isAlive } from './processes';
import { pollFor } from './workbench-ui';

// Installing code-server (once per machine) is bounded on its own (install.ts), outside the suite's limit.
before(() => ensureE2eTools());

// The suite (probe, workbench start, every test, stop) took 62 s here at load average 14 and 30 s at load 6.5;
// the probe's item showed 10.4 s after the start at load 14, settings and UI steps took 1–5 s each.
const SUITE_MS = limitMs(61_600, 14);
const PROBE_ITEM_MS = limitMs(10_400, 14);
const STEP_MS = limitMs(5_000, 14);

describe('e2e harness (code-server + chromium, probe extension)', { timeout: SUITE_MS }, () => {
  let probe: ProbeVsix;
  let wb: Workbench;

  before(async () => {
    probe = await buildProbeVsix();
    wb = await startWorkbench({
      name: 'harness',
      vsix: [probe.vsix],
      example: 'counter',
      settings: { 'chorus.maxRounds': 2 },
    });
  });

  after(async () => {
    await wb?.stop();
    if (probe) rmSync(probe.dir, { recursive: true, force: true });
  });

  it('opens the workspace with the extension active', async () => {
    // The probe's item is created on activation and reports the settings the extension host sees.
    const item = await wb.waitForStatusBarItem((i) => i.id === PROBE_SETTINGS_ITEM, PROBE_ITEM_MS, 'the probe item');
    assert.deepEqual(JSON.parse(item.label), { 'chorus.maxRounds': 2 });
    await wb.screenshot('workbench');
  });

  it('passes a settings change on to the extension host', async () => {
    wb.writeWorkspaceSettings({ 'chorus.maxRounds': 3, 'chorus.engine': 'llm' });
    const item = await wb.waitForStatusBarItem(
      (i) => i.id === PROBE_SETTINGS_ITEM && /llm/.test(i.label),
      STEP_MS,
      'the probe seeing the change',
    );
    assert.deepEqual(JSON.parse(item.label), { 'chorus.maxRounds': 3, 'chorus.engine': 'llm' });
  });

  it('runs a command from the palette and sees its notification', async () => {
    await wb.runCommand(PROBE_COMMANDS.hello);
    const text = await wb.waitForNotification(probe.nonce);
    assert.equal(text, `Probe says hello ${probe.nonce}`);
    await wb.screenshot('notification');
    await assert.rejects(wb.runCommand('CHORUS E2E Probe: No such command', 2000), /not in the list/);
  });

  it('opens a file with Quick Open and reads gutter icons per line', async () => {
    await wb.openFile('counter.sv');
    assert.equal(await wb.activeTab(), 'counter.sv');
    await wb.runCommand(PROBE_COMMANDS.decorate);
    const icons = async () => {
      const lines = await wb.gutter();
      return Object.fromEntries(lines.filter((l) => l.glyphs.length).map((l) => [l.line, l.glyphs.map((g) => g.icon)]));
    };
    const seen = await pollFor(
      async () => {
        const s = await icons();
        return Object.keys(s).length >= 3 ? s : undefined;
      },
      STEP_MS,
      async () => `gutter icons: ${JSON.stringify(await icons())}`,
    );
    assert.deepEqual(seen, { 2: ['covered.svg'], 3: ['covered.svg'], 4: ['uncovered.svg'] });
    await wb.screenshot('gutter-icons');
  });

  it('shows test coverage in the gutter and the Test Coverage view', async () => {
    await wb.runCommand(PROBE_COMMANDS.coverage);
    const rows = await wb.openTestCoverageView(/counter\.sv.*66\.67%/, STEP_MS);
    assert.ok(
      rows.some((r) => /counter\.sv/.test(r)),
      JSON.stringify(rows),
    );
    await wb.activateTab('counter.sv');
    const lines = await wb.gutter();
    const cls = (n: number) => lines.find((l) => l.line === n)?.lineNumberClasses ?? [];
    assert.ok(cls(2).includes('coverage-deco-hit'), `line 2: ${cls(2)}`);
    assert.ok(cls(4).includes('coverage-deco-miss'), `line 4: ${cls(4)}`);
    assert.ok(!cls(5).some((c) => c.startsWith('coverage-deco')), `line 5: ${cls(5)}`);
    await wb.screenshot('test-coverage');
  });

  it('reads inside a webview (iframe.webview → #active-frame)', async () => {
    await wb.runCommand(PROBE_COMMANDS.panel);
    const title = wb.webview(PROBE_ID).locator('#probe-title');
    await title.waitFor({ timeout: STEP_MS });
    assert.equal(await title.innerText(), `Probe webview ${probe.nonce}`);
    await wb.screenshot('webview');
  });

  it('stops everything, even a process that left the process group', async () => {
    await wb.runCommand(PROBE_COMMANDS.spawn);
    const text = await wb.waitForNotification(/Probe spawned pid \d+/);
    const sleeper = Number(/pid (\d+)/.exec(text)?.[1]);
    const before = wb.processes();
    assert.ok(
      before.some((p) => p.pid === sleeper && p.comm === 'sleep'),
      'the detached sleeper is found by its mark',
    );
    assert.ok(
      before.some((p) => p.comm === 'chromium'),
      'chromium is found',
    );
    assert.ok(
      before.some((p) => /code-server\/out\/node\/entry\.js/.test(p.cmdline)),
      'code-server is found',
    );
    const serverUrl = wb.url;
    const left = await wb.stop();
    assert.deepEqual(left, []);
    assert.equal(wb.processes().length, 0);
    for (const p of before) assert.equal(isAlive(p.pid), false, `${p.pid} ${p.comm} is still alive`);
    await assert.rejects(fetch(serverUrl), 'code-server no longer answers');
  });
});
