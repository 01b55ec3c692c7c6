/**
 * Driving the VS Code workbench like a user: the palette, Quick Open, notifications, the status bar, the editor
 * gutter, the Test Coverage view and webviews. Every wait polls a condition with a bound; none sleeps blindly.
 * The selectors are VS Code 1.100's DOM (code-server 4.100.3); docs/e2e.md lists them.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { limitMs } from '../helpers/time-limits';

export interface StatusBarItem {
  /** `<extension id>.<item id>` for extension items, `status.*` for the workbench's own. */
  id: string;
  /** The visible text (codicons render as empty spans, so `$(beaker) CHORUS` reads ` CHORUS`). */
  text: string;
  /** The accessibility label (defaults to the text; extensions may set it). */
  label: string;
}

export interface GutterGlyph {
  /** VS Code's generated class of the decoration type, e.g. `ced-2-TextEditorDecorationType8-2`. */
  className: string;
  /** The computed CSS background image: an extension's gutter icon shows up as `url("…/media%2Fcovered.svg")`. */
  backgroundImage: string;
  /** The icon's file name, decoded (`covered.svg`); empty when the glyph has no image. */
  icon: string;
}

/** What the gutter shows on one visible line of the active editor. */
export interface GutterLine {
  /** 1-based. */
  line: number;
  /** Classes on the line number, where native Test Coverage paints: `coverage-deco-hit`, `coverage-deco-miss`. */
  lineNumberClasses: string[];
  /** Glyph-margin decorations (extension gutter icons). */
  glyphs: GutterGlyph[];
}

export interface ScreenshotOptions {
  /** Crop to this element instead of the whole page. */
  element?: Locator;
  /** Also save the picture under this name into $CHORUS_E2E_README_DIR (scripts/screenshots.mjs sets it). */
  readme?: string;
}

