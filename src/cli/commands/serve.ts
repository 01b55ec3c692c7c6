/** `chorus serve`: the coverage reward server (src/serve) until Ctrl-C or SIGTERM. */
import type { Command } from 'commander';
import { DEFAULT_PORT, startServe } from '../../serve';
import type { CliContext } from '../context';
import { nonNegativeInt, positiveInt, positiveNumber } from '../options';
import { byteSize } from './cache';
import type { RegisterCommand } from './register';

interface ServeFlags {
  host: string;
  port: number;
  token?: string;
  slots?: number;
  queue?: number;
  maxBody?: number;
  memoryLimit?: number;
  cacheMax?: number;
  timeout?: number;
  maxTimeout?: number;
  verilator?: string;
}

async function run(flags: ServeFlags, ctx: CliContext): Promise<void> {
  const server = await startServe({
    host: flags.host,
    port: flags.port,
    token: flags.token ?? (process.env.CHORUS_SERVE_TOKEN || undefined),
    slots: flags.slots,
    queue: flags.queue,
    maxBodyBytes: flags.maxBody,
    memoryLimitBytes: flags.memoryLimit,
    cacheMaxBytes: flags.cacheMax,
    defaultTimeoutSeconds: flags.timeout,
    maxTimeoutSeconds: flags.maxTimeout,
    verilatorPath: flags.verilator ?? process.env.CHORUS_VERILATOR,
    logger: ctx.logger,
  });
  // The address on stdout, alone, so a script (or a test) that started the server can read where it listens.
  ctx.out(server.url);
  await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
  await server.close();
}

export const registerServe: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('serve')
    .description(
      "Serve coverage and rewards over HTTP for trainers and graders: LLM4Cov's job at POST /v1/llm4cov, R = 1 + coverage at POST /v1/reward (docs/serve.md).",
    )
    .option('--host <address>', 'address to listen on; any but loopback needs a token', '127.0.0.1')
    .option('--port <port>', `port (0: a free one, printed on stdout)`, nonNegativeInt('--port'), DEFAULT_PORT)
    .option('--token <token>', 'bearer token every request must carry (default: CHORUS_SERVE_TOKEN)')
    .option('--slots <n>', 'builds and runs at once (default: the cores)', positiveInt('--slots'))
    .option(
      '--queue <n>',
      'requests that may wait for a slot; more get 429 (default: 4 × slots)',
      nonNegativeInt('--queue'),
    )
    .option('--max-body <size>', 'largest request body, e.g. 8M (default 8M); larger get 413', byteSize('--max-body'))
    .option('--memory-limit <size>', 'memory one request may hold, e.g. 2G (default 4G)', byteSize('--memory-limit'))
    .option('--cache-max <size>', 'byte cap of the shared build cache (default 2G)', byteSize('--cache-max'))
    .option(
      '--timeout <seconds>',
      'simulation bound when a request names none (default 30)',
      positiveNumber('--timeout'),
    )
    .option('--max-timeout <seconds>', 'most a request may ask for (default 120)', positiveNumber('--max-timeout'))
    .option('--verilator <path>', 'Verilator executable (default: CHORUS_VERILATOR or verilator on PATH)')
    .action((flags: ServeFlags) => run(flags, ctx));
};
