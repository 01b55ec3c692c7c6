/** The built language server (dist/server.js) over stdio, and typed `chorus/*` messages to it through the descriptors. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type CancellationToken,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type { ChorusErrorData, NotificationDescriptor, RequestDescriptor } from '../../src/protocol';
import { repoRoot } from './cli';

export interface ServerUnderTest {
  server: ChildProcess;
  conn: MessageConnection;
  /** What `initialize` answered. */
  capabilities: Record<string, unknown>;
  /** Every `$/progress` notification. */
  progress: unknown[];
  /** Stops the server (shutdown, exit, kill). */
  close(): Promise<void>;
}

/**
 * Starts the server and initializes it as an editor would; `settings` answers every `workspace/configuration`
 * item (read on each request, so a test can change it). `beforeInit` registers handlers before anything arrives
 * (the server sends `chorus/modelStatus` as soon as it is initialized).
 */
export async function startServer(
  settings: () => unknown,
  initializationOptions?: object,
  beforeInit?: (conn: MessageConnection) => void,
  /** The workspace folder the editor has open (absolute path); the repository when absent. */
  workspaceFolder?: string,
): Promise<ServerUnderTest> {
  const server = spawn(process.execPath, [join(repoRoot, 'dist', 'server.js'), '--stdio'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const conn = createMessageConnection(new StreamMessageReader(server.stdout!), new StreamMessageWriter(server.stdin!));
  const progress: unknown[] = [];
  conn.onRequest('workspace/configuration', (p: { items: unknown[] }) => p.items.map(() => settings()));
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('workspace/codeLens/refresh', () => null);
  conn.onNotification('$/progress', (p: unknown) => progress.push(p));
  conn.onNotification('window/logMessage', () => undefined);
  conn.onNotification('textDocument/publishDiagnostics', () => undefined);
  beforeInit?.(conn);
  conn.listen();
  let init: { capabilities: Record<string, unknown> };
  try {
    init = await conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(repoRoot).toString(),
      capabilities: {
        workspace: { configuration: true, codeLens: { refreshSupport: true } },
        window: { workDoneProgress: true },
      },
      workspaceFolders: workspaceFolder
        ? [{ uri: pathToFileURL(workspaceFolder).toString(), name: 'workspace' }]
        : null,
      initializationOptions,
    });
  } catch (err) {
    conn.dispose();
    server.kill();
    throw err;
  }
  await conn.sendNotification('initialized', {});
  return {
    server,
    conn,
    capabilities: init.capabilities,
    progress,
    async close() {
      try {
        await conn.sendRequest('shutdown');
        await conn.sendNotification('exit');
      } finally {
        conn.dispose();
        server.kill();
      }
    },
  };
}

/** Sends a declared request: tsc checks the params, and the result has the declared type. */
export function request<P, R>(
  conn: MessageConnection,
  descriptor: RequestDescriptor<P, R, ChorusErrorData>,
  params: P,
  token?: CancellationToken,
): Promise<R> {
  return token ? conn.sendRequest<R>(descriptor.method, params, token) : conn.sendRequest<R>(descriptor.method, params);
}

/** Sends params that need not fit the declaration (to test the server's validation); absent params when undefined. */
export function requestUnchecked(
  conn: MessageConnection,
  descriptor: { method: string },
  params: object | undefined,
): Promise<unknown> {
  return params === undefined ? conn.sendRequest(descriptor.method) : conn.sendRequest(descriptor.method, params);
}

/** Handles a declared notification with a handler of the declared params type. */
export function onNotification<P>(
  conn: MessageConnection,
  descriptor: NotificationDescriptor<P>,
  handler: (params: P) => void,
): void {
  conn.onNotification(descriptor.method, handler);
}

export async function didOpen(conn: MessageConnection, uri: string, text: string): Promise<void> {
  await conn.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'systemverilog', version: 1, text },
  });
}
