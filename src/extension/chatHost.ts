/**
 * Hosts the chat panel (src/webview): as a view in the CHORUS activity-bar container and as an editor panel.
 * Relays loop events and model status to it; hands its messages to the extension's actions.
 */
import * as vscode from 'vscode';
import { isWebviewToHost } from '../protocol';
import { createNonce, renderPanelHtml } from './webviewHtml';
import type { HostToWebview, Logger, ModelStatus, WebviewToHost } from '../protocol';
import { Transcript } from './transcript';

export const CHAT_VIEW_ID = 'chorus.chat';
const PANEL_TYPE = 'chorus.chatPanel';

type Handlers = { [K in WebviewToHost['type']]: (msg: Extract<WebviewToHost, { type: K }>) => unknown };
/** What the panel can ask for, except `ready` (answered here). */
export type ChatActions = Omit<Handlers, 'ready'>;
type ActionType = keyof ChatActions;
type ActionMessage<K extends ActionType> = Extract<WebviewToHost, { type: K }>;

/** The action for a checked message: its type picks the handler typed for it. */
function runAction<K extends ActionType>(
  actions: { [P in ActionType]: (m: ActionMessage<P>) => unknown },
  type: K,
  msg: ActionMessage<K>,
): unknown {
  const handler: (m: ActionMessage<K>) => unknown = actions[type];
  return handler(msg);
}

export class ChatHost implements vscode.WebviewViewProvider, vscode.Disposable {
  private readonly webviews = new Set<vscode.Webview>();
  private readonly transcript = new Transcript();
  private modelStatus?: ModelStatus | undefined;
  private panel?: vscode.WebviewPanel | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly actions: ChatActions;

  constructor(
    private readonly context: vscode.ExtensionContext,
    /** Builds the panel's actions, which may post back to the panel through this host. */
    actions: (chat: ChatHost) => ChatActions,
    private readonly logger: Logger,
    /** The status to show before the server reported one (derived from the settings). */
    private readonly fallbackStatus: () => ModelStatus | undefined = () => undefined,
  ) {
    this.actions = actions(this);
    this.subscriptions.push(
      vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, this, {
        webviewOptions: { retainContextWhenHidden: true },
      }),
      vscode.window.registerWebviewPanelSerializer(PANEL_TYPE, {
        deserializeWebviewPanel: async (panel) => this.adoptPanel(panel),
      }),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.attach(view.webview, view);
  }

  /** Opens (or reveals) the chat as an editor panel beside the current editor. */
  openPanel(): void {
    if (this.panel) {
      this.panel.reveal(vscode.ViewColumn.Beside);
      return;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_TYPE, 'CHORUS Chat', vscode.ViewColumn.Beside, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: this.roots(),
    });
    this.adoptPanel(panel);
  }

  post(msg: HostToWebview): void {
    if (msg.type === 'modelStatus') this.modelStatus = msg.status;
    if (
      msg.type === 'askChunk' ||
      msg.type === 'loopEvent' ||
      msg.type === 'runStart' ||
      msg.type === 'runEnded' ||
      msg.type === 'notice' ||
      msg.type === 'steerResult' ||
      msg.type === 'reset'
    ) {
      this.transcript.add(msg);
    }
    for (const w of this.webviews) void w.postMessage(msg);
  }

  noteQuestion(askId: string, question: string): void {
    this.transcript.noteQuestion(askId, question);
  }

  private roots(): vscode.Uri[] {
    return [
      vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'webview'),
      vscode.Uri.joinPath(this.context.extensionUri, 'media'),
    ];
  }

  private adoptPanel(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    panel.iconPath = vscode.Uri.joinPath(this.context.extensionUri, 'media', 'chorus.svg');
    this.attach(panel.webview, panel);
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
    });
  }

  private attach(webview: vscode.Webview, owner: { onDidDispose: vscode.Event<void> }): void {
    webview.options = { enableScripts: true, localResourceRoots: this.roots() };
    webview.html = renderPanelHtml({
      scriptUri: webview
        .asWebviewUri(vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'webview', 'panel.js'))
        .toString(),
      cspSource: webview.cspSource,
      nonce: createNonce(),
      title: 'CHORUS Chat',
    });
    this.webviews.add(webview);
    const sub = webview.onDidReceiveMessage((m: unknown) => this.receive(webview, m));
    owner.onDidDispose(() => {
      this.webviews.delete(webview);
      sub.dispose();
    });
  }

  private receive(webview: vscode.Webview, msg: unknown): void {
    if (!isWebviewToHost(msg)) {
      this.logger.warn(`Chat panel sent a message of unknown shape: ${JSON.stringify(msg).slice(0, 200)}`);
      return;
    }
    if (msg.type === 'ready') {
      const restore = this.transcript.restoreFor(msg.restoredRuns);
      if (restore) void webview.postMessage(restore);
      const status = this.modelStatus ?? this.fallbackStatus();
      if (status) void webview.postMessage({ type: 'modelStatus', status } satisfies HostToWebview);
      return;
    }
    Promise.resolve()
      .then(() => runAction(this.actions, msg.type, msg))
      .catch((err: unknown) => {
        this.logger.error(`Chat panel action ${msg.type} failed: ${String(err)}`);
        this.post({
          type: 'notice',
          level: 'error',
          text: `${msg.type} failed: ${err instanceof Error ? err.message : String(err)}`,
        });
      });
  }

  dispose(): void {
    this.panel?.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
