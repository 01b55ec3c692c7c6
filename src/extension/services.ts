/** Everything the commands use, built once by activate(). */
import type * as vscode from 'vscode';
import type { EngineName, Logger } from '../protocol';
import type { ChatHost } from './chatHost';
import type { ErrorReporter } from './errors';
import type { CoverageGutter } from './gutter';
import type { RunLauncher } from './runLauncher';
import type { RunRegistry } from './runRegistry';
import type { ServerConnection } from './server';
import type { ChorusSettings } from './settings';
import type { CoverageStore } from './store';

export interface Services {
  log: vscode.LogOutputChannel;
  logger: Logger;
  errors: ErrorReporter;
  server: ServerConnection;
  store: CoverageStore;
  gutter: CoverageGutter;
  chat: ChatHost;
  runs: RunRegistry;
  launcher: RunLauncher;
  settings(scope?: vscode.Uri): ChorusSettings;
  /** The engine `chorus.engine: auto` stands for, as the server last said (undefined before it has). */
  autoEngine(): EngineName | undefined;
}
