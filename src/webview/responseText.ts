/** Splits a model's streamed reply into its thinking, prose and fenced code, at any point of the stream. */

export interface ThinkingSplit {
  /** The `<think>` body, when the reply opens with one. */
  thinking?: string;
  /** True while the `</think>` has not arrived yet. */
  thinkingOpen: boolean;
  /** The reply after the thinking. */
  answer: string;
}

const OPEN = '<think>';
const CLOSE = '</think>';

/** Qwen3-family models may open with `<think>…</think>`; it is shown apart, collapsed once done. */
export function splitThinking(text: string): ThinkingSplit {
  const start = text.trimStart();
  // A reply that so far reads "<thi" may still become a thinking block: hold it back rather than flicker.
  if (start.length < OPEN.length && OPEN.startsWith(start)) {
    return start.length ? { thinking: '', thinkingOpen: true, answer: '' } : { thinkingOpen: false, answer: text };
  }
  if (!start.startsWith(OPEN)) return { thinkingOpen: false, answer: text };
  const body = start.slice(OPEN.length);
  const end = body.indexOf(CLOSE);
  if (end < 0) return { thinking: body.trim(), thinkingOpen: true, answer: '' };
  return {
    thinking: body.slice(0, end).trim(),
    thinkingOpen: false,
    answer: body.slice(end + CLOSE.length).trimStart(),
  };
}

export type Segment = { kind: 'text'; text: string } | { kind: 'code'; text: string; lang: string; closed: boolean };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)\s*$/;
const FENCE_START = /^ {0,3}(`{3,}|~{3,})[\w+-]*$/;

/** A fence line's run of fence characters and its language ('' for none); undefined for any other line. */
function fenceOf(line: string): { fence: string; lang: string } | undefined {
  const [, fence, lang = ''] = FENCE.exec(line) ?? [];
  return fence === undefined ? undefined : { fence, lang };
}

/** Prose and fenced code blocks, in order; the last code block is `closed: false` while its fence is still open. */
export function splitFences(text: string): Segment[] {
  const segments: Segment[] = [];
  const lines = text.split('\n');
  let prose: string[] = [];
  let code: { fence: string; lang: string; lines: string[] } | null = null;
  const flushProse = () => {
    const t = prose.join('\n');
    if (t.trim()) segments.push({ kind: 'text', text: t.replace(/^\n+|\s+$/g, '') });
    prose = [];
  };
  for (const [i, line] of lines.entries()) {
    const last = i === lines.length - 1;
    if (code) {
      const f = fenceOf(line);
      // A closing fence: the same character, at least as long, no language.
      if (f && !f.lang && f.fence.charAt(0) === code.fence.charAt(0) && f.fence.length >= code.fence.length) {
        segments.push({ kind: 'code', text: code.lines.join('\n'), lang: code.lang, closed: true });
        code = null;
      } else {
        code.lines.push(line);
      }
      continue;
    }
    const f = fenceOf(line);
    if (f && !last) {
      flushProse();
      code = { fence: f.fence, lang: f.lang.toLowerCase(), lines: [] };
    } else if (!(last && FENCE_START.test(line))) {
      // An opening fence still streaming ("```system…") is held back, not shown as prose.
      prose.push(line);
    }
  }
  if (code) segments.push({ kind: 'code', text: code.lines.join('\n'), lang: code.lang, closed: false });
  else flushProse();
  return segments;
}
