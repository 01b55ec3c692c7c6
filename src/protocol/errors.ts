/**
 * One error type for every layer. `kind` decides the CLI exit code and how the editor presents it;
 * `message` always says what to do next.
 */
export type ErrorKind =
  /** Bad input from the user: a file, an option, a malformed patch. CLI exit 2. */
  | 'bad_input'
  /** A testbench rejected by the sandbox check. CLI exit 2. */
  | 'rejected'
  /** A required tool (Verilator, a C++ compiler) is missing or too old. CLI exit 3. */
  | 'missing_tool'
  /** Build, run or an external service failed. CLI exit 1. */
  | 'failed'
  /** The operation was cancelled. */
  | 'cancelled';

export interface SourceLocation {
  file: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
}

export class ChorusError extends Error {
  override readonly name = 'ChorusError';
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly location?: SourceLocation,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** `file:line:column: message` when a location is known. */
  describe(): string {
    const loc = this.location;
    if (!loc) return this.message;
    const where = [loc.file, loc.line, loc.line !== undefined ? loc.column : undefined]
      .filter((p) => p !== undefined)
      .join(':');
    return `${where}: ${this.message}`;
  }
}

export function exitCodeFor(kind: ErrorKind): number {
  switch (kind) {
    case 'bad_input':
    case 'rejected':
      return 2;
    case 'missing_tool':
      return 3;
    case 'cancelled':
      return 130;
    default:
      return 1;
  }
}

export function isAbortError(err: unknown): boolean {
  return (
    (err instanceof ChorusError && err.kind === 'cancelled') ||
    (err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR'))
  );
}

/** Throws a ChorusError('cancelled') when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ChorusError('cancelled', 'Cancelled.');
}
