/**
 * Workspace trust, decided here for every `chorus/*` request: one whose descriptor says `needsTrust` (it builds,
 * simulates or opens a model) is refused in a restricted workspace with an `untrusted` error; the others (symbols,
 * stored results, model folders) go on. The client says where trust stands: `workspaceTrusted` in the initialization
 * options, then `chorus/workspaceTrust` when the user grants it. A client that says nothing is trusted.
 */
import { ChorusError } from '../protocol';

export class WorkspaceTrust {
  constructor(private trusted: boolean) {}

  /** What the client last said (`chorus/workspaceTrust`). */
  set(trusted: boolean): void {
    this.trusted = trusted;
  }

  /** Throws ChorusError('untrusted') when `request` needs a trusted workspace and this one is not. */
  admit(request: { method: string; needsTrust: boolean }): void {
    if (!request.needsTrust || this.trusted) return;
    throw new ChorusError(
      'untrusted',
      `${request.method} was refused: this workspace is not trusted, and CHORUS builds and simulates testbenches and opens models only in trusted workspaces. Trust the folder (Manage Workspace Trust) and try again.`,
    );
  }
}
