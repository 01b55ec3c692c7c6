/**
 * An OpenAI-compatible chat endpoint (vLLM, SGLang, llama.cpp's server, Ollama): streamed chat completions over
 * SSE, with timeouts, retries on 429/5xx and abort.
 */
import { ChorusError, type ChatMessage, type Logger } from '../../protocol';
import type { ChatBackend, ChatOptions, ChatResult, ModelStatusListener, SamplingOptions } from '../backend';
import { samplingDefaults, type ResolvedSampling } from '../sampling';
import { backoffMs, defaultRetryPolicy, isRetryableStatus, parseRetryAfter, sleep, type RetryPolicy } from './retry';
import { sseData } from './sse';

export interface EndpointOptions {
  /** `http://host:port` or `http://host:port/v1`. */
  baseUrl: string;
  /** The served model name; the first one `/v1/models` lists when omitted. */
  model?: string | undefined;
  /** Sent as `Authorization: Bearer …`; defaults to $CHORUS_API_KEY. */
  apiKey?: string | undefined;
  /** Longest wait for the response headers (the server may evaluate the prompt first). Default 300 s. */
  responseTimeoutMs?: number;
  /** Longest silence between streamed chunks. Default 120 s. */
  idleTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
}

export interface EndpointBackendOptions extends EndpointOptions {
  logger: Logger;
  onStatus?: ModelStatusListener | undefined;
  sampling?: SamplingOptions | undefined;
}

