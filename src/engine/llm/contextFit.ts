/**
 * The context budget: the reply's tokens are reserved, and each round's prompt is fitted into the rest by showing
 * less detail (shorter uncovered lists and logs, then the replayed testbench in part) until it fits.
 */
import type { ChatBackend } from '../../llm';
import { DEFAULT_SAMPLING } from '../../llm';
import type { ChatMessage } from '../../protocol';
import { DETAIL_LEVELS, type PromptDetail } from './promptDetail';

/** Without the backend's tokenizer: about 3 characters a token for code, on the safe side. */
const CHARS_PER_TOKEN = 3;
/** What full-detail feedback (40 uncovered lines or a 3,000-character log, headers, instruction) may take. */
const FULL_FEEDBACK_TOKENS = 1600;

export type TokenCounter = (messages: ChatMessage[]) => Promise<number>;

export interface ContextBudget {
  contextTokens: number;
  /** Tokens kept free for the reply; the reply's max tokens. */
  replyTokens: number;
  /** The most a prompt may take. */
  promptTokens: number;
  count: TokenCounter;
}

export function estimateTokens(messages: ChatMessage[]): number {
  // A few tokens per message for the chat template's role markers.
  return messages.reduce((n, m) => n + Math.ceil(m.content.length / CHARS_PER_TOKEN) + 8, 0);
}

/** The budget when the context size is known (given, or from a loaded local model); undefined when it is not. */
export async function contextBudget(
  backend: ChatBackend,
  contextSize: number | undefined,
  maxTokens: number | undefined,
  signal: AbortSignal,
): Promise<ContextBudget | undefined> {
  const contextTokens = contextSize ?? (await backend.contextSize?.(signal));
  if (!contextTokens) return undefined;
  const wanted = maxTokens ?? DEFAULT_SAMPLING.maxTokens;
  // Half the context at most: a prompt must still hold the design, the best testbench and its feedback.
  const replyTokens = Math.max(1, Math.min(wanted, Math.floor(contextTokens / 2)));
  const count: TokenCounter = backend.countTokens
    ? (m) => (backend.countTokens as (x: ChatMessage[], s?: AbortSignal) => Promise<number>)(m, signal)
    : async (m) => estimateTokens(m);
  return { contextTokens, replyTokens, promptTokens: contextTokens - replyTokens, count };
}

/** What the run says up front about its context, before round 1; `fits: false` when not even the opening fits. */
export async function contextPlan(
  budget: ContextBudget,
  opening: ChatMessage[],
  maxTokens: number | undefined,
): Promise<{ fits: boolean; notes: string[]; openingTokens: number }> {
  const openingTokens = await budget.count(opening);
  const notes: string[] = [];
  const wanted = maxTokens ?? DEFAULT_SAMPLING.maxTokens;
  if (budget.replyTokens < wanted) {
    notes.push(
      `Replies are limited to ${budget.replyTokens} tokens (asked ${wanted}) so that a prompt still fits the ${budget.contextTokens}-token context.`,
    );
  }
  if (openingTokens > budget.promptTokens) {
    return { fits: false, notes, openingTokens };
  }
  // Worst case of a follow-up round: the opening, a replayed reply as long as the reply limit, full feedback.
  const worst = openingTokens + budget.replyTokens + FULL_FEEDBACK_TOKENS;
  if (worst > budget.promptTokens) {
    notes.push(
      `A follow-up prompt may take up to about ${worst} tokens (design and spec ${openingTokens}, a replayed testbench up to ${budget.replyTokens}, feedback up to ${FULL_FEEDBACK_TOKENS}) but ${budget.promptTokens} fit: the uncovered list and logs will be shortened first, then the replayed testbench shown in part. A larger --context-size (chorus.contextSize) avoids this.`,
    );
  }
  return { fits: true, notes, openingTokens };
}

export interface FittedPrompt {
  messages: ChatMessage[];
  tokens: number;
  detail: PromptDetail;
  /** Index in DETAIL_LEVELS; 0 is full detail. */
  level: number;
}

/** The most detailed prompt that fits, or null with the smallest prompt's size when none does. */
export async function fitPrompt(
  build: (detail: PromptDetail) => ChatMessage[],
  budget: ContextBudget | undefined,
): Promise<FittedPrompt | { tokens: number }> {
  if (!budget) return { messages: build(DETAIL_LEVELS[0]), tokens: 0, detail: DETAIL_LEVELS[0], level: 0 };
  let tokens = 0;
  for (let level = 0; level < DETAIL_LEVELS.length; level++) {
    const messages = build(DETAIL_LEVELS[level]);
    tokens = await budget.count(messages);
    if (tokens <= budget.promptTokens) return { messages, tokens, detail: DETAIL_LEVELS[level], level };
  }
  return { tokens };
}
