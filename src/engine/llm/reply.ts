/** Parses a model reply: a `filename:` line and one fenced SystemVerilog block, patch hunks, or `NO_CHANGES`. */
import { parsePatch, type PatchHunk } from './patch';

export type ParsedReply =
  | { type: 'file'; filename: string | null; code: string; notes: string[] }
  | { type: 'patch'; hunks: PatchHunk[]; notes: string[] }
  | { type: 'no_changes'; notes: string[] }
  | { type: 'none'; reason: string; notes: string[] };

/** Qwen3-family models may think aloud first; an unterminated think block means the answer never came. */
export function stripThinking(text: string): { text: string; unterminated: boolean } {
  let out = text.replace(/<think>[\s\S]*?<\/think>/g, '');
  const open = out.indexOf('<think>');
  if (open >= 0) return { text: out.slice(0, open), unterminated: true };
  // A reply can start inside the think block when the template opened it for the model.
  const close = out.indexOf('</think>');
  if (close >= 0) out = out.slice(close + '</think>'.length);
  return { text: out, unterminated: false };
}

const FENCE = /```[ \t]*([A-Za-z]*)[^\n]*\n([\s\S]*?)(?:```|$)/g;
const CODE_LANGS = new Set(['systemverilog', 'verilog', 'sv', 'v', '']);

export function parseReply(raw: string): ParsedReply {
  const notes: string[] = [];
  const { text, unterminated } = stripThinking(raw);
  if (unterminated) notes.push('the reply ended inside a <think> block');
  const trimmed = text.trim();
  if (/^NO_CHANGES\s*$/.test(trimmed)) return { type: 'no_changes', notes };

  const blocks = [...text.matchAll(FENCE)].map((m) => ({
    lang: m[1].toLowerCase(),
    body: m[2],
    closed: m[0].trimEnd().endsWith('```'),
  }));
  const code = blocks.filter((b) => CODE_LANGS.has(b.lang) && /\bmodule\b/.test(b.body));
  const filename = /^[ \t>*_`]*filename\s*:\s*[`*_]*([^\s`*]+)/im.exec(text)?.[1] ?? null;

  if (code.length) {
    const chosen = code.find((b) => b.lang === 'systemverilog') ?? code[0];
    if (code.length > 1)
      notes.push(`${code.length} code blocks found; used the first ${chosen.lang || 'unlabelled'} one`);
    if (!chosen.closed) notes.push('the code block was not closed');
    if (!filename) notes.push('no filename line');
    if (chosen.lang && chosen.lang !== 'systemverilog') notes.push(`fence language '${chosen.lang}'`);
    return { type: 'file', filename, code: chosen.body.replace(/\s+$/, '') + '\n', notes };
  }

  // Hunks may come inside a fence (```diff), which then holds the whole patch, or bare.
  const fenced = blocks.find((b) => /^@@/m.test(b.body))?.body;
  const patchText = fenced ?? (/^@@/m.test(trimmed) ? trimmed : '');
  if (patchText) {
    const patch = parsePatch(patchText);
    if (patch.ok) return { type: 'patch', hunks: patch.hunks, notes };
    return { type: 'none', reason: `malformed patch: ${patch.error}`, notes };
  }

  if (/^\s*module\b[\s\S]*\bendmodule\b/m.test(trimmed)) {
    notes.push('code without a fence');
    const start = trimmed.search(/^\s*module\b/m);
    const end = trimmed.lastIndexOf('endmodule') + 'endmodule'.length;
    return { type: 'file', filename, code: trimmed.slice(start, end) + '\n', notes };
  }
  return {
    type: 'none',
    reason: unterminated
      ? 'the reply ended while still thinking; no testbench'
      : 'no SystemVerilog code block and no patch hunks found',
    notes,
  };
}
