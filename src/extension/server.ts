/**
 * The language server connection: `dist/server.js` started over IPC with the extension host's Node, and the
 * `chorus/*` requests and notifications sent and received through their descriptors in src/protocol/lsp.ts.
 */
import * as vscode from 'vscode';
import {
  LanguageClient,
  TransportKind,
  WorkDoneProgress,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { ClientNotifications, Notifications, Requests } from '../protocol';
import type {
  AskChunkParams,
  AskParams,
  AskResult,
  ChorusErrorData,
  ChorusInitOptions,
  ClientNotificationDescriptor,
  CoverageParams,
  CoverageResult,
  ExportLcovParams,
  ExportLcovResult,
  ExportWaiversParams,
  ExportWaiversResult,
  FilelistsForParams,
  FilelistsForResult,
  GenerateParams,
  GenerateResponse,
  ListModelsParams,
  ListModelsResult,
  LoopEventParams,
  ModelStatusParams,
  NotificationDescriptor,
  RequestDescriptor,
  RequestName,
  RequestTypes,
  SteerParams,
  SteerResult,
  TopsParams,
  TopsResult,
} from '../protocol';
import { HDL_LANGUAGES } from './languages';

/**
 * What the rest of the extension asks of the server: one method per request of `Requests`, with its declared params
 * and result, so a request added to the protocol is a type error here until the connection sends it (tests pass a
 * fake).
 */
export type ChorusServer = {
  readonly [K in RequestName]: (
    params: RequestTypes[K]['params'],
    token?: vscode.CancellationToken,
  ) => Promise<RequestTypes[K]['result']>;
};

export interface ServerEvents {
  onLoopEvent(p: LoopEventParams): void;
  onModelStatus(p: ModelStatusParams): void;
  onAskChunk(p: AskChunkParams): void;
}

export class ServerConnection implements ChorusServer, vscode.Disposable {
  private readonly client: LanguageClient;
  private readonly trustGranted: vscode.Disposable;

  constructor(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, events: ServerEvents) {
    const module = context.asAbsolutePath('dist/server.js');
    // The Node runtime the formal engine's slang front end may download is kept with the extension's own storage.
    const env = {
      ...process.env,
      CHORUS_FORMAL_RUNTIME_DIR:
        process.env.CHORUS_FORMAL_RUNTIME_DIR ?? vscode.Uri.joinPath(context.globalStorageUri, 'runtimes').fsPath,
    };
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc, options: { env } },
      debug: { module, transport: TransportKind.ipc, options: { env, execArgv: ['--nolazy', '--inspect=6009'] } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: HDL_LANGUAGES.map((language) => ({ scheme: 'file', language })),
      outputChannel: log,
      traceOutputChannel: log,
      initializationOptions: (): Required<ChorusInitOptions> => ({
        modelDirs: [vscode.Uri.joinPath(context.globalStorageUri, 'models').fsPath],
        workspaceTrusted: vscode.workspace.isTrusted,
      }),
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{v,vh,sv,svh}') },
    };
    // The id `chorus` makes the client read `chorus.trace.server`.
    this.client = new LanguageClient('chorus', 'CHORUS language server', serverOptions, clientOptions);
    this.on(Notifications.loopEvent, (p) => events.onLoopEvent(p));
    this.on(Notifications.modelStatus, (p) => events.onModelStatus(p));
    this.on(Notifications.askChunk, (p) => events.onAskChunk(p));
    // The server decides what a restricted workspace may do; the extension only tells it when the user grants trust.
    // A server started later reads it from its initialization options.
    this.trustGranted = vscode.workspace.onDidGrantWorkspaceTrust(() => {
      if (this.client.isRunning()) this.notify(ClientNotifications.workspaceTrust, { trusted: true });
    });
  }

  /** Sends a request through its descriptor: the params and the result are the declared ones. */
  private request<P, R>(
    descriptor: RequestDescriptor<P, R, ChorusErrorData>,
    params: P,
    token?: vscode.CancellationToken,
  ): Promise<R> {
    return this.client.sendRequest<R>(descriptor.method, params, token);
  }

  /** Sends a notification through its descriptor; a server that has stopped meanwhile is told at its next start. */
  private notify<P>(descriptor: ClientNotificationDescriptor<P>, params: P): void {
    void this.client.sendNotification(descriptor.method, params).catch(() => undefined);
  }

  /** Handles a notification through its descriptor. */
  private on<P>(descriptor: NotificationDescriptor<P>, handler: (params: P) => void): void {
    this.client.onNotification(descriptor.method, handler);
  }

  start(): Promise<void> {
    return this.client.start();
  }

  async restart(): Promise<void> {
    if (this.client.needsStart()) await this.client.start();
    else await this.client.restart();
  }

  async generate(params: GenerateParams, token?: vscode.CancellationToken): Promise<GenerateResponse> {
    // The extension shows its own progress from loop events; giving the server a token of ours (and ignoring its
    // reports) keeps it from opening a second, window-level progress.
    const workDoneToken = `chorus-run-${params.runId}`;
    const ignore = this.client.onProgress(WorkDoneProgress.type, workDoneToken, () => undefined);
    try {
      return await this.request(Requests.generate, { ...params, workDoneToken }, token);
    } finally {
      ignore.dispose();
    }
  }

  coverage(params: CoverageParams): Promise<CoverageResult> {
    return this.request(Requests.coverage, params);
  }

  steer(params: SteerParams): Promise<SteerResult> {
    return this.request(Requests.steer, params);
  }

  ask(params: AskParams, token?: vscode.CancellationToken): Promise<AskResult> {
    return this.request(Requests.ask, params, token);
  }

  listModels(params: ListModelsParams): Promise<ListModelsResult> {
    return this.request(Requests.listModels, params);
  }

  exportLcov(params: ExportLcovParams): Promise<ExportLcovResult> {
    return this.request(Requests.exportLcov, params);
  }

  exportWaivers(params: ExportWaiversParams): Promise<ExportWaiversResult> {
    return this.request(Requests.exportWaivers, params);
  }

  tops(params: TopsParams): Promise<TopsResult> {
    return this.request(Requests.tops, params);
  }

  /** Which of the candidate filelists name the document (filelist discovery). */
  filelistsFor(params: FilelistsForParams): Promise<FilelistsForResult> {
    return this.request(Requests.filelistsFor, params);
  }

  private disposed?: Promise<void>;

  /** Stops the server (also while it is still starting); safe to call twice. */
  dispose(): Promise<void> {
    this.trustGranted.dispose();
    this.disposed ??= this.client.needsStop() ? this.client.dispose(5000) : Promise.resolve();
    return this.disposed;
  }
}
