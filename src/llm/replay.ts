/** `replay:<file.json>`: canned replies answered in order, for reproducible runs and tests. */
import { resolve } from 'node:path';
import { ChorusError, throwIfAborted, type ChatMessage } from '../protocol';
import { readUserText } from '../protocol/userFile';
import type { ChatBackend, ChatOptions, ChatResult, ModelStatusListener } from './backend';

/** Replies stream in pieces this long so the token path of the UI is exercised. */
const CHUNK_CHARS = 16;

/**
 * One recorded reply: its text, or an object that also replays how it ended — `finishReason` (`length`: cut at
 * the token limit; `interrupted`: a stream cut short), `error` (the backend failed instead of answering, as an
 * endpoint answering 503 does) and `delayMs` (a slow generation, spread over the reply's pieces).
 */
export type ReplayEntry =
  string | { text?: string; finishReason?: 'stop' | 'length' | 'interrupted'; error?: string; delayMs?: number };

function isEntry(v: unknown): v is ReplayEntry {
  if (typeof v === 'string') return true;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return (
    (o.text === undefined || typeof o.text === 'string') &&
    (o.error === undefined || typeof o.error === 'string') &&
    (o.delayMs === undefined || (typeof o.delayMs === 'number' && o.delayMs >= 0)) &&
    (o.finishReason === undefined ||
      o.finishReason === 'stop' ||
      o.finishReason === 'length' ||
      o.finishReason === 'interrupted')
  );
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export class ReplayBackend implements ChatBackend {
  readonly kind = 'replay' as const;
  private next = 0;

  private constructor(
    readonly label: string,
    private readonly file: string,
    private readonly responses: ReplayEntry[],
    private readonly onStatus?: ModelStatusListener,
  ) {}

  /** Reads and checks the file now, so a bad file fails before the first round. */
  static async open(file: string, onStatus?: ModelStatusListener): Promise<ReplayBackend> {
    const path = resolve(file);
    let text: string;
    try {
      text = await readUserText(path, { what: 'replay file' });
    } catch (err) {
      throw new ChorusError(
        'bad_input',
        `Cannot read replay file ${path}: ${(err as Error).message.replace(/\.$/, '')}. Pass replay:<file.json> with {"responses": ["…"]}.`,
        { file: path },
      );
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new ChorusError(
        'bad_input',
        `Replay file ${path} is not valid JSON (${(err as Error).message}): it must hold {"responses": ["…", "…"]}.`,
        { file: path },
      );
    }
    const responses = (data as { responses?: unknown } | null)?.responses;
    if (!Array.isArray(responses)) {
      throw new ChorusError(
        'bad_input',
        `Replay file ${path} must hold {"responses": ["…", "…"]}: an array of strings under "responses".`,
        { file: path },
      );
    }
    const bad = responses.findIndex((r) => !isEntry(r));
    if (bad >= 0) {
      throw new ChorusError(
        'bad_input',
        `Replay file ${path}: responses[${bad}] must be a string or {"text", "finishReason": "stop"|"length"|"interrupted", "error", "delayMs"}.`,
        { file: path },
      );
    }
    const backend = new ReplayBackend(`replay:${file}`, path, responses, onStatus);
    onStatus?.({ state: 'ready', model: backend.label, backend: 'replay' });
    return backend;
  }

  get remaining(): number {
    return this.responses.length - this.next;
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    const started = Date.now();
    throwIfAborted(options.signal);
    const raw = this.responses[this.next];
    if (raw === undefined) {
      throw new ChorusError(
        'failed',
        `replay file ${this.file} has only ${this.responses.length} responses: add more to "responses" or run fewer rounds.`,
        { file: this.file },
      );
    }
    this.next++;
    const entry = typeof raw === 'string' ? { text: raw } : raw;
    const text = entry.text ?? '';
    this.onStatus?.({ state: 'generating', model: this.label, backend: 'replay' });
    const pieces = Math.max(1, Math.ceil(text.length / CHUNK_CHARS));
    if (entry.error !== undefined) {
      if (entry.delayMs) await sleep(entry.delayMs, options.signal);
      throwIfAborted(options.signal);
      this.onStatus?.({ state: 'error', model: this.label, backend: 'replay', message: entry.error });
      throw new ChorusError('failed', entry.error);
    }
    for (let i = 0; i < Math.max(1, text.length); i += CHUNK_CHARS) {
      // Yield between pieces, as a real stream does, so an abort lands mid-reply.
      await (entry.delayMs ? sleep(entry.delayMs / pieces, options.signal) : new Promise<void>((r) => setImmediate(r)));
      throwIfAborted(options.signal);
      if (text) options.onToken?.(text.slice(i, i + CHUNK_CHARS));
    }
    this.onStatus?.({ state: 'ready', model: this.label, backend: 'replay' });
    const promptChars = messages.reduce((n, m) => n + m.content.length, 0);
    const promptTokens = Math.ceil(promptChars / 4);
    return {
      text,
      finishReason: entry.finishReason ?? 'stop',
      ...(entry.finishReason === 'interrupted'
        ? { note: 'the recorded stream was cut short; the reply is incomplete' }
        : {}),
      usage: {
        promptTokens,
        evaluatedPromptTokens: promptTokens,
        completionTokens: Math.ceil(text.length / 4),
        ms: Date.now() - started,
        estimated: true,
      },
    };
  }

  async dispose(): Promise<void> {}
}
