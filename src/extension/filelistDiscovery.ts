/**
 * Filelist discovery: when the open design file is listed by a `.f` or a project file (Bender.yml, a FuseSoC
 * `.core`, `.slang/server.json`, `verible.filelist`; `DESIGN_FILE_GLOB`) in its workspace folder and no
 * `chorus.filelist` is set, CHORUS offers that list once ("Use rtl/top.f for this design?"). Accepted, it goes into
 * the workspace settings; declined, the list is remembered in the workspace state and not offered again.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  DESIGN_FILE_EXCLUDE,
  DESIGN_FILE_GLOB,
  MAX_FILELIST_CANDIDATES,
  SETTINGS_SECTION,
  type Logger,
} from '../protocol';
import { isHdlDocument } from './languages';
import type { ChorusServer } from './server';

export const USE_FILELIST = 'Use it';
export const DECLINE_FILELIST = 'No';
/** Workspace state: the filelists (URIs) the user declined. */
export const DECLINED_KEY = 'chorus.declinedFilelists';

export interface DiscoveryDeps {
  /** The server reads the candidates (nested lists and all) and says which list the document. */
  server: Pick<ChorusServer, 'filelistsFor'>;
  state: Pick<vscode.Memento, 'get' | 'update'>;
  logger: Logger;
}

/** The setting's value for a list: its path relative to the workspace folder, with forward slashes. Pure. */
export function filelistSettingValue(folder: string, list: string): string {
  return path.relative(folder, list).split(path.sep).join('/');
}

export class FilelistDiscovery implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;
  /** Documents already looked at in this session. */
  private readonly checked = new Set<string>();
  /** Lists offered in this session: each is offered once, whatever the answer. */
  private readonly offered = new Set<string>();

  constructor(private readonly deps: DiscoveryDeps) {
    this.subscription = vscode.window.onDidChangeActiveTextEditor((e) => {
      if (e) void this.check(e.document);
    });
    const active = vscode.window.activeTextEditor;
    if (active) void this.check(active.document);
  }

  /** Looks for a filelist naming `doc` and offers it; failures are logged, never shown. */
  async check(doc: vscode.TextDocument): Promise<void> {
    try {
      await this.offerFor(doc);
    } catch (err) {
      this.deps.logger.warn(
        `Filelist discovery for ${doc.uri.fsPath} failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  private async offerFor(doc: vscode.TextDocument): Promise<void> {
    if (doc.uri.scheme !== 'file' || !isHdlDocument(doc)) return;
    const key = doc.uri.toString();
    if (this.checked.has(key)) return;
    this.checked.add(key);
    const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
    if (!folder) return;
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION, doc.uri);
    if (config.get<string>('filelist')) return;
    const declined = new Set(this.deps.state.get<string[]>(DECLINED_KEY) ?? []);
    const found = await vscode.workspace.findFiles(
      new vscode.RelativePattern(folder, DESIGN_FILE_GLOB),
      DESIGN_FILE_EXCLUDE,
      MAX_FILELIST_CANDIDATES,
    );
    // The shallowest lists first: a project's top list usually sits above the lists it nests.
    const candidates = found
      .map((u) => u.toString())
      .filter((u) => !declined.has(u) && !this.offered.has(u))
      .sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
    if (!candidates.length) return;
    const { lists } = await this.deps.server.filelistsFor({ uri: key, lists: candidates });
    const list = lists.find((l) => !this.offered.has(l));
    if (!list) return;
    this.offered.add(list);
    const value = filelistSettingValue(folder.uri.fsPath, vscode.Uri.parse(list).fsPath);
    // A setting set meanwhile (by hand, or an offer accepted for another file) wins.
    if (vscode.workspace.getConfiguration(SETTINGS_SECTION, doc.uri).get<string>('filelist')) return;
    const pick = await vscode.window.showInformationMessage(
      `Use ${value} for this design? It lists ${path.basename(doc.uri.fsPath)}: CHORUS would read the design's sources, include folders and defines from it (setting chorus.filelist).`,
      USE_FILELIST,
      DECLINE_FILELIST,
    );
    if (pick === USE_FILELIST) {
      await vscode.workspace
        .getConfiguration(SETTINGS_SECTION, folder.uri)
        .update('filelist', value, vscode.ConfigurationTarget.WorkspaceFolder);
      this.deps.logger.info(`chorus.filelist set to ${value} in the workspace settings.`);
    } else if (pick === DECLINE_FILELIST) {
      await this.deps.state.update(DECLINED_KEY, [...declined, list]);
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
