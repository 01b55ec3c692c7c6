/**
 * A local GGUF model through node-llama-cpp: loaded lazily on first use, its context sequences kept for the life of
 * the backend so that each call evaluates only the part of the prompt that differs from the sequence's previous one
 * (the engine's rounds share their opening system + user messages, a round's candidates their whole prompt).
 * On a CPU one sequence serves every call in turn: a round's candidates then evaluate their shared prompt once. On a
 * GPU `parallel` sequences let that many calls generate side by side, in one batch. The base model is shared with
 * every other backend on the same file (`sharedModel`); LoRA adapters belong to this backend's context.
 */
import { basename } from 'node:path';
import { acquireModel, type ModelLease } from './sharedModel';
import type {
  ChatHistoryItem,
  Llama,
  LlamaChat,
  LlamaContext,
  LlamaContextSequence,
  LlamaModel,
  LlamaGrammar,
} from 'node-llama-cpp' with { 'resolution-mode': 'import' };
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
  onStatus?: ModelStatusListener | undefined;
  /** Default `auto`: the best GPU node-llama-cpp finds, the CPU when that fails. */
  gpu?: GpuSetting | undefined;
  /** Tokens; default: as much of the model's trained context as fits, between 4,096 and 32,768. */
  contextSize?: number | undefined;
  sampling?: SamplingOptions | undefined;
  /** CPU threads; default: $CHORUS_THREADS, else the cores that are useful for math. */
  threads?: number | undefined;
  label?: string | undefined;
  /** LoRA adapters applied to this backend's context over the (shared) base model. */
  lora?: { filePath: string; scale?: number }[];
  /** Calls that generate side by side on a GPU, one context sequence each. Default 1. */
  parallel?: number | undefined;
  /**
   * Sequences on a CPU. Default 1: calls take turns on one sequence, so a round's candidates evaluate their shared
   * prompt once; more sequences evaluate it once each, in one batch.
   */
  cpuSequences?: number;
}

interface Slot {
  sequence: LlamaContextSequence;
  chat: LlamaChat;
  busy: boolean;
}

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  lease: ModelLease;
  context: LlamaContext;
  /** One per sequence of the context, which has at least one (`sequences` is at least 1 when it is made). */
  slots: [Slot, ...Slot[]];
  compute: string;
}

/** How often a `generating` status with the current speed goes out. */
const STATUS_EVERY_MS = 500;

export class LocalBackend implements ChatBackend {
  readonly kind = 'local' as const;
  readonly label: string;
  private loaded?: Promise<Loaded> | undefined;
  private readonly waiting: (() => void)[] = [];
  private readonly running = new Set<Promise<unknown>>();
  private disposed = false;
  private grammars = new Map<string, Promise<LlamaGrammar>>();

  constructor(private readonly opts: LocalBackendOptions) {
    this.label = opts.label ?? basename(opts.modelPath);
  }

  private status(s: Omit<ModelStatus, 'model'>): void {
    this.opts.onStatus?.({ model: this.label, ...s });
  }

  /** Loads the model if needed and says how it runs: compute backend, chat format read from the GGUF, context size. */
  async info(
    signal?: AbortSignal,
  ): Promise<{ compute: string; chatFormat: string; contextSize: number; sequences: number }> {
    const l = await this.ensureLoaded(signal);
    return {
      compute: l.compute,
      chatFormat: l.slots[0].chat.chatWrapper.wrapperName,
      contextSize: l.context.contextSize,
      sequences: l.slots.length,
    };
  }

  async compute(signal?: AbortSignal): Promise<string> {
    return (await this.ensureLoaded(signal)).compute;
  }

  async load(signal?: AbortSignal): Promise<void> {
    await this.ensureLoaded(signal);
  }

  async contextSize(signal?: AbortSignal): Promise<number> {
    return (await this.ensureLoaded(signal)).context.contextSize;
  }

  /** The prompt's tokens as the model's own chat template and tokenizer make them. */
  async countTokens(messages: ChatMessage[], signal?: AbortSignal): Promise<number> {
    const { slots, model } = await this.ensureLoaded(signal);
    return slots[0].chat.chatWrapper
      .generateContextState({ chatHistory: toChatHistory(messages) })
      .contextText.tokenize(model.tokenizer).length;
  }

