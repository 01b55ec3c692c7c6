/** What every CLI command gets: a logger on stderr, a cancellation signal wired to Ctrl-C, output helpers. */
import pc from 'picocolors';
import type { Logger } from '../protocol';

export interface CliContext {
  logger: Logger;
  signal: AbortSignal;
  /** True when stdout is a terminal (colour, progress bars). */
  interactive: boolean;
  /** Writes a line to stdout. */
  out(text: string): void;
}

export function createCliContext(): CliContext {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    process.stderr.write('\nStopping… (Ctrl-C again to force)\n');
    controller.abort();
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
