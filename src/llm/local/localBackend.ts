/**
 * A local GGUF model through node-llama-cpp: loaded lazily on first use, one context sequence kept for the life of
 * the backend so that each call evaluates only the part of the prompt that differs from the previous one (the
 * engine's rounds share their opening system + user messages).
 */
import { basename } from 'node:path';
import type { ChatHistoryItem, Llama, LlamaChat, LlamaContext, LlamaContextSequence, LlamaModel, LlamaGrammar } from 'node-llama-cpp' with { 'resolution-mode': 'import' };
import { ChorusError, type ChatMessage, type Logger, type ModelStatus } from '../../protocol';
import type { ChatBackend, ChatOptions, ChatResult, ModelStatusListener, SamplingOptions } from '../backend';
import { checkGgufHeader } from '../models/ggufHeader';
import { samplingDefaults } from '../sampling';
import { FinalAttemptError, computeName, withComputeFallback, type GpuSetting } from './compute';
import { toChatHistory } from './history';
import { getLlamaFor, threadsSetting } from './llamaInstance';
import { loadNodeLlamaCpp } from './nodeLlamaCpp';

export interface LocalBackendOptions {
  modelPath: string;
  logger: Logger;
  onStatus?: ModelStatusListener;
  /** Default `auto`: the best GPU node-llama-cpp finds, the CPU when that fails. */
  gpu?: GpuSetting;
  /** Tokens; default: as much of the model's trained context as fits, between 4,096 and 32,768. */
  contextSize?: number;
  sampling?: SamplingOptions;
  /** CPU threads; default: $CHORUS_THREADS, else the cores that are useful for math. */
  threads?: number;
  label?: string;
}

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  chat: LlamaChat;
  compute: string;
}

/** How often a `generating` status with the current speed goes out. */
const STATUS_EVERY_MS = 500;

export class LocalBackend implements ChatBackend {
  readonly kind = 'local' as const;
  readonly label: string;
  private loaded?: Promise<Loaded>;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;
  private grammars = new Map<string, Promise<LlamaGrammar>>();

  constructor(private readonly opts: LocalBackendOptions) {
    this.label = opts.label ?? basename(opts.modelPath);
  }

  private status(s: Omit<ModelStatus, 'model'>): void {
    this.opts.onStatus?.({ model: this.label, ...s });
  }

  /** Loads the model if needed and says how it runs: compute backend, chat format read from the GGUF, context size. */
  async info(signal?: AbortSignal): Promise<{ compute: string; chatFormat: string; contextSize: number }> {
    const l = await this.ensureLoaded(signal);
    return { compute: l.compute, chatFormat: l.chat.chatWrapper.wrapperName, contextSize: l.context.contextSize };
  }

  async load(signal?: AbortSignal): Promise<void> {
    await this.ensureLoaded(signal);
  }

  async contextSize(signal?: AbortSignal): Promise<number> {
    return (await this.ensureLoaded(signal)).context.contextSize;
  }

  /** The prompt's tokens as the model's own chat template and tokenizer make them. */
  async countTokens(messages: ChatMessage[], signal?: AbortSignal): Promise<number> {
    const { chat, model } = await this.ensureLoaded(signal);
    return chat.chatWrapper.generateContextState({ chatHistory: toChatHistory(messages) }).contextText.tokenize(model.tokenizer).length;
  }

  private ensureLoaded(signal?: AbortSignal): Promise<Loaded> {
    if (this.disposed) return Promise.reject(new ChorusError('failed', `The model ${this.label} was released: open it again.`));
    if (!this.loaded) {
      this.loaded = this.doLoad(signal);
      // A failed or cancelled load is tried again by the next call.
      this.loaded.catch(() => (this.loaded = undefined));
    }
    return this.loaded;
  }

  private async doLoad(signal?: AbortSignal): Promise<Loaded> {
    try {
      await checkGgufHeader(this.opts.modelPath);
    } catch (err) {
      this.status({ state: 'error', message: (err as Error).message });
      throw err;
    }
    const mod = await loadNodeLlamaCpp();
    const { logger } = this.opts;
    this.status({ state: 'loading', percent: 0 });
    try {
      const { value } = await withComputeFallback(
        this.opts.gpu ?? 'auto',
        async (gpu) => {
          const llama = await getLlamaFor(mod, gpu, logger);
          try {
            const model = await llama.loadModel({
              modelPath: this.opts.modelPath,
              loadSignal: signal,
              onLoadProgress: (p) => this.status({ state: 'loading', percent: Math.round(p * 100), backend: computeName(llama.gpu) }),
            });
            // The context (KV cache) is the other big allocation: if the GPU cannot hold it, the CPU may.
            try {
              const max = Math.min(32_768, model.trainContextSize);
              const context = await model.createContext({
                contextSize: this.opts.contextSize ?? { min: Math.min(4096, max), max },
                threads: threadsSetting(this.opts.threads),
                createSignal: signal,
              });
              return { llama, model, context };
            } catch (err) {
              await model.dispose();
              throw err;
            }
          } catch (err) {
            throw llama.gpu === false ? new FinalAttemptError(err) : err;
          }
        },
        logger,
        () => Boolean(signal?.aborted),
      );
      const { llama, model, context } = value;
      const sequence = context.getSequence();
      const chat = new mod.LlamaChat({ contextSequence: sequence });
      const compute = computeName(llama.gpu);
      logger.debug(`Loaded ${this.opts.modelPath} on ${compute}: context ${context.contextSize} tokens, chat format ${chat.chatWrapper.wrapperName}.`);
      this.status({ state: 'ready', backend: compute });
      return { llama, model, context, sequence, chat, compute };
    } catch (err) {
      if (signal?.aborted) {
        this.status({ state: 'not_configured', message: 'Loading was cancelled; the model loads on the next run.' });
        throw new ChorusError('cancelled', 'Cancelled while loading the model.');
      }
      const message = `Cannot load the model ${this.opts.modelPath}: ${(err as Error).message}. Check that it is a complete GGUF file (\`chorus model info <path>\`) and that it fits in memory (a smaller contextSize helps).`;
      this.status({ state: 'error', message });
      throw new ChorusError('failed', message, { file: this.opts.modelPath }, { cause: err });
    }
  }

  chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    // One sequence, one generation at a time: calls queue up.
    const run = this.queue.then(() => this.generate(messages, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private grammarFor(llama: Llama, schema: object): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let g = this.grammars.get(key);
    if (!g) {
      // The schema type is node-llama-cpp's GBNF JSON schema subset; it rejects what it cannot express.
      g = llama.createGrammarForJsonSchema(schema as Parameters<Llama['createGrammarForJsonSchema']>[0]) as Promise<LlamaGrammar>;
      g.catch(() => this.grammars.delete(key));
      this.grammars.set(key, g);
    }
    return g;
  }

  private async generate(messages: ChatMessage[], options: ChatOptions): Promise<ChatResult> {
    const started = Date.now();
    const { signal } = options;
    if (signal?.aborted) throw new ChorusError('cancelled', 'Cancelled.');
    const { llama, model, context, sequence, chat, compute } = await this.ensureLoaded(signal);
    const sampling = samplingDefaults(this.opts.sampling, options);
    const history: ChatHistoryItem[] = toChatHistory(messages);

    const promptTokens = chat.chatWrapper.generateContextState({ chatHistory: history }).contextText.tokenize(model.tokenizer).length;
    if (promptTokens >= context.contextSize) {
      throw new ChorusError('bad_input', `The prompt has ${promptTokens} tokens but the model's context holds ${context.contextSize}: raise chorus.contextSize (--context-size) or give fewer/smaller files.`);
    }
    const maxTokens = Math.max(1, Math.min(sampling.maxTokens, context.contextSize - promptTokens));

    let grammar: LlamaGrammar | undefined;
    if (options.jsonSchema) {
      try {
        grammar = await this.grammarFor(llama, options.jsonSchema);
      } catch (err) {
        throw new ChorusError('bad_input', `The JSON schema cannot be turned into a grammar: ${(err as Error).message}.`);
      }
    }

    let text = '';
    let completionTokens = 0;
    let firstTokenAt = 0;
    let lastStatus = 0;
    const emit = (piece: string) => {
      if (!piece || signal?.aborted) return;
      text += piece;
      options.onToken?.(piece);
    };
    const speed = () => (firstTokenAt && Date.now() > firstTokenAt ? completionTokens / ((Date.now() - firstTokenAt) / 1000) : undefined);

    const meterBefore = sequence.tokenMeter.getState();
    this.status({ state: 'generating', backend: compute });
    let stopReason: string;
    try {
      const response = await chat.generateResponse(history, {
        signal,
        maxTokens,
        temperature: sampling.temperature,
        topP: sampling.topP,
        seed: sampling.seed,
        grammar,
        // No thinking asked: the thought segment gets no tokens, so the model answers at once.
        ...(sampling.thinking === false ? { budgets: { thoughtTokens: 0 } } : {}),
        onResponseChunk: (chunk) => {
          if (!firstTokenAt) firstTokenAt = Date.now();
          completionTokens += chunk.tokens.length;
          // Thoughts (Qwen3 `<think>`) are kept in the text, tagged as the model wrote them: the engine strips them.
          const thought = chunk.type === 'segment' && chunk.segmentType === 'thought';
          if (thought && chunk.segmentStartTime) emit('<think>');
          emit(chunk.text);
          if (thought && chunk.segmentEndTime) emit('</think>');
          if (Date.now() - lastStatus >= STATUS_EVERY_MS) {
            lastStatus = Date.now();
            this.status({ state: 'generating', backend: compute, tokensPerSecond: speed() });
          }
        },
      });
      stopReason = response.metadata.stopReason;
    } catch (err) {
      this.status({ state: 'ready', backend: compute });
      if (signal?.aborted) throw new ChorusError('cancelled', 'Cancelled.');
      throw new ChorusError('failed', `Generation with ${this.label} failed: ${(err as Error).message}`, undefined, { cause: err });
    }
    const used = sequence.tokenMeter.diff(meterBefore);
    this.status({ state: 'ready', backend: compute, tokensPerSecond: speed() });
    // The meter counts tokens fed without logits as input; the prompt's last token is fed with logits (it yields
    // the first reply token), so it shows up as output: add it back.
    const evaluatedPromptTokens = used.usedInputTokens + Math.min(1, used.usedOutputTokens);
    return {
      text,
      finishReason: stopReason === 'maxTokens' ? 'length' : stopReason === 'abort' ? 'abort' : 'stop',
      usage: { promptTokens, evaluatedPromptTokens, completionTokens, ms: Date.now() - started },
    };
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const loaded = this.loaded;
    this.loaded = undefined;
    if (!loaded) return;
    await this.queue.catch(() => undefined);
    const l = await loaded.catch(() => undefined);
    if (!l) return;
    l.chat.dispose();
    await l.context.dispose();
    await l.model.dispose();
    this.opts.logger.debug(`Released the model ${this.label}.`);
  }
}
