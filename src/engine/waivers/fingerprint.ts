/**
 * A waiver's fingerprint: a hash of the normalised text of the lines its point stands for (the point's own line
 * and its span), so an entry survives edits that move those lines (it is re-anchored by searching the file for the
 * same text near the old line) and goes stale when the text itself changes.
 */
import { createHash } from 'node:crypto';

/** Lines farther than this from the recorded one are not searched (a move that far is a rewrite). */
const MAX_SHIFT = 2000;

/** The 1-based lines a point stands for: its line, then those of its span (`10-11`, `12,14`), relative to it. */
export function spanOffsets(line: number, span: string | undefined): number[] {
  const lines = new Set([line]);
  for (const part of (span ?? '').split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) continue;
    const from = Number(m[1]);
    const to = Math.min(Number(m[2] ?? m[1]), from + 200);
    for (let l = from; l <= to; l++) lines.add(l);
  }
  return [...lines].sort((a, b) => a - b).map((l) => l - line);
}

/** Comments and whitespace do not count: re-indenting or annotating an arm keeps its fingerprint. */
function normalise(text: string): string {
  return text
    .replace(/\/\/.*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `sha256:<16 hex>` of the lines at `line + offsets` of `lines` (0-based array); undefined when one is missing. */
export function fingerprintAt(lines: readonly string[], line: number, offsets: readonly number[]): string | undefined {
  const parts: string[] = [];
  for (const o of offsets) {
    const text = lines[line + o - 1];
    if (text === undefined) return undefined;
    parts.push(normalise(text));
  }
  return `sha256:${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16)}`;
}

/** The line nearest `line` whose text has `fingerprint` (the same line first), or undefined when none has. */
export function reanchor(
  lines: readonly string[],
  line: number,
  offsets: readonly number[],
  fingerprint: string,
): number | undefined {
  for (let d = 0; d <= MAX_SHIFT; d++) {
    for (const at of d === 0 ? [line] : [line - d, line + d]) {
      if (at < 1 || at > lines.length) continue;
      if (fingerprintAt(lines, at, offsets) === fingerprint) return at;
    }
    if (line - d < 1 && line + d > lines.length) break;
  }
  return undefined;
}
