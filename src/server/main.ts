/** The language server: `node dist/server.js --stdio` (or over IPC when the client forks it). */
import {
  createConnection,
  ErrorCodes,
  LSPErrorCodes,
  ProposedFeatures,
  ResponseError,
  TextDocuments,
  type InitializeParams,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ChorusError, isAbortError, type ChorusErrorData, type Logger } from '../protocol';
import { machineFault } from '../engine';
import { createServer } from './server';

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);

const logger: Logger = {
  debug: (m) => (process.env.CHORUS_LOG === 'debug' ? connection.console.log(m) : undefined),
  info: (m) => connection.console.info(m),
  warn: (m) => connection.console.warn(m),
  error: (m) => connection.console.error(m),
};

/** Every handler failure becomes an error response with {@link ChorusErrorData}; the server keeps running. */
export function toResponseError(given: unknown): ResponseError<ChorusErrorData> {
  if (isAbortError(given))
    return new ResponseError(LSPErrorCodes.RequestCancelled, 'Cancelled.', { kind: 'cancelled' });
  // A full or read-only disk is the machine's fault whichever write met it: kind `infrastructure`.
  const err = machineFault(given) ?? given;
  if (err instanceof ChorusError) {
    const data: ChorusErrorData = err.location ? { kind: err.kind, location: err.location } : { kind: err.kind };
    return new ResponseError(ErrorCodes.InvalidRequest, err.describe(), data);
  }
  const message = err instanceof Error ? err.message : String(err);
  logger.error(err instanceof Error ? (err.stack ?? message) : message);
  return new ResponseError(ErrorCodes.InternalError, `CHORUS server error: ${message}`, { kind: 'failed' });
}

const server = createServer(connection, documents, logger, toResponseError);

connection.onInitialize((params: InitializeParams): InitializeResult => server.initialize(params));
connection.onInitialized(() => server.initialized());
connection.onShutdown(() => server.shutdown());

process.on('uncaughtException', (err) => logger.error(`uncaught: ${err.stack ?? err.message}`));
process.on('unhandledRejection', (err) =>
  logger.error(`unhandled rejection: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
);

documents.listen(connection);
connection.listen();
