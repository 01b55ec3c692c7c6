/** A round's model call: the reply text streamed as `tokens` events, with its token counts, time and how it ended. */
import { isAbortError, type ChatMessage, type LoopEvent } from '../../protocol';
import type { ChatBackend, ChatResult, SamplingOptions } from '../../llm';
import type { Emit } from '../channel';

export interface Reply {
  text: string;
  completionTokens: number;
  evaluatedPromptTokens: number;
  ms: number;
  finishReason: ChatResult['finishReason'];
  note?: string | undefined;
}

/** The model's reply, or null when the run was cancelled (or ran out of time) while it was being written. */
export async function generateReply(
  backend: ChatBackend,
  messages: ChatMessage[],
  round: number,
  sampling: SamplingOptions | undefined,
  signal: AbortSignal,
  emit: Emit<LoopEvent>,
): Promise<Reply | null> {
  const started = Date.now();
  try {
    const result = await backend.chat(messages, {
      ...sampling,
      signal,
      onToken: (text) => emit({ type: 'tokens', round, text }),
    });
    if (signal.aborted) return null;
    return {
      text: result.text,
      completionTokens: result.usage.completionTokens,
      evaluatedPromptTokens: result.usage.evaluatedPromptTokens,
      ms: Date.now() - started,
      finishReason: result.finishReason,
      note: result.note,
    };
  } catch (err) {
    if (isAbortError(err) || signal.aborted) return null;
    throw err;
  }
}
