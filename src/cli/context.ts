/** What every CLI command gets: a logger on stderr, a cancellation signal wired to Ctrl-C, output helpers. */
import pc from 'picocolors';
import { killAllGroups } from '../engine';
import type { Logger } from '../protocol';

export interface CliContext {
  logger: Logger;
  signal: AbortSignal;
  /** True when stdout is a terminal (colour, progress bars). */
  interactive: boolean;
  /** Writes a line to stdout. */
  out(text: string): void;
}

/**
 * How long a command has, after the first Ctrl-C (or SIGTERM), to stop on its AbortSignal before its tools are
 * killed and CHORUS exits anyway: one Ctrl-C ends the CLI within 2 s, whatever the command waits on.
 */
export const STOP_GRACE_MS = 1500;

/** Kills every tool tree the engine started, synchronously, then exits 130: nothing CHORUS started outlives it. */
function forceExit(why: string): never {
  const killed = killAllGroups();
  process.stderr.write(`${why}${killed ? `; killed ${killed} running tool${killed === 1 ? '' : 's'}` : ''}.\n`);
  process.exit(130);
}

export function createCliContext(): CliContext {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1) forceExit('Stopped at the second Ctrl-C');
    process.stderr.write('\nStopping… (Ctrl-C again to force)\n');
    controller.abort();
    // Unref'd: a command that stops in time exits on its own, with its own result.
    setTimeout(
      () => forceExit(`Stopped: the command did not end within ${STOP_GRACE_MS / 1000} s`),
      STOP_GRACE_MS,
    ).unref();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  const verbose = process.env.CHORUS_LOG === 'debug';
  const write = (prefix: string) => (msg: string) => process.stderr.write(`${prefix}${msg}\n`);
  return {
    logger: {
      debug: verbose ? write(pc.dim('debug: ')) : () => {},
      info: write(''),
      warn: write(pc.yellow('warning: ')),
      error: write(pc.red('error: ')),
    },
    signal: controller.signal,
    interactive: Boolean(process.stdout.isTTY),
    out: (text) => process.stdout.write(`${text}\n`),
  };
}