  private ensureLoaded(signal?: AbortSignal): Promise<Loaded> {
    if (this.disposed)
      return Promise.reject(new ChorusError('failed', `The model ${this.label} was released: open it again.`));
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
            // The base model is loaded once per file and runtime, however many backends (adapters) use it.
            const lease = await acquireModel(llama, this.opts.modelPath, () =>
              llama.loadModel({
                modelPath: this.opts.modelPath,
                ...(signal ? { loadSignal: signal } : {}),
                onLoadProgress: (p) =>
                  this.status({ state: 'loading', percent: Math.round(p * 100), backend: computeName(llama.gpu) }),
              }),
            );
            const model = lease.model;
            // The context (KV cache) is the other big allocation: if the GPU cannot hold it, the CPU may.
            try {
              const max = Math.min(32_768, model.trainContextSize);
              const lora = this.opts.lora?.length
                ? { adapters: this.opts.lora.map((a) => ({ filePath: a.filePath, scale: a.scale ?? 1 })) }
                : undefined;
              const threads = threadsSetting(this.opts.threads);
              const context = await model.createContext({
                contextSize: this.opts.contextSize ?? { min: Math.min(4096, max), max },
                ...(threads !== undefined ? { threads } : {}),
                sequences: Math.max(1, (llama.gpu === false ? this.opts.cpuSequences : this.opts.parallel) ?? 1),
                ...(signal ? { createSignal: signal } : {}),
                ...(lora ? { lora } : {}),
              });
              return { llama, model, lease, context };
            } catch (err) {
              await lease.release();
              throw err;
            }
          } catch (err) {
            throw llama.gpu === false ? new FinalAttemptError(err) : err;
          }
        },
        logger,
        () => Boolean(signal?.aborted),
      );
      const { llama, model, lease, context } = value;
      const slot = (): Slot => {
        const sequence = context.getSequence();
        return { sequence, chat: new mod.LlamaChat({ contextSequence: sequence }), busy: false };
      };
      const slots: [Slot, ...Slot[]] = [slot(), ...Array.from({ length: context.totalSequences - 1 }, slot)];
      const compute = computeName(llama.gpu);
      const adapters = this.opts.lora?.length
        ? `, LoRA ${this.opts.lora.map((a) => basename(a.filePath)).join(', ')}`
        : '';
      logger.debug(
        `Loaded ${this.opts.modelPath} on ${compute}: context ${context.contextSize} tokens × ${slots.length} sequence(s), chat format ${slots[0].chat.chatWrapper.wrapperName}${adapters}.`,
      );
      this.status({ state: 'ready', backend: compute });
      return { llama, model, lease, context, slots, compute };
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
    const run = this.onFreeSlot(options.signal, (loaded, slot) => this.generate(loaded, slot, messages, options));
    this.running.add(run);
    void run.catch(() => undefined).finally(() => this.running.delete(run));
    return run;
  }

  /** One generation per sequence at a time: a call waits for a free sequence, the oldest waiting call first. */
  private async onFreeSlot<T>(
    signal: AbortSignal | undefined,
    task: (loaded: Loaded, slot: Slot) => Promise<T>,
  ): Promise<T> {
    const loaded = await this.ensureLoaded(signal);
    let slot = this.waiting.length ? undefined : loaded.slots.find((s) => !s.busy);
    while (!slot) {
      await new Promise<void>((r) => this.waiting.push(r));
      slot = loaded.slots.find((s) => !s.busy);
    }
    slot.busy = true;
    try {
      return await task(loaded, slot);
    } finally {
      slot.busy = false;
      this.waiting.shift()?.();
    }
  }

  private grammarFor(llama: Llama, schema: object): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let g = this.grammars.get(key);
    if (!g) {
      // The schema type is node-llama-cpp's GBNF JSON schema subset; it rejects what it cannot express.
      g = llama.createGrammarForJsonSchema(
        schema as Parameters<Llama['createGrammarForJsonSchema']>[0],
      ) as Promise<LlamaGrammar>;
      g.catch(() => this.grammars.delete(key));
      this.grammars.set(key, g);
    }
    return g;
  }

  private async generate(
    loaded: Loaded,
    slot: Slot,
    messages: ChatMessage[],
    options: ChatOptions,
  ): Promise<ChatResult> {
    const started = Date.now();
    const { signal } = options;
    if (signal?.aborted) throw new ChorusError('cancelled', 'Cancelled.');
    const { llama, model, context, compute } = loaded;
    const { sequence, chat } = slot;
    const sampling = samplingDefaults(this.opts.sampling, options);
    const history: ChatHistoryItem[] = toChatHistory(messages);

    const promptTokens = chat.chatWrapper
      .generateContextState({ chatHistory: history })
      .contextText.tokenize(model.tokenizer).length;
    if (promptTokens >= context.contextSize) {
      throw new ChorusError(
        'bad_input',
        `The prompt has ${promptTokens} tokens but the model's context holds ${context.contextSize}: raise chorus.contextSize (--context-size) or give fewer/smaller files.`,
      );
    }
    const maxTokens = Math.max(1, Math.min(sampling.maxTokens, context.contextSize - promptTokens));

    let grammar: LlamaGrammar | undefined;
    if (options.jsonSchema) {
      try {
        grammar = await this.grammarFor(llama, options.jsonSchema);
      } catch (err) {
        throw new ChorusError(
          'bad_input',
          `The JSON schema cannot be turned into a grammar: ${(err as Error).message}.`,
        );
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
    const speed = () =>
      firstTokenAt && Date.now() > firstTokenAt ? completionTokens / ((Date.now() - firstTokenAt) / 1000) : undefined;

    const meterBefore = sequence.tokenMeter.getState();
    this.status({ state: 'generating', backend: compute });
    let stopReason: string;
    try {
      const response = await chat.generateResponse(history, {
        ...(signal ? { signal } : {}),
        maxTokens,
        temperature: sampling.temperature,
        topP: sampling.topP,
        ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
        ...(grammar ? { grammar } : {}),
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
      throw new ChorusError('failed', `Generation with ${this.label} failed: ${(err as Error).message}`, undefined, {
        cause: err,
      });
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
    await Promise.all([...this.running].map((r) => r.catch(() => undefined)));
    const l = await loaded.catch(() => undefined);
    if (!l) return;
    for (const slot of l.slots) slot.chat.dispose();
    await l.context.dispose();
    await l.lease.release();
    this.opts.logger.debug(`Released the model ${this.label}.`);
  }
}
