/**
 * The language server's notifications as events. The connection is made first and hands every notification
 * here; the pieces that show them (run view, chat, status bar) subscribe once they exist.
 */
import * as vscode from 'vscode';
import type { AskChunkParams, LoopEventParams, ModelStatusParams } from '../protocol';
import type { ServerEvents } from './server';

export class ServerNotifications implements ServerEvents, vscode.Disposable {
  private readonly loopEvent = new vscode.EventEmitter<LoopEventParams>();
  private readonly modelStatus = new vscode.EventEmitter<ModelStatusParams>();
  private readonly askChunk = new vscode.EventEmitter<AskChunkParams>();
  /** `chorus/loopEvent`: one event of a running `chorus/generate`. */
  readonly onDidLoopEvent = this.loopEvent.event;
  /** `chorus/modelStatus`. */
  readonly onDidChangeModelStatus = this.modelStatus.event;
  /** `chorus/askChunk`: a piece of a streamed answer. */
  readonly onDidAskChunk = this.askChunk.event;

  onLoopEvent(p: LoopEventParams): void {
    this.loopEvent.fire(p);
  }

  onModelStatus(p: ModelStatusParams): void {
    this.modelStatus.fire(p);
  }

  onAskChunk(p: AskChunkParams): void {
    this.askChunk.fire(p);
  }

  dispose(): void {
    this.loopEvent.dispose();
    this.modelStatus.dispose();
    this.askChunk.dispose();
  }
}
