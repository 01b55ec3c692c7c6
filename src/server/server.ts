/** Wires the LSP features and the `chorus/*` messages to the engine. */
import { basename, join } from 'node:path';
import {
  DiagnosticSeverity,
  DidChangeConfigurationNotification,
  TextDocumentSyncKind,
  type Connection,
  type InitializeParams,
  type InitializeResult,
  type TextDocuments,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  ChorusError,
  ClientNotifications,
  DEFAULT_SETTINGS,
  designFileKind,
  initOptionsSchema,
  SETTINGS_SECTION,
  type GenerateResult,
  type Logger,
} from '../protocol';
import { DocumentAnalyses, isHdlDocument } from './analysis';
import { DocumentDesigns, type ResolvedDesign } from './design';
import { DesignWarnings, holeDiagnostics, syntaxDiagnostics } from './diagnostics';
import { hoverAt } from './hover';
import { codeLenses } from './lenses';
import { ModelHost } from './models';
import { ResultStore } from './results';
import { RunManager } from './runs';
import { requestHandlers } from './requests';
import { checker, handleNotification, handleRequests, type ToResponseError } from './rpc';
import { readDesignSettings, readSettings } from './settings';
import { documentSymbols } from './symbols';
import { WorkspaceTrust } from './trust';
import { pathToUri, uriToPath } from './uris';

const readInitOptions = checker(initOptionsSchema, 'initializationOptions');

