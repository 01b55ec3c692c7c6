/** A round's prompt (Markov context): the opening messages, the best reply so far with its feedback, the user's words. */
import type { ChatMessage } from '../../protocol';
import type { Attempt } from './attempt';
import { nextInstruction } from './feedback';
import { asFileReply } from './prompt';
import { FULL_DETAIL } from './feedback';
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
    const reply = detail.testbenchLines !== undefined && best.testbench ? asFileReply(best.filename, shortenTestbench(best.testbench, detail.testbenchLines)) : best.reply;
    messages.push({ role: 'assistant', content: reply }, ...best.feedback(detail));
  }
  if (steering.length) {
    // The best attempt's instruction already sits last; the user's words ride on a fresh instruction message.
    messages.push({ role: 'user', content: `${templates.instructionHeader}\n${nextInstruction(best?.report ?? null, steering)}` });
  }
  return messages;
}
