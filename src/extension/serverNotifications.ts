/**
 * The language server's notifications as events. The connection is made first and hands every notification
 * here; the pieces that show them (run view, chat, status bar) subscribe once they exist.
 */
import * as vscode from 'vscode';
import type { AskChunkParams, LoopEventParams, ModelStatusParams } from '../protocol';
import type { ServerEvents } from './server';

export class ServerNotifications implements ServerEvents, vscode.Disposable {
  private readonly loopEvent = new vscode.EventEmitter<LoopEventParams>();
  private readonly modelStatusChanged = new vscode.EventEmitter<ModelStatusParams>();
  private readonly askChunk = new vscode.EventEmitter<AskChunkParams>();
  /** `chorus/loopEvent`: one event of a running `chorus/generate`. */
  readonly onDidLoopEvent = this.loopEvent.event;
  /** `chorus/modelStatus`. */
  readonly onDidChangeModelStatus = this.modelStatusChanged.event;
  /** `chorus/askChunk`: a piece of a streamed answer. */
  readonly onDidAskChunk = this.askChunk.event;
  private lastModelStatus?: ModelStatusParams;

  /** The last `chorus/modelStatus`; undefined until the server has sent one (it does once it is initialized). */
  get modelStatus(): ModelStatusParams | undefined {
    return this.lastModelStatus;
  }

  onLoopEvent(p: LoopEventParams): void {
    this.loopEvent.fire(p);
  }

  onModelStatus(p: ModelStatusParams): void {
    this.lastModelStatus = p;
    this.modelStatusChanged.fire(p);
  }

  onAskChunk(p: AskChunkParams): void {
    this.askChunk.fire(p);
  }

  dispose(): void {
    this.loopEvent.dispose();
    this.modelStatusChanged.dispose();
    this.askChunk.dispose();
  }
}
