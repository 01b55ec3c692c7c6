// A Bender package end to end in VS Code (code-server + chromium): the accumulator of the filelist scenario
// (test/e2e/fixtures/filelist-design: an include folder, a define, RTL in two folders) described by a Bender.yml in
// place of its rtl/top.f. Opening the top, CHORUS offers the Bender.yml; accepted, it lands in the workspace
// settings, and "Generate high-coverage stimulus" from the palette (the model-free engine) closes line and branch
// coverage over both folders with the define's width.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { limitMs } from '../helpers/time-limits';
import { productVsix } from '../helpers/vsix';
import { startWorkbench, type Workbench } from './harness';
import { ensureE2eTools } from './install';
import { commandTitle, productExtensionId } from './product-manifest';
import { pollFor, type StatusBarItem } from './workbench-ui';

const fixture = join(__dirname, 'fixtures', 'filelist-design');

// Limits from times measured here (test/helpers/time-limits.ts). The product suite's figures: opening a file until
// the CHORUS item showed 17.1 s at load 10; a cold-cache model-free run 94 s at load 17.
const ACTIVATE_MS = limitMs(17_100, 10);
const RUN_MS = limitMs(93_700, 17);
/** The offer after activation (the server's start, one read of the workspace's `.f` files): 1.7 s at load 20. */
const OFFER_MS = limitMs(1_700, 20);
/** A settings write, a view showing what a finished run left: ≤3.2 s at load 14 in the product suite. */
const UI_STEP_MS = limitMs(3_200, 14);
const SUITE_MS = ACTIVATE_MS + OFFER_MS + RUN_MS + 6 * UI_STEP_MS + limitMs(60_000, 14);

/** Bender.yml describing what rtl/top.f lists (Bender's TARGET_* macros aside). */
const BENDER_YML = [
  'package:',
  '  name: acc',
  'export_include_dirs:',
  '  - include',
  'sources:',
  '  - target: not(fpga)',
  '    defines:',
  '      ACC_WIDTH: 8',
  '    files:',
  '      - rtl/acc_top.sv',
  '      - ip/acc_alu.sv',
  '',
].join('\n');

/** The fixture's files as the harness writes them into the workspace: relative path → content. */
function fixtureFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(fixture, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(fixture);
  delete out[join('rtl', 'top.f')];
  out['Bender.yml'] = BENDER_YML;
  return out;
}

let vsix: string;
before(async () => {
  await ensureE2eTools();
  vsix = await productVsix();
});

describe(
  'CHORUS on a design given by a Bender.yml (include folder, define, two RTL folders)',
  { timeout: SUITE_MS },
  () => {
    let wb: Workbench;
    let extensionId: string;
    const isChorusItem = (i: StatusBarItem) =>
      i.id.startsWith(`${extensionId}.`) && /CHORUS/.test(`${i.text} ${i.label}`);

    function step(name: string, fn: () => Promise<void>): void {
      it(name, async () => {
        try {
          await fn();
        } catch (err) {
          await wb?.screenshot(`FAILED-${name.replace(/\W+/g, '-').slice(0, 40)}`).catch(() => undefined);
          throw err;
        }
      });
    }

    before(async () => {
      extensionId = productExtensionId();
      wb = await startWorkbench({
        name: 'bender',
        vsix: [vsix],
        files: fixtureFiles(),
        settings: { 'chorus.engine': 'random', 'chorus.simTimeoutSeconds': 60 },
      });
    });

    after(async () => {
      if (wb) {
        const left = await wb.stop();
        if (left.length) process.stderr.write(`e2e: processes left after stop: ${JSON.stringify(left)}\n`);
      }
    });

    step(
      'opening the top offers the Bender.yml that lists it; accepted, it goes into the workspace settings',
      async () => {
        await wb.openFile('acc_top.sv');
        await wb.waitForStatusBarItem(isChorusItem, ACTIVATE_MS, 'an item with "CHORUS" from the extension');
        const started = Date.now();
        const offer = await wb.waitForNotification(/Use Bender\.yml for this design\?/, OFFER_MS);
        process.stderr.write(
          `e2e: the Bender.yml offer showed ${((Date.now() - started) / 1000).toFixed(1)} s after activation\n`,
        );
        assert.match(offer, /lists acc_top\.sv/);
        await wb.screenshot('bender-offer');
        await wb.page
          .locator('.notifications-toasts .notification-toast', { hasText: 'Use Bender.yml for this design?' })
          .locator('.monaco-button', { hasText: 'Use it' })
          .first()
          .click();
        const settingsFile = join(wb.workspace, '.vscode', 'settings.json');
        const written = await pollFor(
          async () => {
            if (!existsSync(settingsFile)) return undefined;
            try {
              return (JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>)['chorus.filelist'];
            } catch {
              return undefined; // mid-write
            }
          },
          UI_STEP_MS,
          async () => `chorus.filelist was not written to ${settingsFile} within ${UI_STEP_MS / 1000} s.`,
        );
        assert.equal(written, 'Bender.yml');
      },
    );

    step(
      '"Generate high-coverage stimulus" from the palette closes line and branch coverage over both folders',
      async () => {
        await wb.activateTab('acc_top.sv');
        await wb.runCommand(commandTitle('chorus.generate'));
        await wb.waitForTab(/^tb_acc_top\.sv$/, RUN_MS);
        await wb.screenshot('bender-run-done');

        const testbench = join(wb.workspace, 'tb', 'tb_acc_top.sv');
        assert.ok(existsSync(testbench), `the testbench is written to ${testbench}`);
        // The DUT's ports are 8 bits wide: ACC_WIDTH from the Bender group's defines (the header's default is 4).
        const text = readFileSync(testbench, 'utf8');
        assert.match(text, /\bacc_top\b[\s\S]*\buut\b/, 'the testbench instantiates the DUT as uut');
        assert.match(text, /logic \[7:0\] din;/, 'din is driven 8 bits wide');

        const item = await wb.waitForStatusBarItem(
          (i) => isChorusItem(i) && /line 100% · branch 100%/.test(i.text),
          UI_STEP_MS,
          'line and branch at 100%',
        );
        assert.match(item.text, /line 100% · branch 100%/);

        // The ALU, in the second folder, was measured with the top.
        const rows = await wb.openTestCoverageView(/acc_alu\.sv/, UI_STEP_MS);
        assert.ok(
          rows.some((r) => /acc_top\.sv/.test(r)),
          JSON.stringify(rows),
        );
      },
    );
  },
);
