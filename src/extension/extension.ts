/** Entry point: activate() only builds the pieces, wires them and returns; the work happens in commands. */
import * as vscode from 'vscode';
import { ChorusError, type EngineName } from '../protocol';
import { chatActions } from './chatActions';
import { ChatHost } from './chatHost';
import { registerCommands } from './commands';
import { channelLogger, ErrorReporter } from './errors';
import { FilelistDiscovery } from './filelistDiscovery';
import { CoverageGutter } from './gutter';
import { RunLauncher } from './runLauncher';
import { RunPublisher } from './runPublisher';
import { RunRegistry } from './runRegistry';
import { RunView } from './runView';
import { ServerConnection } from './server';
import { ServerNotifications } from './serverNotifications';
import type { Services } from './services';
import { hasModel, readSettings, resolveEngine, runEngine, SETTINGS_SECTION, type ChorusSettings } from './settings';
import { StatusBar, type StatusInput } from './statusBar';
import { CoverageStore } from './store';
import { CoverageTests } from './testCoverage';
import { TestbenchWriter } from './testbench';

/**
 * What the status bar shows before a run, from the settings and the engine the server says `auto` stands for
 * (`llm` when it has a model, configured or found in models/). Until the server has said, only a model named in
 * the settings counts, and a missing model is not flagged unless an engine that needs one is chosen.
 */
function statusFromSettings(s: ChorusSettings, autoEngine: EngineName | undefined): Partial<StatusInput> {
  const engine = autoEngine ? runEngine(s, autoEngine) : resolveEngine(s);
  return {
    configured: hasModel(s) || autoEngine === 'llm',
    configuredName: s.model || s.endpoint || undefined,
    modelFree: engine === undefined || engine === 'random',
  };
}

async function confirmOverwrite(target: vscode.Uri, reason: string): Promise<boolean> {
  const pick = await vscode.window.showWarningMessage(
    `${vscode.workspace.asRelativePath(target)} ${reason}. Replace it with the new testbench?`,
    { modal: true, detail: 'Keep it to see the new testbench in an unsaved editor instead.' },
    'Replace',
  );
  return pick === 'Replace';
}

/** Kept for deactivate(): VS Code awaits it, so the server process stops cleanly before the host exits. */
let connection: ServerConnection | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('CHORUS', { log: true });
  const logger = channelLogger(log);
  const errors = new ErrorReporter(logger, () => log.show());
  const settings = (scope?: vscode.Uri) => readSettings(vscode.workspace.getConfiguration(SETTINGS_SECTION, scope));
  const store = new CoverageStore();
  // Built in dependency order; the server's notifications and a run's stages reach the views as events.
  const notifications = new ServerNotifications();
  const autoEngine = () => notifications.modelStatus?.autoEngine;
  const status = new StatusBar({ configured: false, modelFree: true, ...statusFromSettings(settings(), undefined) });

  const server = new ServerConnection(context, log, notifications);
  const runs = new RunRegistry();
  const launcher = new RunLauncher({
    server,
    runs,
    settings,
    state: context.workspaceState,
    selectModel: async () => vscode.commands.executeCommand('chorus.selectModel'),
    modelAvailable: () => notifications.modelStatus?.modelAvailable,
  });
  const tests = new CoverageTests(async (dut, token, testRun) => {
    await launcher.generate({ dut, token, testRun });
  });
  const testbenches = new TestbenchWriter(vscode.workspace.fs, context.workspaceState, confirmOverwrite);
  const publisher = new RunPublisher(
    { tests, testbenches, store, settings },
    { started: launcher.onDidStart, ended: launcher.onDidEnd },
  );
  const chat = new ChatHost(
    context,
    (host) =>
      chatActions({
        server,
        runs,
        launcher,
        publisher,
        store,
        post: (m) => host.post(m),
        noteQuestion: (id, q) => host.noteQuestion(id, q),
      }),
    logger,
    () => (hasModel(settings()) ? undefined : { state: 'not_configured' }),
  );
  const runView = new RunView(
    { runs, store, status, chat, errors, logger, autoEngine },
    {
      started: launcher.onDidStart,
      loopEvents: notifications.onDidLoopEvent,
      requestEnded: launcher.onDidEnd,
      settled: publisher.onDidSettle,
      testbenchWritten: publisher.onDidWriteTestbench,
    },
  );
  const gutter = new CoverageGutter(context, store);
  // Offers a workspace `.f` that lists the open design file (chorus.filelist), once; the server reads the lists.
  const discovery = new FilelistDiscovery({ server, state: context.workspaceState, logger });
  const services: Services = {
    log,
    logger,
    errors,
    server,
    store,
    gutter,
    chat,
    runs,
    launcher,
    settings,
    autoEngine,
  };

  context.subscriptions.push(
    log,
    store,
    status,
    notifications,
    launcher,
    publisher,
    runView,
    tests,
    chat,
    gutter,
    discovery,
    server,
    notifications.onDidChangeModelStatus((p) => {
      status.update({ model: p, ...statusFromSettings(settings(), p.autoEngine) });
      chat.post({ type: 'modelStatus', status: p });
      if (p.state === 'error') errors.report(new ChorusError('failed', p.message ?? 'The model failed.'), 'Model');
    }),
    notifications.onDidAskChunk((p) => chat.post({ type: 'askChunk', ...p })),
    ...registerCommands(services),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SETTINGS_SECTION)) return;
      status.update(statusFromSettings(settings(), autoEngine()));
    }),
    // The server was told the workspace is restricted: restart it so it may run things now.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      void server.restart().catch((err: unknown) => errors.report(err, 'Restarting the CHORUS language server failed'));
    }),
  );

  connection = server;
  void server.start().catch((err: unknown) => errors.report(err, 'The CHORUS language server did not start'));
}

export function deactivate(): Promise<void> | undefined {
  const c = connection;
  connection = undefined;
  return c?.dispose();
}
