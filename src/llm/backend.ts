/** One interface for every chat backend: local GGUF, OpenAI-compatible endpoint, replay file. */
import type { ChatMessage, ModelStatus } from '../protocol';

export interface SamplingOptions {
  /** Paper protocol default: 0.7. */
  temperature?: number;
  /** Paper protocol default: 0.8. */
  topP?: number;
  /** Paper protocol default: 16,384. */
  maxTokens?: number;
  seed?: number | undefined;
  /** Qwen3-style hybrid models: false asks for no `<think>` block (the template's `enable_thinking`). */
  thinking?: boolean | undefined;
}

export interface ChatOptions extends SamplingOptions {
  signal?: AbortSignal;
  /** Called with each streamed piece of text as it arrives. */
  onToken?: (text: string) => void;
  /** Constrain the reply to this JSON schema (where the backend supports it). */
  jsonSchema?: object;
}

export interface ChatUsage {
  /** Tokens in the whole prompt. */
  promptTokens: number;
  /** Prompt tokens the backend actually had to evaluate (the rest came from a reused KV cache). */
  evaluatedPromptTokens: number;
  completionTokens: number;
  /** Wall time of the call in milliseconds. */
  ms: number;
  /** True when the backend did not report token counts and these are estimates (some endpoints). */
  estimated?: boolean;
}

export interface ChatResult {
  text: string;
  usage: ChatUsage;
  /** `length`: stopped at the token limit; `interrupted`: the stream was cut short and `text` is what came. */
  finishReason: 'stop' | 'length' | 'abort' | 'interrupted';
  /** Why the reply is incomplete, in words (an `interrupted` stream). */
  note?: string;
}

export interface ChatBackend {
  /** What the user configured: a file name, `endpoint:<model>`, `replay:<file>`. */
  readonly label: string;
  readonly kind: 'local' | 'endpoint' | 'replay';
  /** Messages in, streamed text out. Rejects with ChorusError('cancelled') when aborted. */
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
  /** The context window in tokens when the backend knows it (a loaded local model); loads the model if needed. */
  contextSize?(signal?: AbortSignal): Promise<number | undefined>;
  /** The prompt's size in tokens as this backend's tokenizer and chat template count it. */
  countTokens?(messages: ChatMessage[], signal?: AbortSignal): Promise<number>;
  /** Where a local model computes (`cpu`, `cuda`, `vulkan`, `metal`); loads the model if needed. */
  compute?(signal?: AbortSignal): Promise<string>;
  /** Loads what the first chat would load (a local model), so a UI can warm it up early. Optional. */
  load?(signal?: AbortSignal): Promise<void>;
  dispose(): Promise<void>;
}

export type ModelStatusListener = (status: ModelStatus) => void;
