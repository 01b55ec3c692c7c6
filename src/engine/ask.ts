/** `ask`: a question about the design and its holes, answered by the model with both as context. */
import type { ChatMessage, GenerateResult } from '../protocol';
import { readSourceText } from '../hdl';
import type { ModelProvider } from './models';
import { designNames } from './names';

const SYSTEM = `You are a hardware verification engineer helping a colleague close coverage on an RTL design.
Answer questions about the design and its uncovered coverage points briefly and concretely: name the signals, the
input sequence that reaches a hole, or why a hole cannot be reached. Use short SystemVerilog snippets when they help.`;

export interface AskRequest {
  /** The DUT files (absolute paths): the last run's, or the open document. */
  files: string[];
  /** The last finished run on them, when there is one. */
  last?: GenerateResult | undefined;
  question: string;
}

export async function askMessages(req: AskRequest): Promise<ChatMessage[]> {
  const name = designNames(req.files);
  const parts: string[] = ['<context>'];
  for (const f of req.files) parts.push(`// File: ${name(f)}\n${(await readSourceText(f)).trimEnd()}`);
  parts.push('</context>');
  const last = req.last;
  if (last) {
    const c = last.coverage;
    parts.push(
      `Last run (${last.engine} engine): line ${c.line.pct}%, branch ${c.branch.pct}%, toggle ${c.toggle.pct}%.`,
      last.holes.length
        ? `Uncovered points:\n${last.holes
            .filter((h) => h.kind !== 'toggle')
            .slice(0, 40)
            .map(
              (h) =>
                `- ${name(h.file)}:${h.line} ${h.kind}: ${h.detail}${h.unreachable ? ` (proven unreachable: ${h.unreachable})` : h.formal ? ` (formal engine undecided: ${h.formal})` : ''}`,
            )
            .join('\n')}`
        : 'No uncovered points.',
    );
  } else {
    parts.push('No coverage run yet.');
  }
  parts.push(`Question: ${req.question}`);
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

/** The model's answer, streamed to `onText` as it comes. */
export async function ask(
  req: AskRequest,
  models: ModelProvider,
  signal: AbortSignal,
  onText: (text: string) => void,
): Promise<string> {
  const backend = await models.open(signal);
  const messages = await askMessages(req);
  const r = await backend.chat(messages, { signal, onToken: onText, maxTokens: 2048 });
  return r.text;
}
