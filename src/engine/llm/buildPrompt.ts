/**
 * A round's prompt (Markov context): the opening messages, then the best reply so far and its ONE follow-up message,
 * the user's words (chat steering) inside it after the instruction. Before any reply, steering is a lone follow-up.
 */
import type { ChatMessage } from '../../protocol';
import type { Attempt } from './attempt';
import { FULL_DETAIL, nextInstruction } from './feedback';
import { asFileReply, instructionSection } from './prompt';
import { shortenTestbench, type PromptDetail } from './promptDetail';
import { DEFAULT_TEMPLATES, type PromptTemplates } from './templates';

export function buildRoundPrompt(
  opening: ChatMessage[],
  best: Attempt | null,
  steering: string[],
  detail: PromptDetail = FULL_DETAIL,
  templates: PromptTemplates = DEFAULT_TEMPLATES,
): ChatMessage[] {
  const messages: ChatMessage[] = [...opening];
  if (best) {
    const reply =
      detail.testbenchLines !== undefined && best.testbench
        ? asFileReply(best.filename, shortenTestbench(best.testbench, detail.testbenchLines))
        : best.reply;
    messages.push({ role: 'assistant', content: reply }, best.feedback(detail, steering));
  } else if (steering.length) {
    messages.push({ role: 'user', content: instructionSection(nextInstruction(null, steering), templates) });
  }
  return messages;
}
