/** One interface for every chat backend: local GGUF, OpenAI-compatible endpoint, replay file. */
import type { ChatMessage, ModelStatus } from '../protocol';

export interface SamplingOptions {
  /** Paper protocol default: 0.7. */
  temperature?: number;
  /** Paper protocol default: 0.8. */
  topP?: number;
  /** Paper protocol default: 16,384. */
  maxTokens?: number;
  seed?: number;
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
  finishReason: 'stop' | 'length' | 'abort';
}

export interface ChatBackend {
  /** What the user configured: a file name, `endpoint:<model>`, `replay:<file>`. */
  readonly label: string;
  readonly kind: 'local' | 'endpoint' | 'replay';
  /** Messages in, streamed text out. Rejects with ChorusError('cancelled') when aborted. */
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
  /** Loads what the first chat would load (a local model), so a UI can warm it up early. Optional. */
  load?(signal?: AbortSignal): Promise<void>;
  dispose(): Promise<void>;
}

export type ModelStatusListener = (status: ModelStatus) => void;
