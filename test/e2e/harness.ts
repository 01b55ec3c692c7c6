/**
 * The end-to-end launcher: a real VS Code workbench (code-server) with a VSIX installed, driven by Playwright in
 * Debian's headless chromium. Each session gets a fresh user-data folder, extensions folder and workspace, and
 * teardown ends every process it started (see processes.ts), also when a test fails. docs/e2e.md shows a test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { limitMs } from '../helpers/time-limits';
import { ensureE2eTools, repoRoot } from './install';
import { killMarked, killMarkedSync, markedProcesses, RUN_MARK, type ProcessInfo } from './processes';
import { pollFor, WorkbenchUi } from './workbench-ui';

export { repoRoot } from './install';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const artifactsRoot = join(repoRoot, 'test-artifacts', 'e2e');

/** Settings every session starts with: no trust dialog, no welcome page, no telemetry, nothing fetched. */
export const BASE_SETTINGS: Record<string, unknown> = {
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'workbench.enableExperiments': false,
  'workbench.tips.enabled': false,
  'git.enabled': false,
};

// Measured here (2 cores, warm page cache) during a product run at load average 14–15: code-server listening and
// answering /healthz 3.9 s; chromium's launch 1.4 s; the page load 10.7 s plus the workbench parts showing 3.2 s;
// `--install-extension` of the product VSIX 15.1 s (the probe's 4.8 s). See test/helpers/time-limits.ts.
const SERVE_TIMEOUT_MS = limitMs(3_900, 14);
const CHROMIUM_LAUNCH_TIMEOUT_MS = limitMs(1_400, 14);
const WORKBENCH_TIMEOUT_MS = limitMs(10_700 + 3_200, 14);
const INSTALL_EXTENSION_TIMEOUT_MS = limitMs(15_100, 15);
/** Grace for the browser to close before its processes are killed anyway (not a failure limit). */
const BROWSER_CLOSE_GRACE_MS = 10_000;

export interface WorkbenchOptions {
  /** Names the artifacts folder: test-artifacts/e2e/<name>/. */
  name: string;
  /** VSIX files to install, in order. */
  vsix: string[];
  /** An example under examples/ whose files are copied into the workspace folder. */
  example?: string;
  /** Extra workspace files: relative path → content. */
  files?: Record<string, string>;
  /** User settings on top of BASE_SETTINGS (`chorus.*` and any other). */
  settings?: Record<string, unknown>;
  viewport?: { width: number; height: number };
}

// Sessions not stopped yet. If the test process exits or is signalled (a runner timeout) before `stop()`, their
// processes are killed on the way out.
const liveRuns = new Set<string>();
let exitHooked = false;

function track(runId: string): void {
  liveRuns.add(runId);
  if (exitHooked) return;
  exitHooked = true;
  const killAll = () => {
    for (const id of liveRuns) killMarkedSync(id);
  };
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      killAll();
      process.kill(process.pid, sig); // the handler is gone now: the default action ends the process
    });
  }
}

/** A running session. `stop()` is idempotent; call it from `after` so a failed test still cleans up. */
export class Workbench extends WorkbenchUi {
  private stopped = false;

  constructor(
    page: Page,
    artifacts: string,
    readonly browser: Browser,
    readonly server: ChildProcess,
    /** Root of everything this session wrote (user data, extensions, workspace). */
    readonly root: string,
    /** The folder open in the workbench. */
    readonly workspace: string,
    readonly userDataDir: string,
    /** `http://127.0.0.1:<port>/`. */
    readonly url: string,
    /** The environment mark every process of this session carries. */
    readonly runId: string,
  ) {
    super(page, artifacts);
  }

  /** Every live process this session started. */
  processes(): ProcessInfo[] {
    return markedProcesses(this.runId);
  }

