/**
 * Serves the built panel the way a VS Code webview does: an HTML page from renderPanelHtml (strict CSP, nonce),
 * the bundle from dist/webview, and a stand-in for acquireVsCodeApi that records what the panel posts and keeps
 * its state in sessionStorage (so a reload restores it, as VS Code's webview state does).
 */
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { HostToWebview, LoopEvent, RunRequestInfo, WebviewToHost } from '../../src/protocol';
import { createNonce, renderPanelHtml } from '../../src/extension/webviewHtml';
import { repoRoot } from '../helpers/cli';
import { darkModern, lightModern } from './themes';

export const CHROMIUM = '/usr/bin/chromium';
export type Theme = 'dark' | 'light';

export interface RecordedRun {
  description: string;
  run: RunRequestInfo;
  events: LoopEvent[];
}

export function loadRun(name: string): RecordedRun {
  return JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'runs', name), 'utf8')) as RecordedRun;
}

/** The host's messages for a recorded run: runStart, then each event. */
export function runMessages(rec: RecordedRun): HostToWebview[] {
  return [
    { type: 'runStart', run: rec.run },
    ...rec.events.map((event): HostToWebview => ({ type: 'loopEvent', runId: rec.run.runId, event })),
  ];
}

function standIn(theme: Theme): string {
  const vars = theme === 'dark' ? darkModern : lightModern;
  return `// Stand-in for VS Code's webview host script.
(() => {
  const root = document.documentElement;
  for (const [name, value] of Object.entries(${JSON.stringify(vars)})) root.style.setProperty(name, value);
  root.style.setProperty('background-color', 'var(--vscode-editor-background)');
  document.addEventListener('DOMContentLoaded', () => document.body.classList.add('vscode-${theme}'));
  window.__posted = [];
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
  let acquired = false;
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('An instance of the VS Code API has already been acquired');
    acquired = true;
    return Object.freeze({
      postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))),
      getState: () => { const s = sessionStorage.getItem('vscode-state'); return s ? JSON.parse(s) : undefined; },
      setState: (s) => { sessionStorage.setItem('vscode-state', JSON.stringify(s)); return s; },
    });
  };
})();
`;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.map': 'application/json',
  '.css': 'text/css',
};

export interface Harness {
  origin: string;
  browser: Browser;
  pageUrl(theme: Theme): string;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the webview tests need Debian's chromium (npm test's bootstrap installs it; or run apt-get install chromium).`,
    );
  }
  if (!existsSync(join(repoRoot, 'dist', 'webview', 'panel.js')))
    throw new Error('dist/webview/panel.js is missing: run node scripts/build.mjs.');
  const dir = mkdtempSync(join(tmpdir(), 'chorus-webview-'));
  const server: Server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const file = path.startsWith('/dist/webview/') ? join(repoRoot, path) : join(dir, path);
    if (path.includes('..') || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('The test server has no port.');
  const origin = `http://127.0.0.1:${address.port}`;
  for (const theme of ['dark', 'light'] as const) {
    writeFileSync(join(dir, `stand-in-${theme}.js`), standIn(theme));
    const html = renderPanelHtml({
      scriptUri: `${origin}/dist/webview/panel.js`,
      cspSource: origin,
      nonce: createNonce(),
      title: 'CHORUS',
      preloadScriptUris: [`${origin}/stand-in-${theme}.js`],
    });
    writeFileSync(join(dir, `panel-${theme}.html`), html);
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    headless: true,
  });
  return {
    origin,
    browser,
    pageUrl: (theme) => `${origin}/panel-${theme}.html`,
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

declare global {
  interface Window {
    __posted: WebviewToHost[];
    __cspViolations: string[];
  }
}

/** A loop event of run `runId` as the host posts it to the panel. */
export const loopEventOf =
  (runId: string) =>
  (event: Extract<HostToWebview, { type: 'loopEvent' }>['event']): HostToWebview => ({
    type: 'loopEvent',
    runId,
    event,
  });

/** Posts host messages into the page as VS Code does (window message events), `batch` per task. */
export async function postToPanel(page: Page, messages: HostToWebview[], batch = 50): Promise<void> {
  for (let i = 0; i < messages.length; i += batch) {
    await page.evaluate(
      (chunk) => {
        for (const m of chunk) window.postMessage(m, '*');
      },
      messages.slice(i, i + batch),
    );
  }
}

export async function posted(page: Page): Promise<WebviewToHost[]> {
  return page.evaluate(() => window.__posted);
}

/** Waits until the panel has posted a message of `type` beyond the first `after` messages, and returns it. */
export async function waitForPosted<T extends WebviewToHost['type']>(
  page: Page,
  type: T,
  after = 0,
): Promise<Extract<WebviewToHost, { type: T }>> {
  const handle = await page.waitForFunction(([t, n]) => window.__posted.slice(n).find((m) => m.type === t), [
    type,
    after,
  ] as const);
  return (await handle.jsonValue()) as Extract<WebviewToHost, { type: T }>;
}