/** `…/v1` for a base URL given with or without it (and with or without a trailing slash). */
export function apiRoot(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ChorusError(
      'bad_input',
      `Endpoint "${baseUrl}" is not a URL: pass e.g. --endpoint http://127.0.0.1:8000/v1.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ChorusError('bad_input', `Endpoint "${baseUrl}" must be an http:// or https:// URL.`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = /\/v1$/.test(path) ? path : `${path}/v1`;
  url.search = '';
  url.hash = '';
  return url.toString().replace(/\/+$/, '');
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** A failed attempt that may succeed when tried again. */
class RetryableError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

interface StreamChunk {
  choices?: {
    delta?: { content?: string | null; reasoning_content?: string | null; reasoning?: string | null };
    finish_reason?: string | null;
  }[];
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
  } | null;
  error?: { message?: string } | string;
}

interface Attempt {
  text: string;
  finishReason: ChatResult['finishReason'];
  chunks: number;
  usage?: StreamChunk['usage'];
  note?: string;
}

/** A chat completion answered whole (`stream` ignored by the server, or a proxy that buffers). */
interface CompletionBody {
  choices?: {
    message?: { content?: string | null; reasoning_content?: string | null; reasoning?: string | null };
    finish_reason?: string | null;
  }[];
  usage?: StreamChunk['usage'];
  error?: { message?: string } | string;
}

export class EndpointBackend implements ChatBackend {
  readonly kind = 'endpoint' as const;
  readonly label: string;
  private readonly root: string;
  private readonly retry: RetryPolicy;
  private model?: string | undefined;
  /** Set once a server refused our max_tokens as too large for its context: let it pick the limit. */
  private omitMaxTokens = false;

  constructor(private readonly opts: EndpointBackendOptions) {
    this.root = apiRoot(opts.baseUrl);
    this.retry = { ...defaultRetryPolicy, ...opts.retry };
    this.model = opts.model;
    this.label = `endpoint:${opts.model ?? this.root}`;
  }

  private headers(): Record<string, string> {
    const key = this.opts.apiKey ?? process.env.CHORUS_API_KEY;
    return {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    };
  }

  /** The served model: the configured name, or the first one the server lists. */
  async resolveModel(signal?: AbortSignal): Promise<string> {
    if (this.model) return this.model;
    const res = await this.request(`${this.root}/models`, { method: 'GET', headers: this.headers() }, signal);
    if (!res.ok)
      throw new ChorusError(
        'failed',
        `${this.root}/models answered HTTP ${res.status}: pass the model name with --api-model (chorus.apiModel).`,
      );
    const body = (await res.json()) as { data?: { id?: string }[] };
    const id = body.data?.find((m) => typeof m.id === 'string')?.id;
    if (!id)
      throw new ChorusError(
        'failed',
        `${this.root}/models lists no model: pass the model name with --api-model (chorus.apiModel).`,
      );
    this.model = id;
    return id;
  }

  async load(signal?: AbortSignal): Promise<void> {
    await this.resolveModel(signal);
  }

  async dispose(): Promise<void> {}

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    const started = Date.now();
    const sampling = samplingDefaults(this.opts.sampling, options);
    const model = await this.resolveModel(options.signal);
    const status = { model: this.label, backend: 'endpoint' };
    for (let attempt = 0; ; attempt++) {
      try {
        this.opts.onStatus?.({ state: 'generating', ...status });
        const result = await this.attempt(model, messages, sampling, options, started);
        this.opts.onStatus?.({ state: 'ready', ...status });
        return this.finish(messages, result, started);
      } catch (err) {
        if (options.signal?.aborted) throw new ChorusError('cancelled', 'Cancelled.');
        if (!(err instanceof RetryableError) || attempt >= this.retry.maxRetries) {
          const message =
            err instanceof RetryableError
              ? `${err.message} (gave up after ${attempt + 1} attempts)`
              : (err as Error).message;
          this.opts.onStatus?.({ state: 'error', ...status, message });
          if (err instanceof ChorusError) throw err;
          throw new ChorusError('failed', message, undefined, { cause: err });
        }
        const wait = backoffMs(this.retry, attempt, err.retryAfterMs);
        this.opts.logger.warn(
          `${err.message}; retrying in ${(wait / 1000).toFixed(1)} s (attempt ${attempt + 2} of ${this.retry.maxRetries + 1}).`,
        );
        await sleep(wait, options.signal);
      }
    }
  }

  private finish(messages: ChatMessage[], a: Attempt, started: number): ChatResult {
    const u = a.usage;
    if (u && typeof u.prompt_tokens === 'number' && typeof u.completion_tokens === 'number') {
      const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
      return {
        text: a.text,
        finishReason: a.finishReason,
        ...(a.note ? { note: a.note } : {}),
        usage: {
          promptTokens: u.prompt_tokens,
          evaluatedPromptTokens: u.prompt_tokens - cached,
          completionTokens: u.completion_tokens,
          ms: Date.now() - started,
        },
      };
    }
    const prompt = Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 4);
    return {
      text: a.text,
      finishReason: a.finishReason,
      ...(a.note ? { note: a.note } : {}),
      usage: {
        promptTokens: prompt,
        evaluatedPromptTokens: prompt,
        completionTokens: a.chunks,
        ms: Date.now() - started,
        estimated: true,
      },
    };
  }

  /** fetch tied to the caller's signal for its whole life (body included); network failures become retryable. */
  private async request(url: string, init: RequestInit, signal?: AbortSignal, timeoutMs?: number): Promise<Response> {
    const limit = timeoutMs ?? this.opts.responseTimeoutMs ?? 300_000;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), limit);
    try {
      return await fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal });
    } catch (err) {
      if (signal?.aborted) throw new ChorusError('cancelled', 'Cancelled.');
      if (timeout.signal.aborted) throw new RetryableError(`${url} did not answer within ${duration(limit)}`);
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new RetryableError(
        `Cannot reach ${url} (${cause?.code ?? cause?.message ?? (err as Error).message}): start the server or fix --endpoint (chorus.endpoint)`,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  private async attempt(
    model: string,
    messages: ChatMessage[],
    sampling: ResolvedSampling,
    options: ChatOptions,
    started: number,
  ): Promise<Attempt> {
    const url = `${this.root}/chat/completions`;
    const body: Record<string, unknown> = {
      model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      temperature: sampling.temperature,
      top_p: sampling.topP,
      ...(this.omitMaxTokens ? {} : { max_tokens: sampling.maxTokens }),
      ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
      // Qwen3-style templates (vLLM, SGLang, llama.cpp's server) read this; other servers ignore it.
      ...(sampling.thinking !== undefined ? { chat_template_kwargs: { enable_thinking: sampling.thinking } } : {}),
      ...(options.jsonSchema
        ? {
            response_format: {
              type: 'json_schema',
              json_schema: { name: 'reply', schema: options.jsonSchema, strict: true },
            },
          }
        : {}),
    };
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await this.request(
        url,
        { method: 'POST', headers: this.headers(), body: JSON.stringify(body) },
        controller.signal,
      );
      if (!res.ok) await this.httpError(url, res);
      if (!res.body) throw new RetryableError(`${url} answered with no body`);
      if (/application\/json/i.test(res.headers.get('content-type') ?? ''))
        return await this.readWhole(url, res, options);
      return await this.readStream(url, res.body, controller, options, sampling.maxTokens, started);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      controller.abort();
    }
  }

  private async httpError(url: string, res: Response): Promise<never> {
    const text = (await res.text().catch(() => '')).slice(0, 500);
    let detail = text;
    try {
      const parsed = JSON.parse(text) as { error?: { message?: string } | string; message?: string; detail?: string };
      detail =
        (typeof parsed.error === 'string' ? parsed.error : parsed.error?.message) ??
        parsed.message ??
        parsed.detail ??
        text;
    } catch {
      // not JSON: keep the raw text
    }
    const what = `${url} answered HTTP ${res.status}${detail ? `: ${detail}` : ''}`;
    if (isRetryableStatus(res.status)) throw new RetryableError(what, parseRetryAfter(res.headers.get('retry-after')));
    if (
      res.status === 400 &&
      !this.omitMaxTokens &&
      /max_tokens|context length|maximum context|context window|too long/i.test(detail)
    ) {
      // The server's context is smaller than prompt + max_tokens: let it choose the limit; we still cap the count.
      this.omitMaxTokens = true;
      this.opts.logger.info(`${what}; retrying without max_tokens (the server's own limit applies).`);
      throw new RetryableError(what, 0);
    }
    if (res.status === 401 || res.status === 403)
      throw new ChorusError('failed', `${what}. Set CHORUS_API_KEY to a key the server accepts.`);
    if (res.status === 404)
      throw new ChorusError('failed', `${what}. Check --endpoint (chorus.endpoint) and --api-model (chorus.apiModel).`);
    throw new ChorusError('failed', what);
  }

  /** A reply sent as one JSON body instead of a stream: the same text, thinking tagged as `<think>`. */
  private async readWhole(url: string, res: Response, options: ChatOptions): Promise<Attempt> {
    let body: CompletionBody;
    try {
      body = (await res.json()) as CompletionBody;
    } catch (err) {
      if (options.signal?.aborted) throw new ChorusError('cancelled', 'Cancelled.');
      throw new RetryableError(`${url} answered with JSON that cannot be read (${(err as Error).message})`);
    }
    if (body.error) {
      const message = typeof body.error === 'string' ? body.error : (body.error.message ?? JSON.stringify(body.error));
      throw new ChorusError('failed', `${url} reported an error: ${message}`);
    }
    const choice = body.choices?.[0];
    if (!choice?.message) throw new RetryableError(`${url} answered with no choices[0].message`);
    const reasoning = choice.message.reasoning_content ?? choice.message.reasoning ?? '';
    const text = `${reasoning ? `<think>${reasoning}</think>` : ''}${choice.message.content ?? ''}`;
    if (text) options.onToken?.(text);
    return {
      text,
      finishReason: choice.finish_reason === 'length' ? 'length' : 'stop',
      chunks: body.usage?.completion_tokens ?? Math.ceil(text.length / 4),
      usage: body.usage,
    };
  }

  private async readStream(
    url: string,
    body: ReadableStream<Uint8Array>,
    controller: AbortController,
    options: ChatOptions,
    maxTokens: number,
    started: number,
  ): Promise<Attempt> {
    const out: Attempt = { text: '', finishReason: 'stop', chunks: 0 };
    let finished = false;
    let idleTimedOut = false;
    const idleMs = this.opts.idleTimeoutMs ?? 120_000;
    let idle = setTimeout(() => undefined, 0);
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        idleTimedOut = true;
        controller.abort();
      }, idleMs);
    };
    let thinking = false;
    let lastStatus = Date.now();
    const emit = (piece: string) => {
      out.text += piece;
      options.onToken?.(piece);
    };
    armIdle();
    try {
      for await (const data of sseData(body as unknown as AsyncIterable<Uint8Array>)) {
        // Events already buffered must not reach onToken after an abort.
        if (options.signal?.aborted) throw new ChorusError('cancelled', 'Cancelled.');
        armIdle();
        if (data.trim() === '[DONE]') {
          finished = true;
          break;
        }
        let chunk: StreamChunk;
        try {
          chunk = JSON.parse(data) as StreamChunk;
        } catch {
          this.opts.logger.debug(`ignored a stream line that is not JSON: ${data.slice(0, 200)}`);
          continue;
        }
        if (chunk.error) {
          const message =
            typeof chunk.error === 'string' ? chunk.error : (chunk.error.message ?? JSON.stringify(chunk.error));
          throw new ChorusError('failed', `${url} reported an error mid-stream: ${message}`);
        }
        if (chunk.usage) out.usage = chunk.usage;
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        // Servers with a reasoning parser split the thinking out; put it back as <think>, which the engine strips.
        const reasoning = choice.delta?.reasoning_content ?? choice.delta?.reasoning;
        if (reasoning) {
          if (!thinking) emit('<think>');
          thinking = true;
          emit(reasoning);
          out.chunks++;
        }
        const content = choice.delta?.content;
        if (content) {
          if (thinking) emit('</think>');
          thinking = false;
          emit(content);
          out.chunks++;
        }
        if (choice.finish_reason) {
          finished = true;
          out.finishReason = choice.finish_reason === 'length' ? 'length' : 'stop';
        }
        if (Date.now() - lastStatus > 500) {
          lastStatus = Date.now();
          this.opts.onStatus?.({
            state: 'generating',
            model: this.label,
            backend: 'endpoint',
            tokensPerSecond: out.chunks / ((Date.now() - started) / 1000),
          });
        }
        if (out.chunks >= maxTokens) {
          out.finishReason = 'length';
          finished = true;
          break;
        }
      }
    } catch (err) {
      if (options.signal?.aborted) throw new ChorusError('cancelled', 'Cancelled.');
      if (err instanceof ChorusError) throw err;
      const why = idleTimedOut
        ? `sent nothing for ${duration(idleMs)}`
        : `dropped the connection (${(err as Error).message})`;
      // Nothing shown yet: a clean retry is possible. After text went out, a retry would repeat it.
      if (out.text === '') throw new RetryableError(`${url} ${why}`);
      // After text went out a retry would repeat it: keep what came and say that the reply is incomplete.
      if (thinking) emit('</think>');
      return {
        ...out,
        finishReason: 'interrupted',
        note: `${url} ${why} after ${out.chunks} tokens; the reply is incomplete`,
      };
    } finally {
      clearTimeout(idle);
    }
    if (thinking) emit('</think>');
    if (!finished) {
      if (out.text === '') throw new RetryableError(`${url} closed the stream before any reply`);
      return {
        ...out,
        finishReason: 'interrupted',
        note: `${url} closed the stream after ${out.chunks} tokens without finishing the reply; the reply is incomplete`,
      };
    }
    return out;
  }
}