  /**
   * Writes the workspace folder's `.vscode/settings.json` (they override the user settings). The workbench
   * notices this file change; it does not notice the user settings file changing behind its back, so tests
   * change settings here after the start.
   */
  writeWorkspaceSettings(settings: Record<string, unknown>): void {
    const file = join(this.workspace, '.vscode', 'settings.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(settings, null, 2));
  }

  /**
   * What an extension's output channel `channel` has written so far in this session (code-server keeps each
   * channel as `logs/<session>/exthost<n>/<extension id>/<channel>.log` in the user data); empty before it wrote.
   */
  extensionLog(extensionId: string, channel: string): string {
    const logs = join(this.userDataDir, 'logs');
    if (!existsSync(logs)) return '';
    let text = '';
    for (const session of readdirSync(logs))
      for (const host of readdirSync(join(logs, session)).filter((d) => d.startsWith('exthost'))) {
        const file = join(logs, session, host, extensionId, `${channel}.log`);
        if (existsSync(file)) text += readFileSync(file, 'utf8');
      }
    return text;
  }

  /**
   * Closes the browser, ends code-server and every process the session started, keeps the logs in the artifacts
   * folder and removes the session's folders. Returns the processes that would not die (empty when all went).
   */
  async stop(): Promise<ProcessInfo[]> {
    if (this.stopped) return [];
    this.stopped = true;
    await Promise.race([
      this.browser.close().catch(() => undefined),
      new Promise((r) => setTimeout(r, BROWSER_CLOSE_GRACE_MS)),
    ]);
    const left = await killMarked(this.runId);
    liveRuns.delete(this.runId);
    try {
      cpSync(join(this.userDataDir, 'logs'), join(this.artifacts, 'logs'), { recursive: true });
    } catch {
      // No logs written: nothing to keep.
    }
    if (!process.env.CHORUS_E2E_KEEP) rmSync(this.root, { recursive: true, force: true });
    return left;
  }
}

function writeSettingsFile(userDataDir: string, settings: Record<string, unknown>): void {
  const file = join(userDataDir, 'User', 'settings.json');
  mkdirSync(dirname(file), { recursive: true });
  // In place, as VS Code itself saves settings: the workbench watches this file, and a rename onto it can go
  // unnoticed. A torn read is harmless: the write's own change event makes the workbench read it again.
  writeFileSync(file, JSON.stringify({ ...BASE_SETTINGS, ...settings }, null, 2));
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

/** Runs code-server once as a CLI (`--install-extension`), bounded, output appended to the session log. */
function runCodeServerCli(entry: string, argv: string[], env: NodeJS.ProcessEnv, log: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = openSync(log, 'a');
    const child = spawn(process.execPath, [entry, ...argv], { env, stdio: ['ignore', out, out], detached: true });
    closeSync(out);
    const timer = setTimeout(() => child.kill('SIGKILL'), INSTALL_EXTENSION_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else {
        const why = sig === 'SIGKILL' ? `killed after ${INSTALL_EXTENSION_TIMEOUT_MS / 1000} s` : `exit ${code ?? sig}`;
        reject(new Error(`code-server ${argv.join(' ')} failed (${why}):\n${tail(log)}`));
      }
    });
  });
}

async function waitUntilServing(server: ChildProcess, log: string): Promise<string> {
  let exited: string | undefined;
  server.once('exit', (code, sig) => (exited = `exit ${code ?? sig}`));
  const url = await pollFor(
    async () => {
      if (exited) throw new Error(`code-server stopped at start (${exited}):\n${tail(log)}`);
      return /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(tail(log, 200))?.[1];
    },
    SERVE_TIMEOUT_MS,
    async () => `code-server did not start listening within ${SERVE_TIMEOUT_MS / 1000} s:\n${tail(log)}`,
  );
  await pollFor(
    async () => {
      try {
        return (await fetch(new URL('healthz', url))).ok ? true : undefined;
      } catch {
        return undefined;
      }
    },
    SERVE_TIMEOUT_MS,
    async () => `code-server at ${url} does not answer /healthz:\n${tail(log)}`,
  );
  return url;
}

