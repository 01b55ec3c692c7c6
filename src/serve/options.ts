/** What `chorus serve` is started with, and the defaults every unset member takes. */
import { availableParallelism } from 'node:os';
import type { Logger } from '../protocol';

export interface ServeOptions {
  /** Address to listen on; default 127.0.0.1. Any other needs `token`. */
  host?: string | undefined;
  /** Port; 0 picks a free one (the started server says which). Default 8765. */
  port?: number | undefined;
  /** Bearer token every request but `/health` and `/ready` must carry; required off loopback. */
  token?: string | undefined;
  /** Builds and runs at once; default the machine's cores. */
  slots?: number | undefined;
  /** Requests that may wait for a slot; more are answered 429. Default 4 × slots. */
  queue?: number | undefined;
  /** Largest request body; larger ones are answered 413. Default 8 MiB. */
  maxBodyBytes?: number | undefined;
  /** Memory one request's tools may hold (the engine's limit); default the engine's (CHORUS_MEMORY_LIMIT or 4 GiB). */
  memoryLimitBytes?: number | undefined;
  /** Byte cap of the shared build cache; default the engine's. */
  cacheMaxBytes?: number | undefined;
  /** A request's simulation bound when it names none (seconds); default 30. */
  defaultTimeoutSeconds?: number | undefined;
  /** The most a request may ask for (seconds); default 120. */
  maxTimeoutSeconds?: number | undefined;
  verilatorPath?: string | undefined;
  logger: Logger;
}

type Optional = 'token' | 'memoryLimitBytes' | 'cacheMaxBytes' | 'verilatorPath';

/** Every member set but those whose absence means "the engine's default". */
export type ResolvedServeOptions = {
  [K in Exclude<keyof ServeOptions, Optional>]-?: NonNullable<ServeOptions[K]>;
} & Pick<ServeOptions, Optional>;

export const DEFAULT_PORT = 8765;

export function resolveServeOptions(o: ServeOptions): ResolvedServeOptions {
  const slots = o.slots ?? availableParallelism();
  return {
    ...o,
    host: o.host ?? '127.0.0.1',
    port: o.port ?? DEFAULT_PORT,
    slots,
    queue: o.queue ?? 4 * slots,
    maxBodyBytes: o.maxBodyBytes ?? 8 * 1024 ** 2,
    defaultTimeoutSeconds: o.defaultTimeoutSeconds ?? 30,
    maxTimeoutSeconds: o.maxTimeoutSeconds ?? 120,
  };
}

/** Loopback addresses: the only ones served without a token. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
