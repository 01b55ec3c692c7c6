/**
 * The language server connection: `dist/server.js` started over IPC with the extension host's Node, and the
 * typed `chorus/*` requests and notifications of src/protocol/lsp.ts.
 */
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, WorkDoneProgress, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { Methods } from '../protocol';
import type {
  AskChunkParams,
  AskParams,
  CoverageParams,
  CoverageResult,
  ExportLcovParams,
  ExportLcovResult,
  GenerateParams,
  GenerateResult,
  ListModelsResult,
  LoopEventParams,
  ModelStatusParams,
  SteerParams,
} from '../protocol';
import { HDL_LANGUAGES } from './languages';

/** What the rest of the extension asks of the server (tests pass a fake). */
export interface ChorusServer {
  generate(params: GenerateParams, token?: vscode.CancellationToken): Promise<GenerateResult>;
  coverage(params: CoverageParams): Promise<CoverageResult>;
  steer(params: SteerParams): Promise<unknown>;
  ask(params: AskParams, token?: vscode.CancellationToken): Promise<unknown>;
  listModels(): Promise<ListModelsResult>;
  exportLcov(params: ExportLcovParams): Promise<ExportLcovResult>;
}

export interface ServerEvents {
  onLoopEvent(p: LoopEventParams): void;
  onModelStatus(p: ModelStatusParams): void;
  onAskChunk(p: AskChunkParams): void;
}

/** Initialization options for the server. */
export interface ChorusInitOptions {
  /** Folders holding GGUF files besides the extension's models/: its global storage. */
  modelDirs: string[];
  /** False in a restricted workspace: nothing may be built, simulated or loaded (the client refuses too). */
  workspaceTrusted: boolean;
}

export class ServerConnection implements ChorusServer, vscode.Disposable {
  private readonly client: LanguageClient;

  constructor(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, events: ServerEvents) {
    const module = context.asAbsolutePath('dist/server.js');
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: HDL_LANGUAGES.map((language) => ({ scheme: 'file', language })),
      outputChannel: log,
      traceOutputChannel: log,
      initializationOptions: (): ChorusInitOptions => ({
        modelDirs: [vscode.Uri.joinPath(context.globalStorageUri, 'models').fsPath],
        workspaceTrusted: vscode.workspace.isTrusted,
      }),
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{v,vh,sv,svh}') },
    };
    // The id `chorus` makes the client read `chorus.trace.server`.
    this.client = new LanguageClient('chorus', 'CHORUS language server', serverOptions, clientOptions);
    this.client.onNotification(Methods.loopEvent, (p: LoopEventParams) => events.onLoopEvent(p));
    this.client.onNotification(Methods.modelStatus, (p: ModelStatusParams) => events.onModelStatus(p));
    this.client.onNotification(Methods.askChunk, (p: AskChunkParams) => events.onAskChunk(p));
  }

  start(): Promise<void> {
    return this.client.start();
  }

  async restart(): Promise<void> {
    if (this.client.needsStart()) await this.client.start();
    else await this.client.restart();
  }

  async generate(params: GenerateParams, token?: vscode.CancellationToken): Promise<GenerateResult> {
    // The extension shows its own progress from loop events; giving the server a token of ours (and ignoring its
    // reports) keeps it from opening a second, window-level progress.
    const workDoneToken = `chorus-run-${params.runId}`;
    const ignore = this.client.onProgress(WorkDoneProgress.type, workDoneToken, () => undefined);
    try {
      return await this.client.sendRequest<GenerateResult>(Methods.generate, { ...params, workDoneToken }, token);
    } finally {
      ignore.dispose();
    }
  }

  coverage(params: CoverageParams): Promise<CoverageResult> {
    return this.client.sendRequest<CoverageResult>(Methods.coverage, params);
  }

  steer(params: SteerParams): Promise<unknown> {
    return this.client.sendRequest<unknown>(Methods.steer, params);
  }

  ask(params: AskParams, token?: vscode.CancellationToken): Promise<unknown> {
    return this.client.sendRequest<unknown>(Methods.ask, params, token);
  }

  listModels(): Promise<ListModelsResult> {
    return this.client.sendRequest<ListModelsResult>(Methods.listModels, {});
  }

  exportLcov(params: ExportLcovParams): Promise<ExportLcovResult> {
    return this.client.sendRequest<ExportLcovResult>(Methods.exportLcov, params);
  }

  private disposed?: Promise<void>;

  /** Stops the server (also while it is still starting); safe to call twice. */
  dispose(): Promise<void> {
    this.disposed ??= this.client.needsStop() ? this.client.dispose(5000) : Promise.resolve();
    return this.disposed;
  }
}
