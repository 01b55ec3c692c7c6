import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('CHORUS', { log: true });
  context.subscriptions.push(log);
}

export function deactivate(): void {}
