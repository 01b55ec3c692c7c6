/** `replay:<file.json>`: canned replies answered in order, for reproducible runs and tests. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ChorusError, throwIfAborted, type ChatMessage } from '../protocol';
import type { ChatBackend, ChatOptions, ChatResult, ModelStatusListener } from './backend';

/** Replies stream in pieces this long so the token path of the UI is exercised. */
const CHUNK_CHARS = 16;

export class ReplayBackend implements ChatBackend {
  readonly kind = 'replay' as const;
  private next = 0;

  private constructor(
    readonly label: string,
    private readonly file: string,
    private readonly responses: string[],
    private readonly onStatus?: ModelStatusListener,
  ) {}

  /** Reads and checks the file now, so a bad file fails before the first round. */
  static async open(file: string, onStatus?: ModelStatusListener): Promise<ReplayBackend> {
    const path = resolve(file);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      throw new ChorusError('bad_input', `Cannot read replay file ${path}: ${(err as Error).message}. Pass replay:<file.json> with {"responses": ["…"]}.`, { file: path });
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new ChorusError('bad_input', `Replay file ${path} is not valid JSON (${(err as Error).message}): it must hold {"responses": ["…", "…"]}.`, { file: path });
    }
    const responses = (data as { responses?: unknown } | null)?.responses;
    if (!Array.isArray(responses) || !responses.every((r) => typeof r === 'string')) {
      throw new ChorusError('bad_input', `Replay file ${path} must hold {"responses": ["…", "…"]}: an array of strings under "responses".`, { file: path });
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
    if (this.next >= this.responses.length) {
      throw new ChorusError('failed', `replay file ${this.file} has only ${this.responses.length} responses: add more to "responses" or run fewer rounds.`, { file: this.file });
    }
    const text = this.responses[this.next++];
    this.onStatus?.({ state: 'generating', model: this.label, backend: 'replay' });
    for (let i = 0; i < text.length; i += CHUNK_CHARS) {
      // Yield between pieces, as a real stream does, so an abort lands mid-reply.
      await new Promise<void>((r) => setImmediate(r));
      throwIfAborted(options.signal);
      options.onToken?.(text.slice(i, i + CHUNK_CHARS));
    }
    this.onStatus?.({ state: 'ready', model: this.label, backend: 'replay' });
    const promptChars = messages.reduce((n, m) => n + m.content.length, 0);
    const promptTokens = Math.ceil(promptChars / 4);
    return {
      text,
      finishReason: 'stop',
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
