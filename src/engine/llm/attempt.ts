/** One model reply as the loop keeps it, and which of two replies is the better one to continue from. */
import { meetsTargets, overallPct, type ChatMessage, type CoverageReport, type Targets } from '../../protocol';
import { edaBullets, nextInstruction, withSteering } from './feedback';
import type { PromptDetail } from './promptDetail';
import { asFileReply, buildFollowupMessage } from './prompt';
import { DEFAULT_TEMPLATES, type PromptTemplates } from './templates';

export interface Attempt {
  /** The assistant turn replayed in the Markov context: the clean answer (filename line + code, or hunks), no thinking. */
  reply: string;
  /**
   * Its follow-up: one user message at a level of detail (shorter lists and logs when the context is tight), with
   * the user's chat steering, if any, after the instruction.
   */
  feedback(detail: PromptDetail, steering?: readonly string[]): ChatMessage;
  testbench: string | null;
  filename: string;
  report: CoverageReport | null;
  /** The expert that wrote it, when a round had several candidates or experts to choose from. */
  expert?: string;
}

/** Best = runs > has coverage > targets met > coverage > was measured at all (a testbench beats no testbench). */
function rank(a: Attempt, targets: Targets): number[] {
  const r = a.report;
  const ran = r?.status === 'ok' ? 1 : 0;
  const hasCov = ran && r && r.coverage.line.total + r.coverage.branch.total + r.coverage.toggle.total > 0 ? 1 : 0;
  const met = hasCov && r && meetsTargets(r.coverage, targets) ? 1 : 0;
  return [ran, hasCov, met, r && hasCov ? overallPct(r.coverage) : 0, r && a.testbench !== null ? 1 : 0];
}

export function isBetter(a: Attempt, b: Attempt, targets: Targets): boolean {
  const ra = rank(a, targets);
  const rb = rank(b, targets);
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i] > rb[i];
  return false;
}

/** The protocol keeps the newer state on a tie: a new attempt replaces the best unless it is worse. */
export function keepsNewer(candidate: Attempt, best: Attempt | null, targets: Targets): boolean {
  return !best || !isBetter(best, candidate, targets);
}

/** A measured testbench from an earlier generator, standing as the best reply so far with its feedback. */
export function seedAttempt(
  testbench: string,
  filename: string,
  report: CoverageReport,
  targets: Targets,
  name?: (file: string) => string,
  templates: PromptTemplates = DEFAULT_TEMPLATES,
): Attempt {
  return {
    reply: asFileReply(filename, testbench),
    testbench,
    filename,
    report,
    feedback: (detail, steering = []) =>
      buildFollowupMessage(
        {
          parse: { status: 'success', type: 'file', filename },
          eda: edaBullets(report, targets, name, detail),
          instruction: withShortened(withSteering(nextInstruction(report, []), steering), detail),
        },
        templates,
      ),
  };
}

/** When the replayed testbench is shown in part, a patch cannot be applied to it: ask for the whole file. */
export function withShortened(instruction: string, detail: PromptDetail): string {
  return detail.testbenchLines === undefined
    ? instruction
    : `${instruction}\nThe testbench above is shown shortened to fit the context: answer with the whole file, not a patch.`;
}