export function createServer(
  connection: Connection,
  documents: TextDocuments<TextDocument>,
  logger: Logger,
  toResponseError: ToResponseError,
) {
  const results = new ResultStore();
  const analyses = new DocumentAnalyses();
  const lint = new DesignWarnings();
  /** Workspace folders (absolute paths): relative design settings resolve against the document's. */
  let folders: string[] = [];
  /** Filelists (URIs) that carry a diagnostic for a bad line, and the problems already logged. */
  const badLists = new Set<string>();
  const loggedProblems = new Set<string>();
  let configSupported = false;
  let lensRefreshSupported = false;
  let configChangeRegistration = false;
  let workspaceFoldersSupported = false;
  let models: ModelHost | undefined;
  let runs: RunManager | undefined;
  const ready = () => {
    if (!models || !runs) throw new ChorusError('failed', 'The CHORUS server is not initialized yet.');
    return { models, runs };
  };

  /** A bad design setting or filelist line: logged once, and shown on the filelist's line in the Problems view. */
  function designProblem(err: unknown): void {
    const message = err instanceof ChorusError ? err.describe() : String(err);
    if (!loggedProblems.has(message)) {
      loggedProblems.add(message);
      logger.warn(`The design settings cannot be used (symbols and lenses read the text as written): ${message}`);
    }
    const at = err instanceof ChorusError ? err.location : undefined;
    // A line of a design file: a `.f` list, a project file, or the Bender.lock a Bender.yml is read with.
    const designFile =
      at && (/\.f$/i.test(at.file) || designFileKind(at.file) !== 'filelist' || basename(at.file) === 'Bender.lock');
    if (at?.line && designFile) {
      const uri = pathToUri(at.file);
      badLists.add(uri);
      const line = at.line - 1;
      void connection.sendDiagnostics({
        uri,
        diagnostics: [
          {
            range: { start: { line, character: 0 }, end: { line, character: 1000 } },
            severity: DiagnosticSeverity.Error,
            source: 'chorus filelist',
            message: err instanceof ChorusError ? err.message : message,
          },
        ],
      });
    }
  }

  /** A design read cleanly: a filelist diagnostic left from an earlier problem goes. */
  function designResolved(): void {
    for (const uri of badLists) void connection.sendDiagnostics({ uri, diagnostics: [] });
    badLists.clear();
    loggedProblems.clear();
  }

  const designs = new DocumentDesigns(
    (uri) => readDesignSettings(connection, uri, configSupported),
    () => folders,
    designProblem,
    designResolved,
  );

  /** The document's analysis with its design's include folders and macros (the text as written when it has none). */
  async function analysisOf(doc: TextDocument) {
    const design: ResolvedDesign | undefined = isHdlDocument(doc.uri)
      ? await designs.get(doc.uri, uriToPath(doc.uri))
      : undefined;
    const verilatorPath =
      design && (design.includeDirs.length || Object.keys(design.defines).length)
        ? await verilatorPathFor(doc.uri)
        : undefined;
    return analyses.analyze(doc, { includeDirs: design?.includeDirs, defines: design?.defines, verilatorPath });
  }

  async function verilatorPathFor(uri: string): Promise<string | undefined> {
    const s = await readSettings(connection, uri, configSupported).catch(() => undefined);
    return s?.verilatorPath || undefined;
  }

  async function publishDiagnostics(doc: TextDocument): Promise<void> {
    if (!isHdlDocument(doc.uri)) return;
    const path = uriToPath(doc.uri);
    // The document object changes in place: the version this publish is for is the one now.
    const version = doc.version;
    const analysis = await analysisOf(doc);
    // An edit arrived (or the document closed) while this one was analysed: its own publish follows.
    if (documents.get(doc.uri)?.version !== version) return;
    const diagnostics = [...syntaxDiagnostics(analysis), ...lint.of(path)];
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
      logger.warn(
        `Reading the chorus.* settings failed (${err instanceof Error ? err.message : String(err)}); using the defaults.`,
      );
      return { ...DEFAULT_SETTINGS };
    });
    ready().models.settingsChanged(settings);
  }

  /** Publishes a file's diagnostics: an open document's all, a closed file's lint warnings alone. */
  function republish(file: string): void {
    const uri = pathToUri(file);
    // Found by path, not by URI text: the editor percent-encodes more characters than pathToFileURL (`(`, `'`, `!`).
    const doc =
      documents.get(uri) ?? documents.all().find((d) => d.uri.startsWith('file:') && uriToPath(d.uri) === file);
    if (doc) void publishDiagnostics(doc);
    else void connection.sendDiagnostics({ uri, diagnostics: lint.of(file) });
  }

  function afterRun(files: string[], result: GenerateResult): void {
    // The design's lint warnings replace those of the last run on these files, on every file they name.
    const touched = lint.replace(files, result.designWarnings ?? []);
    for (const f of new Set([...files, ...touched])) republish(f);
    if (lensRefreshSupported) void connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined);
  }

  return {
    initialize(params: InitializeParams): InitializeResult {
      configSupported = Boolean(params.capabilities.workspace?.configuration);
      lensRefreshSupported = Boolean(params.capabilities.workspace?.codeLens?.refreshSupport);
      configChangeRegistration = Boolean(params.capabilities.workspace?.didChangeConfiguration?.dynamicRegistration);
      const init = readInitOptions(params.initializationOptions);
      folders = (params.workspaceFolders ?? []).map((f) => uriToPath(f.uri));
      if (!folders.length && params.rootUri) folders = [uriToPath(params.rootUri)];
      const trust = new WorkspaceTrust(init.workspaceTrusted !== false);
      handleNotification(connection, ClientNotifications.workspaceTrust, logger, (p) => trust.set(p.trusted));
      const modelDirs = [...(init.modelDirs ?? []), join(__dirname, '..', 'models')];
      for (const f of params.workspaceFolders ?? []) modelDirs.push(join(uriToPath(f.uri), 'models'));
      models = new ModelHost(connection, logger, [...new Set(modelDirs)]);
      runs = new RunManager(
        connection,
        logger,
        models,
        results,
        () => configSupported,
        afterRun,
        () => folders,
      );

      connection.onDocumentSymbol(async (p) => {
        const doc = documents.get(p.textDocument.uri);
        return doc && isHdlDocument(doc.uri) ? documentSymbols(await analysisOf(doc)) : [];
      });
      connection.onCodeLens(async (p) => {
        const doc = documents.get(p.textDocument.uri);
        if (!doc || !isHdlDocument(doc.uri)) return [];
        return codeLenses(doc.uri, await analysisOf(doc), results.get(uriToPath(doc.uri))?.result);
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
      documents.onDidClose((e) => analyses.forget(e.document.uri));
      // Settings are pulled per request; a change matters to the engine `auto` stands for, and to how open
      // documents are read (the design settings).
      connection.onDidChangeConfiguration(() => {
        void publishAutoEngine();
        designs.clear();
        for (const doc of documents.all()) void publishDiagnostics(doc);
        if (lensRefreshSupported) void connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined);
      });
      workspaceFoldersSupported = Boolean(params.capabilities.workspace?.workspaceFolders);

      // Every request through its descriptor: params checked against its schema (InvalidParams otherwise), then trust.

      handleRequests(
        connection,
        requestHandlers({
          connection,
          documents,
          results,
          ready,
          analysisOf,
          settings: (uri) => readSettings(connection, uri, configSupported),
          designSettings: (uri) => readDesignSettings(connection, uri, configSupported),
          folders: () => folders,
          manifestPath: join(__dirname, '..', 'models', 'manifest.json'),
        }),
        toResponseError,
        trust,
      );

      return {
        capabilities: {
          textDocumentSync: TextDocumentSyncKind.Incremental,
          documentSymbolProvider: true,
          codeLensProvider: { resolveProvider: false },
          hoverProvider: true,
          workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
        },
        serverInfo: { name: 'chorus-language-server' },
      };
    },

    initialized(): void {
      if (configChangeRegistration) {
        void connection.client
          .register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION })
          .catch((err: unknown) => {
            logger.warn(
              `Could not subscribe to chorus.* setting changes: ${err instanceof Error ? err.message : String(err)}`,
            );
          });
      }
      void publishAutoEngine();
      if (workspaceFoldersSupported) {
        connection.workspace.onDidChangeWorkspaceFolders((e) => {
          const removed = new Set(e.removed.map((f) => uriToPath(f.uri)));
          folders = [...folders.filter((f) => !removed.has(f)), ...e.added.map((f) => uriToPath(f.uri))];
          designs.clear();
        });
      }
    },

    async shutdown(): Promise<void> {
      runs?.cancelAll();
      await models?.dispose();
    },
  };
}
