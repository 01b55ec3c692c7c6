/**
 * How much of a round's prompt is shown: the uncovered list and logs in full, then shorter, then the replayed
 * testbench itself in part. The loop walks down these levels until the prompt fits the context.
 */
import { FULL_DETAIL, type FeedbackDetail } from './feedback';

export interface PromptDetail extends FeedbackDetail {
  /** Show the replayed testbench as its first and last lines, this many in all; whole when absent. */
  testbenchLines?: number;
}

export const DETAIL_LEVELS: readonly PromptDetail[] = [
  FULL_DETAIL,
  { holeLines: 15, logChars: 1200 },
  { holeLines: 6, logChars: 400 },
  { holeLines: 3, logChars: 200 },
  { holeLines: 3, logChars: 200, testbenchLines: 240 },
  { holeLines: 3, logChars: 200, testbenchLines: 80 },
];

/** The testbench's first and last lines with a count of what was left out between them. */
export function shortenTestbench(testbench: string, lines: number | undefined): string {
  const all = testbench.replace(/\s+$/, '').split('\n');
  if (lines === undefined || all.length <= lines) return all.join('\n');
  const head = Math.ceil(lines * 0.6);
  const tail = lines - head;
  return [
    ...all.slice(0, head),
    `  // … ${all.length - head - tail} lines left out to fit the context …`,
    ...all.slice(all.length - tail),
  ].join('\n');
}
