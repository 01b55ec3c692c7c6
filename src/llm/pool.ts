/**
 * Keeps backends warm between runs (the server and long CLI sessions): a local model stays loaded, and its KV
 * cache with it, until it has been idle for a while, another model pushes it out, or the host shuts down.
 */
import { silentLogger, type ChatMessage, type Logger } from '../protocol';
import type { ChatBackend, ChatOptions, ChatResult } from './backend';

export interface BackendPoolOptions {
  /** Release a backend unused for this long. Default 10 minutes. */
  idleMs?: number;
  /** Backends kept at once; idle ones beyond this are released, least recently used first. Default 1. */
  maxEntries?: number;
  logger?: Logger;
}

interface Entry {
  key: string;
  opening: Promise<ChatBackend>;
  backend?: ChatBackend;
  busy: number;
  lastUsed: number;
  timer?: NodeJS.Timeout;
}

export class BackendPool {
  private readonly entries = new Map<string, Entry>();
  private readonly idleMs: number;
  private readonly maxEntries: number;
  private readonly logger: Logger;

  constructor(opts: BackendPoolOptions = {}) {
    this.idleMs = opts.idleMs ?? 10 * 60_000;
    this.maxEntries = Math.max(1, opts.maxEntries ?? 1);
    this.logger = opts.logger ?? silentLogger;
  }

  /** Keys of the backends held now. */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * The backend for `key`, opened with `open` the first time. The returned handle's `dispose()` does nothing: the
   * pool owns the backend. Replay backends are stateful per run (they answer in order), so they are never shared.
   */
  async get(key: string, open: () => Promise<ChatBackend>): Promise<ChatBackend> {
    let entry = this.entries.get(key);
    if (!entry) {
      const fresh: Entry = { key, opening: open(), busy: 0, lastUsed: Date.now() };
      this.entries.set(key, fresh);
      entry = fresh;
      try {
        fresh.backend = await fresh.opening;
      } catch (err) {
        if (this.entries.get(key) === fresh) this.entries.delete(key);
        throw err;
      }
      if (fresh.backend.kind === 'replay') {
        this.entries.delete(key);
        return fresh.backend;
      }
      await this.evictBeyondLimit(key);
    }
    const backend = entry.backend ?? (await entry.opening);
    entry.lastUsed = Date.now();
    this.arm(entry);
    return this.lease(entry, backend);
  }

  private lease(entry: Entry, backend: ChatBackend): ChatBackend {
    const chat = async (messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult> => {
      entry.busy++;
      if (entry.timer) clearTimeout(entry.timer);
      try {
        return await backend.chat(messages, options);
      } finally {
        entry.busy--;
        entry.lastUsed = Date.now();
        this.arm(entry);
      }
    };
    return {
      label: backend.label,
      kind: backend.kind,
      chat,
      ...(backend.contextSize
        ? {
            contextSize: (signal?: AbortSignal) =>
              (backend.contextSize as (s?: AbortSignal) => Promise<number | undefined>).call(backend, signal),
          }
        : {}),
      ...(backend.countTokens
        ? {
            countTokens: (messages: ChatMessage[], signal?: AbortSignal) =>
              (backend.countTokens as (m: ChatMessage[], s?: AbortSignal) => Promise<number>).call(
                backend,
                messages,
                signal,
              ),
          }
        : {}),
      ...(backend.compute
        ? {
            compute: (signal?: AbortSignal) =>
              (backend.compute as (s?: AbortSignal) => Promise<string>).call(backend, signal),
          }
        : {}),
      ...(backend.load
        ? { load: (signal?: AbortSignal) => (backend.load as (s?: AbortSignal) => Promise<void>).call(backend, signal) }
        : {}),
      dispose: async () => {},
    };
  }

  private arm(entry: Entry): void {
    if (entry.timer) clearTimeout(entry.timer);
    if (entry.busy > 0) return;
    entry.timer = setTimeout(() => {
      if (entry.busy === 0 && this.entries.get(entry.key) === entry) {
        this.logger.debug(`Releasing idle model backend ${entry.backend?.label ?? entry.key}.`);
        void this.release(entry.key);
      }
    }, this.idleMs);
    // An idle model must not keep a CLI process alive.
    entry.timer.unref();
  }

  private async evictBeyondLimit(keep: string): Promise<void> {
    const idle = [...this.entries.values()]
      .filter((e) => e.key !== keep && e.busy === 0 && e.backend)
      .sort((a, b) => a.lastUsed - b.lastUsed);
    let excess = this.entries.size - this.maxEntries;
    for (const e of idle) {
      if (excess-- <= 0) break;
      await this.release(e.key);
    }
  }

  /** Disposes one backend now (a later get opens it again). */
  async release(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    if (entry.timer) clearTimeout(entry.timer);
    const backend = entry.backend ?? (await entry.opening.catch(() => undefined));
    await backend
      ?.dispose()
      .catch((err: unknown) => this.logger.warn(`Releasing ${key} failed: ${(err as Error).message}`));
  }

  async disposeAll(): Promise<void> {
    await Promise.all(this.keys().map((k) => this.release(k)));
  }
}
