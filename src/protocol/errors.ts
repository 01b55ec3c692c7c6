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
  /**
   * The machine failed the work, not the input: a full disk or quota, a read-only or unwritable cache or run folder.
   * Never reported as the testbench's fault (nor fed to the model). CLI exit 4.
   */
  | 'infrastructure'
  /** Refused because the workspace is not trusted (an editor's restricted mode): nothing is built, run or opened. */
  | 'untrusted'
  /** Build, run or an external service failed. CLI exit 1. */
  | 'failed'
  /** The operation was cancelled. */
  | 'cancelled';

export interface SourceLocation {
  file: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number | undefined;
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
    case 'infrastructure':
      return 4;
    case 'untrusted':
      return 2;
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

/** True for a fault of the machine (a full or read-only disk): it ends the work and is never shown as the input's. */
export function isInfrastructureError(err: unknown): err is ChorusError {
  return err instanceof ChorusError && err.kind === 'infrastructure';
}

/** Throws a ChorusError('cancelled') when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ChorusError('cancelled', 'Cancelled.');
}
