/** A source text with its line starts, and where the analysis' statement sites sit in it, as offsets. */
import type { BranchSite } from '../protocol';
import { lineStarts, offsetOf, skipSpace } from './text';

export interface SourceText {
  file: string;
  text: string;
  starts: number[];
}

export function sourceText(file: string, text: string): SourceText {
  return { file, text, starts: lineStarts(text) };
}

export const siteStart = (src: SourceText, s: BranchSite) =>
  offsetOf(src.starts, s.range.startLine, s.range.startColumn);
export const siteEnd = (src: SourceText, s: BranchSite) => offsetOf(src.starts, s.range.endLine, s.range.endColumn);

/** The if or else site that starts right after an offset with only space or comments between, if any. */
export function siteRightAfter(src: SourceText, sites: BranchSite[], offset: number): BranchSite | undefined {
  const next = skipSpace(src.text, offset);
  return sites.find((s) => (s.kind === 'if' || s.kind === 'else') && skipSpace(src.text, siteStart(src, s)) === next);
}
