/** Workspace trust: in a restricted workspace nothing is built, simulated or run, and the user is told why. */
import * as vscode from 'vscode';

export function restrictedMessage(action: string): string {
  return (
    `CHORUS cannot ${action} in a restricted workspace: it would build and simulate code from this folder. ` +
    'Trust the folder (Manage Workspace Trust) to use it.'
  );
}

/** True when the workspace is trusted; otherwise tells the user why `action` is refused. */
export function ensureTrusted(action: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void Promise.resolve(vscode.window.showWarningMessage(restrictedMessage(action), 'Manage Workspace Trust')).then(
    (pick) => {
      if (pick) void vscode.commands.executeCommand('workbench.trust.manage');
    },
  );
  return false;
}
