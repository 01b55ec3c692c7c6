/** Wires the LSP features and the `chorus/*` messages to the engine. */
import { join } from 'node:path';
import {
  DidChangeConfigurationNotification,
  TextDocumentSyncKind,
  type Connection,
  type InitializeParams,
  type InitializeResult,
  type TextDocuments,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { ask, findTops, lcov, listModels } from '../engine';
import { ChorusError, DEFAULT_SETTINGS, initOptionsSchema, Notifications, Requests, SETTINGS_SECTION, type Logger } from '../protocol';
import { analyzeDocument, isHdlDocument } from './analysis';
import { holeDiagnostics, syntaxDiagnostics } from './diagnostics';
import { hoverAt } from './hover';
import { codeLenses } from './lenses';
import { ModelHost } from './models';
import { ResultStore } from './results';
import { RunManager } from './runs';
import { checker, handleRequest, sendNotification, type ToResponseError } from './rpc';
import { readSettings } from './settings';
import { documentSymbols } from './symbols';
import { pathToUri, uriToPath } from './uris';

const readInitOptions = checker(initOptionsSchema, 'initializationOptions');

export function createServer(
  connection: Connection,
  documents: TextDocuments<TextDocument>,
  logger: Logger,
  toResponseError: ToResponseError,
) {
  const results = new ResultStore();
  let configSupported = false;
  let lensRefreshSupported = false;
  let configChangeRegistration = false;
  let models: ModelHost | undefined;
  let runs: RunManager | undefined;
  const ready = () => {
    if (!models || !runs) throw new ChorusError('failed', 'The CHORUS server is not initialized yet.');
    return { models, runs };
  };

  async function publishDiagnostics(doc: TextDocument): Promise<void> {
    if (!isHdlDocument(doc.uri)) return;
    const path = uriToPath(doc.uri);
    const diagnostics = syntaxDiagnostics(analyzeDocument(doc));
    const last = results.get(path);
    if (last) {
      const settings = await readSettings(connection, doc.uri, configSupported).catch(() => null);
      if (settings?.showHolesAsDiagnostics) diagnostics.push(...holeDiagnostics(last.result.holes, path));
    }
    await connection.sendDiagnostics({ uri: doc.uri, diagnostics });
  }

  /** Tells the client which engine an `auto` run would use now (it shows that before a run's `start` event). */
  async function publishAutoEngine(): Promise<void> {
    const settings = await readSettings(connection, undefined, configSupported).catch((err: unknown) => {
      logger.warn(`Reading the chorus.* settings failed (${err instanceof Error ? err.message : String(err)}); using the defaults.`);
      return { ...DEFAULT_SETTINGS };
    });
    ready().models.settingsChanged(settings);
  }

  function afterRun(files: string[]): void {
    for (const f of files) {
      const doc = documents.get(pathToUri(f));
      if (doc) void publishDiagnostics(doc);
    }
    if (lensRefreshSupported) void connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined);
  }

  return {
    initialize(params: InitializeParams): InitializeResult {
      configSupported = Boolean(params.capabilities.workspace?.configuration);
      lensRefreshSupported = Boolean(params.capabilities.workspace?.codeLens?.refreshSupport);
      configChangeRegistration = Boolean(params.capabilities.workspace?.didChangeConfiguration?.dynamicRegistration);
      const init = readInitOptions(params.initializationOptions);
      const trusted = init.workspaceTrusted !== false;
      const modelDirs = [...(init.modelDirs ?? []), join(__dirname, '..', 'models')];
      for (const f of params.workspaceFolders ?? []) modelDirs.push(join(uriToPath(f.uri), 'models'));
      models = new ModelHost(connection, logger, [...new Set(modelDirs)]);
      runs = new RunManager(connection, logger, models, results, () => configSupported, afterRun);

      connection.onDocumentSymbol((p) => {
        const doc = documents.get(p.textDocument.uri);
        return doc && isHdlDocument(doc.uri) ? documentSymbols(analyzeDocument(doc)) : [];
      });
      connection.onCodeLens((p) => {
        const doc = documents.get(p.textDocument.uri);
        if (!doc || !isHdlDocument(doc.uri)) return [];
        return codeLenses(doc.uri, analyzeDocument(doc), results.get(uriToPath(doc.uri))?.result);
      });
      connection.onHover((p) => {
        const doc = documents.get(p.textDocument.uri);
        if (!doc) return null;
        const path = uriToPath(doc.uri);
        const last = results.get(path);
        if (!last) return null;
        return hoverAt(doc, p.position, results.lines(path), last.result.holes, path);
      });
      documents.onDidChangeContent((e) => void publishDiagnostics(e.document));
      // Settings are pulled per request; a change only matters to the engine `auto` stands for.
      connection.onDidChangeConfiguration(() => void publishAutoEngine());

      // Each handler gets params checked against its descriptor's schema (InvalidParams otherwise).
      handleRequest(connection, Requests.generate, toResponseError, async (p, token) => {
        if (!trusted) {
          throw new ChorusError('bad_input', 'This workspace is not trusted: CHORUS builds and simulates testbenches only in trusted workspaces (Manage Workspace Trust).');
        }
        if (p.workDoneToken !== undefined) {
          return ready().runs.generate(p, token, connection.window.attachWorkDoneProgress(p.workDoneToken));
        }
        // A progress the server creates has a Cancel button of its own; a client that refuses it gets none.
        const created = await connection.window.createWorkDoneProgress().catch(() => undefined);
        return created
          ? ready().runs.generate(p, token, created, created.token)
          : ready().runs.generate(p, token, connection.window.attachWorkDoneProgress(undefined));
      });
      handleRequest(connection, Requests.coverage, toResponseError, (p) => {
        const path = uriToPath(p.uri);
        const last = results.get(path);
        return { result: last?.result ?? null, lines: results.lines(path) };
      });
      handleRequest(connection, Requests.steer, toResponseError, (p) => ({ accepted: ready().runs.steer(p.runId, p.text) }));
      handleRequest(connection, Requests.tops, toResponseError, (p) => findTops(uriToPath(p.uri), documents.get(p.uri)?.getText()));
      handleRequest(connection, Requests.ask, toResponseError, async (p, token) => {
        const { models: host } = ready();
        const settings = await readSettings(connection, p.uri, configSupported);
        const controller = new AbortController();
        const sub = token.onCancellationRequested(() => controller.abort());
        try {
          const path = uriToPath(p.uri);
          const last = results.get(path);
          const request = { files: last?.files ?? [path], last: last?.result, question: p.question };
          const text = await ask(request, host.provider(settings), controller.signal, (t) => {
            sendNotification(connection, Notifications.askChunk, { askId: p.askId, text: t, done: false });
          });
          sendNotification(connection, Notifications.askChunk, { askId: p.askId, text: '', done: true });
          return { text };
        } finally {
          sub.dispose();
        }
      });
      handleRequest(connection, Requests.listModels, toResponseError, async (p) => {
        const { models: host } = ready();
        const settings = await readSettings(connection, p.uri, configSupported);
        return {
          models: await listModels({
            modelDirs: host.modelDirs,
            manifestPath: join(__dirname, '..', 'models', 'manifest.json'),
            endpoint: settings.endpoint ? { baseUrl: settings.endpoint, model: settings.apiModel || undefined } : undefined,
          }),
        };
      });
      handleRequest(connection, Requests.exportLcov, toResponseError, (p) => {
        const last = results.get(uriToPath(p.uri));
        if (!last) throw new ChorusError('bad_input', 'No coverage for this file yet: run "Generate high-coverage stimulus" first.');
        return { lcov: lcov(last.points) };
      });

      return {
        capabilities: {
          textDocumentSync: TextDocumentSyncKind.Incremental,
          documentSymbolProvider: true,
          codeLensProvider: { resolveProvider: false },
          hoverProvider: true,
        },
        serverInfo: { name: 'chorus-language-server' },
      };
    },

    initialized(): void {
      if (configChangeRegistration) {
        void connection.client.register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION }).catch((err: unknown) => {
          logger.warn(`Could not subscribe to chorus.* setting changes: ${err instanceof Error ? err.message : String(err)}`);
        });
      }
      void publishAutoEngine();
    },

    async shutdown(): Promise<void> {
      runs?.cancelAll();
      await models?.dispose();
    },
  };
}