/** Starts code-server with the given VSIX files and a fresh workspace, opens it in chromium, waits for the workbench. */
export async function startWorkbench(opts: WorkbenchOptions): Promise<Workbench> {
  const entry = await ensureE2eTools();
  const artifacts = join(artifactsRoot, opts.name);
  rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });
  const log = join(artifacts, 'code-server.log');

  const root = mkdtempSync(join(tmpdir(), `chorus-e2e-${opts.name}-`));
  const userDataDir = join(root, 'user-data');
  const extensionsDir = join(root, 'extensions');
  const workspace = join(root, opts.example ?? 'workspace');
  for (const d of [userDataDir, extensionsDir, workspace]) mkdirSync(d, { recursive: true });
  if (opts.example) cpSync(join(repoRoot, 'examples', opts.example), workspace, { recursive: true });
  for (const [rel, text] of Object.entries(opts.files ?? {})) {
    mkdirSync(dirname(join(workspace, rel)), { recursive: true });
    writeFileSync(join(workspace, rel), text);
  }
  writeSettingsFile(userDataDir, opts.settings ?? {});

  const runId = `${process.pid}-${randomBytes(6).toString('hex')}`;
  const { NODE_TEST_CONTEXT: _testRunner, ...inherited } = process.env; // the product is no node:test child
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    [RUN_MARK]: runId,
    // code-server keeps its own config and state under XDG folders: keep them out of the user's home. The cache
    // folder stays shared, so the product reuses its Verilator build cache across sessions and test suites.
    XDG_CONFIG_HOME: join(root, 'xdg-config'),
    XDG_DATA_HOME: join(root, 'xdg-data'),
  };
  const dirs = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  // Until the Workbench owns them, a failure here must still end what was started.
  track(runId);
  const cleanup = async () => {
    await killMarked(runId);
    liveRuns.delete(runId);
    if (!process.env.CHORUS_E2E_KEEP) rmSync(root, { recursive: true, force: true });
  };
  let browser: Browser | undefined;
  try {
    for (const vsix of opts.vsix) {
      if (!existsSync(vsix)) throw new Error(`No VSIX at ${vsix}.`);
      await runCodeServerCli(entry, [...dirs, '--install-extension', vsix], env, log);
    }
    const out = openSync(log, 'a');
    const server = spawn(
      process.execPath,
      [
        entry,
        '--auth',
        'none',
        '--bind-addr',
        '127.0.0.1:0',
        '--disable-telemetry',
        '--disable-update-check',
        ...dirs,
        workspace,
      ],
      { env, stdio: ['ignore', out, out], detached: true },
    );
    closeSync(out);
    const url = await waitUntilServing(server, log);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      env,
      timeout: CHROMIUM_LAUNCH_TIMEOUT_MS,
    });
    const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1440, height: 960 } });
    const page = await context.newPage();
    const consoleLog = join(artifacts, 'browser-console.log');
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning')
        writeFileSync(consoleLog, `[${m.type()}] ${m.text()}\n`, { flag: 'a' });
    });
    page.on('pageerror', (e) => writeFileSync(consoleLog, `[pageerror] ${e.message}\n`, { flag: 'a' }));
    await page.goto(`${url}?folder=${encodeURIComponent(workspace)}`, { timeout: WORKBENCH_TIMEOUT_MS });
    const wb = new Workbench(page, artifacts, browser, server, root, workspace, userDataDir, url, runId);
    try {
      await wb.waitForWorkbench(WORKBENCH_TIMEOUT_MS);
    } catch (err) {
      await wb.screenshot('workbench-did-not-load').catch(() => undefined);
      await wb.stop();
      throw err;
    }
    return wb;
  } catch (err) {
    await browser?.close().catch(() => undefined);
    await cleanup();
    throw err;
  }
}
