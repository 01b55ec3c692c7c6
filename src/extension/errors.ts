/** Errors to the user: logged in full, shown once as a notification with "Show log" and what to do next. */
import * as vscode from 'vscode';
import { ChorusError, isAbortError, isChorusErrorData, type ErrorKind, type Logger } from '../protocol';

export interface ErrorInfo {
  kind: ErrorKind;
  message: string;
}

/** JSON-RPC codes for a cancelled request (LSP `RequestCancelled`, and the client's own `PendingResponseRejected`). */
const CANCELLED_CODES = new Set([-32800, -32097]);

/** Reads any error (a ChorusError, an LSP ResponseError with ChorusErrorData, an Error) as a kind and a message. Pure. */
export function describeError(err: unknown): ErrorInfo {
  if (err instanceof ChorusError) return { kind: err.kind, message: err.describe() };
  if (isAbortError(err)) return { kind: 'cancelled', message: 'Cancelled.' };
  const e = typeof err === 'object' && err !== null ? err : {};
  const code = 'code' in e ? e.code : undefined;
  if (typeof code === 'number' && CANCELLED_CODES.has(code)) return { kind: 'cancelled', message: 'Cancelled.' };
  const data = 'data' in e ? e.data : undefined;
  const kind = isChorusErrorData(data) ? data.kind : 'failed';
  const message = 'message' in e && typeof e.message === 'string' && e.message ? e.message : String(err);
  return { kind, message };
}

/** The next step for errors whose message may not carry one. */
export function nextStep(kind: ErrorKind): string | undefined {
  if (kind === 'missing_tool') return 'Install it or set its path in the CHORUS settings.';
  return undefined;
}

export type ErrorAction = 'Show log' | 'Open settings';

export class ErrorReporter {
  /** Messages whose notification is still open: the same error is never stacked twice. */
  private readonly open = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly showLog: () => void,
  ) {}

  /** Logs and shows `err`; returns false for a cancellation (nothing shown). */
  report(err: unknown, context?: string): boolean {
    const info = describeError(err);
    if (info.kind === 'cancelled') return false;
    const step = nextStep(info.kind);
    const text = `${context ? `${context}: ` : ''}${info.message}${step && !info.message.includes(step) ? ` ${step}` : ''}`;
    this.logger.error(err instanceof Error && err.stack ? `${text}\n${err.stack}` : text);
    if (this.open.has(text)) return true;
    this.open.add(text);
    const actions: ErrorAction[] = info.kind === 'missing_tool' ? ['Open settings', 'Show log'] : ['Show log'];
    void Promise.resolve(vscode.window.showErrorMessage(text, ...actions)).then((pick) => {
      this.open.delete(text);
      if (pick === 'Show log') this.showLog();
      if (pick === 'Open settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'chorus.');
    });
    return true;
  }
}

/** The Logger interface over the extension's LogOutputChannel. */
export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    debug: (m) => channel.debug(m),
    info: (m) => channel.info(m),
    warn: (m) => channel.warn(m),
    error: (m) => channel.error(m),
  };
}
