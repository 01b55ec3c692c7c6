/** Our chat messages as node-llama-cpp's chat history, ready for a reply to be generated. */
import type { ChatHistoryItem } from 'node-llama-cpp' with { 'resolution-mode': 'import' };
import type { ChatMessage } from '../../protocol';

/** A trailing assistant message is continued (a prefill); otherwise an empty model turn is opened. */
export function toChatHistory(messages: ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((m) =>
    m.role === 'system'
      ? { type: 'system', text: m.content }
      : m.role === 'user'
        ? { type: 'user', text: m.content }
        : { type: 'model', response: [m.content] },
  );
  if (messages.at(-1)?.role !== 'assistant') history.push({ type: 'model', response: [] });
  return history;
}