const QUICK_INPUT = '.quick-input-widget';
// The slowest palette or Quick Open step measured here: opening fifo.sv by Quick Open took 12.5 s at load average
// 14 (the first file opened in a fresh workbench; commands took 0.6–3.1 s). See test/helpers/time-limits.ts.
const UI_TIMEOUT_MS = limitMs(12_500, 14);
// One try at opening the quick input; it is retried (focus may sit in a webview that swallows the key), so this
// stays short: the slowest seen opened in 1.4 s at load 14.
const QUICK_INPUT_TRY_MS = limitMs(1_400, 14, 0);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class WorkbenchUi {
  private shot = 0;

  constructor(
    readonly page: Page,
    /** Screenshots and logs of this session: test-artifacts/e2e/<name>/. */
    readonly artifacts: string,
  ) {}

  /** Waits until the workbench has drawn its status bar and editor area. */
  async waitForWorkbench(timeoutMs: number): Promise<void> {
    await this.page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
    await this.page.locator('.monaco-workbench .part.editor').waitFor({ state: 'visible', timeout: timeoutMs });
  }

  /** Saves `NN-<step>.png` into the artifacts folder and returns its path. */
  async screenshot(step: string, opts: ScreenshotOptions = {}): Promise<string> {
    mkdirSync(this.artifacts, { recursive: true });
    const file = join(this.artifacts, `${String(++this.shot).padStart(2, '0')}-${step}.png`);
    if (opts.element) await opts.element.screenshot({ path: file });
    else await this.page.screenshot({ path: file });
    const readmeDir = process.env.CHORUS_E2E_README_DIR;
    if (opts.readme && readmeDir) {
      mkdirSync(readmeDir, { recursive: true });
      copyFileSync(file, join(readmeDir, opts.readme));
    }
    return file;
  }

  // ---- Quick input: the palette, Quick Open, Go to Line ----

  private get quickInput(): Locator {
    return this.page.locator(QUICK_INPUT);
  }

  private async openQuickInput(key: string): Promise<Locator> {
    const input = this.quickInput.locator('.quick-input-box input');
    for (let attempt = 0; attempt < 3; attempt++) {
      if (attempt > 0) {
        // Focus may sit inside a webview frame, which swallows keys: give it back to the workbench.
        await this.page.keyboard.press('Escape');
        await this.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      }
      await this.page.keyboard.press(key);
      try {
        await input.waitFor({ state: 'visible', timeout: QUICK_INPUT_TRY_MS });
        return input;
      } catch {
        // Try again.
      }
    }
    throw new Error(`Pressing ${key} did not open the quick input.`);
  }

  private async quickInputRows(): Promise<string[]> {
    return this.quickInput
      .locator('.quick-input-list .monaco-list-row')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));
  }

  /** Picks the row whose label is `label` (rows read `label` or `label, <keybinding>`), waiting for it to appear. */
  private async pickRow(label: string, matches: (aria: string) => boolean, timeoutMs: number): Promise<void> {
    const rows = this.quickInput.locator('.quick-input-list .monaco-list-row');
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const labels = await this.quickInputRows();
      const found = labels.find(matches);
      if (found !== undefined) {
        // By its label, not its index: Playwright finds the row again at click time, should the list re-render.
        await rows
          .and(this.page.locator(`[aria-label=${JSON.stringify(found)}]`))
          .first()
          .click();
        await this.quickInput.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
        return;
      }
      if (Date.now() > deadline) {
        await this.page.keyboard.press('Escape');
        throw new Error(
          `"${label}" is not in the list; it showed: ${labels.map((l) => JSON.stringify(l)).join(', ') || 'nothing'}.`,
        );
      }
      await sleep(200);
    }
  }

  /** Runs a command from the palette (F1), by its full title as the palette shows it: `Category: Title`. */
  async runCommand(title: string, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const input = await this.openQuickInput('F1');
    await input.fill(`>${title}`);
    await this.pickRow(title, (aria) => aria === title || aria.startsWith(`${title}, `), timeoutMs);
  }

  /** Opens a workspace file by name through Quick Open (Ctrl+P) and waits for its tab to be active. */
  async openFile(name: string, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const input = await this.openQuickInput('Control+P');
    await input.fill(name);
    // File rows read `<name>, <folder>`, `<name> <folder>, file results` (in a subfolder) or just `<name>`;
    // recently opened ones come first either way.
    await this.pickRow(
      name,
      (aria) => aria === name || aria.startsWith(`${name}, `) || aria.startsWith(`${name} `),
      timeoutMs,
    );
    await this.waitForActiveTab(name, timeoutMs);
  }

  /** Moves the cursor to a line (Ctrl+G), scrolling it into view. */
  async goToLine(line: number): Promise<void> {
    const input = await this.openQuickInput('Control+G');
    await input.fill(`:${line}`);
    await input.press('Enter');
    await this.quickInput.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
  }

  // ---- Editors ----

  /** Labels of the open editor tabs, in every group. */
  async tabs(): Promise<string[]> {
    return this.page.locator('.tabs-container .tab .label-name').allInnerTexts();
  }

  async activeTab(): Promise<string | undefined> {
    const label = this.page.locator('.editor-group-container.active .tab.active .label-name');
    return (await label.count()) ? (await label.first().innerText()).trim() : undefined;
  }

  async waitForActiveTab(name: string, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    await this.page
      .locator('.editor-group-container.active .tab.active .label-name', { hasText: name })
      .first()
      .waitFor({ state: 'visible', timeout: timeoutMs });
  }

  /** Waits until a tab whose label matches is open (in any group) and returns its label. */
  async waitForTab(match: RegExp, timeoutMs: number): Promise<string> {
    return pollFor(
      async () => (await this.tabs()).find((t) => match.test(t)),
      timeoutMs,
      async () =>
        `No editor tab matching ${match} within ${timeoutMs / 1000} s; open: ${(await this.tabs()).join(', ') || 'none'}.`,
    );
  }

  /** Brings an open tab to the front by clicking it. */
  async activateTab(name: string): Promise<void> {
    await this.page
      .locator('.tabs-container .tab', { has: this.page.locator('.label-name', { hasText: name }) })
      .first()
      .click();
    await this.waitForActiveTab(name);
  }

  /**
   * The gutter of the active editor, for the lines on screen: native coverage classes on line numbers and the
   * glyph-margin icons, matched to lines by their vertical position.
   */
  async gutter(): Promise<GutterLine[]> {
    const editor = this.page.locator('.editor-group-container.active .monaco-editor').first();
    return editor.evaluate((root) => {
      const lines = [...root.querySelectorAll<HTMLElement>('.margin-view-overlays .line-numbers')].map((el) => {
        const r = el.getBoundingClientRect();
        return {
          line: Number(el.textContent?.trim()),
          top: r.top,
          bottom: r.bottom,
          lineNumberClasses: [...el.classList].filter((c) => c !== 'line-numbers' && !c.startsWith('lh-')),
          glyphs: [] as { className: string; backgroundImage: string; icon: string }[],
        };
      });
      for (const g of root.querySelectorAll<HTMLElement>('.glyph-margin-widgets .cgmr, .margin-view-overlays .cgmr')) {
        const r = g.getBoundingClientRect();
        const mid = (r.top + r.bottom) / 2;
        const at = lines.find((l) => mid >= l.top && mid < l.bottom);
        const className = [...g.classList].filter((c) => c !== 'cgmr' && c !== 'codicon').join(' ');
        const backgroundImage = getComputedStyle(g).backgroundImage;
        const url = /url\("?([^")]*)"?\)/.exec(backgroundImage)?.[1] ?? '';
        let icon = '';
        try {
          icon =
            decodeURIComponent(url)
              .split(/[/?#&=]/)
              .filter(Boolean)
              .find((p) => /\.(svg|png)$/i.test(p)) ?? '';
        } catch {
          icon = url;
        }
        at?.glyphs.push({ className, backgroundImage, icon });
      }
      return lines
        .filter((l) => Number.isInteger(l.line) && l.line > 0)
        .map(({ line, lineNumberClasses, glyphs }) => ({ line, lineNumberClasses, glyphs }));
    });
  }

  // ---- Notifications and the status bar ----

  /** Messages of the notification toasts on screen. */
  async notifications(): Promise<string[]> {
    return this.page.locator('.notifications-toasts .notification-list-item-message').allInnerTexts();
  }

  /** Messages of the toasts that show a running progress bar (`window.withProgress` in a notification). */
  async progressNotifications(): Promise<string[]> {
    return this.page
      .locator('.notifications-toasts .notification-toast', {
        has: this.page.locator('.monaco-progress-container.active'),
      })
      .locator('.notification-list-item-message')
      .allInnerTexts();
  }

  /** Waits for a notification toast whose message matches and returns the message. */
  async waitForNotification(match: string | RegExp, timeoutMs = UI_TIMEOUT_MS): Promise<string> {
    const test = (t: string) => (typeof match === 'string' ? t.includes(match) : match.test(t));
    return pollFor(
      async () => (await this.notifications()).find(test),
      timeoutMs,
      async () =>
        `No notification matching ${match} within ${timeoutMs / 1000} s; showing: ${JSON.stringify(await this.notifications())}.`,
    );
  }

  async clearNotifications(): Promise<void> {
    await this.runCommand('Notifications: Clear All Notifications');
  }

  async statusBarItems(): Promise<StatusBarItem[]> {
    return this.page.locator('.part.statusbar .statusbar-item').evaluateAll((items) =>
      items.map((el) => {
        const a = el.querySelector('a.statusbar-item-label');
        return {
          id: el.id,
          text: ((a as HTMLElement | null)?.innerText ?? '').replace(/\s+/g, ' ').trim(),
          label: a?.getAttribute('aria-label') ?? el.getAttribute('aria-label') ?? '',
        };
      }),
    );
  }

  /** Waits until a status bar item satisfies `test` and returns it. */
  async waitForStatusBarItem(
    test: (item: StatusBarItem) => boolean,
    timeoutMs: number,
    what = 'the expected item',
  ): Promise<StatusBarItem> {
    return pollFor(
      async () => (await this.statusBarItems()).find(test),
      timeoutMs,
      async () =>
        `The status bar did not show ${what} within ${timeoutMs / 1000} s; it shows: ${(await this.statusBarItems())
          .map((i) => JSON.stringify(i.label && i.label !== i.text ? `${i.text} [${i.label}]` : i.text))
          .join(', ')}.`,
    );
  }

  // ---- Views ----

  /** Opens the Test Coverage view and returns its rows' texts once at least one row matches `row`. */
  async openTestCoverageView(row: RegExp, timeoutMs = UI_TIMEOUT_MS): Promise<string[]> {
    await this.runCommand('Testing: Focus on Test Coverage View');
    const view = this.testCoverageView();
    const texts = () =>
      view
        .locator('.monaco-list-row')
        .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).innerText.replace(/\s+/g, ' ').trim()));
    return pollFor(
      async () => {
        const t = await texts();
        return t.some((x) => row.test(x)) ? t : undefined;
      },
      timeoutMs,
      async () =>
        `The Test Coverage view has no row matching ${row} within ${timeoutMs / 1000} s; rows: ${JSON.stringify(await texts())}.`,
    );
  }

  /** The Test Coverage view's pane body. */
  testCoverageView(): Locator {
    return this.page
      .locator('.pane', { has: this.page.locator('.pane-header[aria-label^="Test Coverage"]') })
      .locator('.pane-body');
  }

  /**
   * The document inside a visible webview of an extension (a panel or a view): VS Code nests it twice,
   * `iframe.webview` (the host) → `#active-frame` (the extension's HTML).
   */
  webview(extensionId: string): FrameLocator {
    return this.page
      .locator(`iframe.webview[src*="extensionId=${extensionId}"]`)
      .filter({ visible: true })
      .first()
      .contentFrame()
      .locator('#active-frame')
      .contentFrame();
  }
}

/** Polls `check` until it returns a value other than undefined; at the deadline throws `why()`. */
export async function pollFor<T>(
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  why: () => Promise<string>,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(await why());
    await sleep(everyMs);
  }
}
