/**
 * Hover: a DUT line's hit count from the last run, its points proven unreachable (which proof) and why the formal
 * engine left a hole undecided; on a signal, the toggle bits never seen.
 */
import type { Hover, Position } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { armHole, formalText, isProven, provenText, waiverText, type Hole, type LineCoverage } from '../protocol';

function wordAt(doc: TextDocument, pos: Position): string | null {
  const line = doc.getText({ start: { line: pos.line, character: 0 }, end: { line: pos.line + 1, character: 0 } });
  const re = /[A-Za-z_][A-Za-z0-9_$]*/g;
  for (const m of line.matchAll(re)) {
    const start = m.index ?? 0;
    if (pos.character >= start && pos.character <= start + m[0].length) return m[0];
  }
  return null;
}

/** `lines` are the document's own; `file` is its absolute path, which its holes carry. */
export function hoverAt(
  doc: TextDocument,
  pos: Position,
  lines: LineCoverage[],
  holes: Hole[],
  file: string,
): Hover | null {
  const parts: string[] = [];
  const word = wordAt(doc, pos);
  if (word) {
    const bits = holes
      .filter((h) => h.kind === 'toggle' && h.file === file)
      .map((h) => h.detail)
      .filter((d) => new RegExp(`(^|[^A-Za-z0-9_])${word}(\\[|\\s|$)`).test(d));
    if (bits.length) {
      parts.push(
        `**${word}**: ${bits.length} toggle bit${bits.length === 1 ? '' : 's'} never seen`,
        ...bits.slice(0, 12).map((b) => `- ${b}`),
      );
      if (bits.length > 12) parts.push(`- … and ${bits.length - 12} more`);
    }
  }
  const here = lines.find((l) => l.line === pos.line + 1);
  if (here) {
    parts.push(`CHORUS: line hit **${here.hits}** time${here.hits === 1 ? '' : 's'} in the last run`);
    const own = holes.filter((h) => h.file === file && h.line === here.line);
    for (const b of here.branches) {
      const arm = armHole(own, b.label);
      const proven = b.count === 0 && isProven(arm ?? {});
      const waived = b.count === 0 && arm && waiverText(arm) !== undefined;
      parts.push(
        `- ${b.label}: ${b.count > 0 ? `${b.count}×` : proven ? 'never taken (proven unreachable)' : waived ? `never taken (waived ${arm.waiver?.category ?? ''})` : '**never taken**'}`,
      );
    }
    if (here.missingToggles.length) parts.push(`- toggles never seen: ${here.missingToggles.slice(0, 8).join(', ')}`);
    // FSM states (on their case item) and arcs (on their assignment).
    for (const f of here.fsm ?? []) {
      const what = f.kind === 'fsm_state' ? 'state' : 'arc';
      parts.push(
        `- FSM ${what} ${f.label}: ${f.count > 0 ? `${f.count}×` : f.kind === 'fsm_state' ? '**never visited**' : '**never taken**'}`,
      );
    }
  }
  parts.push(...verdictLines(holes.filter((h) => h.file === file && h.line === pos.line + 1 && h.kind !== 'toggle')));
  if (!parts.length) return null;
  return { contents: { kind: 'markdown', value: parts.join('\n') } };
}

/**
 * One line per distinct point: `Proven unreachable by …` for proven points, the waiver (category, who, why, proof)
 * for waived ones, the formal engine's reason for holes.
 */
function verdictLines(holes: Hole[]): string[] {
  const out = new Set<string>();
  for (const h of holes) {
    const proven = provenText(h);
    const undecided = formalText(h);
    const waived = waiverText(h);
    if (proven) out.add(`- ${h.detail}: **${proven}**`);
    else if (waived) out.add(`- ${h.detail}: **${waived}**`);
    else if (undecided) out.add(`- ${h.detail}: ${undecided}`);
  }
  return [...out];
}
