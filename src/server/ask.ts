/** `chorus/ask`: a question about the design and its holes, answered by the model with both as context. */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ChatBackend } from '../llm/backend';
import type { ChatMessage, GenerateResult } from '../protocol';

const SYSTEM = `You are a hardware verification engineer helping a colleague close coverage on an RTL design.
Answer questions about the design and its uncovered coverage points briefly and concretely: name the signals, the
input sequence that reaches a hole, or why a hole cannot be reached. Use short SystemVerilog snippets when they help.`;

export async function askMessages(files: string[], last: GenerateResult | undefined, question: string): Promise<ChatMessage[]> {
  const parts: string[] = ['<context>'];
  for (const f of files) parts.push(`// File: ${basename(f)}\n${(await readFile(f, 'utf8')).trimEnd()}`);
  parts.push('</context>');
  if (last) {
    const c = last.coverage;
    parts.push(
      `Last run (${last.engine} engine): line ${c.line.pct}%, branch ${c.branch.pct}%, toggle ${c.toggle.pct}%.`,
      last.holes.length
        ? `Uncovered points:\n${last.holes
            .filter((h) => h.kind !== 'toggle')
            .slice(0, 40)
            .map((h) => `- ${h.file}:${h.line} ${h.kind}: ${h.detail}${h.unreachable ? ` (likely unreachable: ${h.unreachable})` : ''}`)
            .join('\n')}`
        : 'No uncovered points.',
    );
  } else {
    parts.push('No coverage run yet.');
  }
  parts.push(`Question: ${question}`);
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

export async function answer(backend: ChatBackend, messages: ChatMessage[], signal: AbortSignal, onText: (t: string) => void): Promise<string> {
  const r = await backend.chat(messages, { signal, onToken: onText, maxTokens: 2048 });
  return r.text;
}
