/** What a finished round leaves behind: the clean reply to replay, the feedback the model reads next, the summary line. */
import {
  emptySummary,
  overallPct,
  type CandidateRun,
  type ChatMessage,
  type CoverageReport,
  type RoundSummary,
  type Targets,
} from '../../protocol';
import type { CandidateOutcome } from './candidate';
import { withShortened, type Attempt } from './attempt';
import { edaBullets, nextInstruction, withSteering } from './feedback';
import type { Candidate } from './parseAndPatch';
import type { PatchHunk } from './patch';
import { asFileReply, buildFollowupMessage, type Bullets } from './prompt';
import { shortenTestbench, type PromptDetail } from './promptDetail';
import { stripThinking } from './reply';
import { DEFAULT_TEMPLATES, type PromptTemplates } from './templates';
import type { Reply } from './generateReply';

/** A reply that gave no usable answer is replayed only this far: enough for the model to see what it wrote. */
const UNUSABLE_REPLAY_CHARS = 1500;

function hunkText(hunks: PatchHunk[]): string {
  return hunks
    .map((h) =>
      [
        '@@',
        ...h.pre.map((l) => ` ${l}`),
        ...h.removed.map((l) => `-${l}`),
        ...h.added.map((l) => `+${l}`),
        ...h.post.map((l) => ` ${l}`),
      ].join('\n'),
    )
    .join('\n');
}

/** The assistant turn the Markov context replays: the filename line and code, or the hunks; never the thinking. */
export function cleanReply(candidate: Candidate, replyText: string): string {
  const p = candidate.parsed;
  if (p.type === 'file' && candidate.testbench !== null) return asFileReply(candidate.filename, candidate.testbench);
  if (p.type === 'patch') return hunkText(p.hunks);
  if (p.type === 'no_changes') return 'NO_CHANGES';
  const answer = stripThinking(replyText).text.trim();
  return answer.length > UNUSABLE_REPLAY_CHARS
    ? `${answer.slice(0, UNUSABLE_REPLAY_CHARS)}\n… (${answer.length - UNUSABLE_REPLAY_CHARS} more characters left out)`
    : answer;
}

/** The follow-up message after this round's reply, at a level of detail: parse, patch, current testbench, EDA, instruction. */
export function roundFeedback(
  candidate: Candidate,
  report: CoverageReport | null,
  best: Attempt | null,
  targets: Targets,
  name?: (file: string) => string,
  templates: PromptTemplates = DEFAULT_TEMPLATES,
): (detail: PromptDetail, steering?: readonly string[]) => ChatMessage {
  const patched = candidate.parsed.type === 'patch';
  const current = patched ? (candidate.testbench ?? best?.testbench ?? undefined) : undefined;
  const instruction = report ? nextInstruction(report, []) : (candidate.instruction ?? nextInstruction(null, []));
  return (detail, steering = []) =>
    buildFollowupMessage(
      {
        parse: candidate.parseBullets,
        apply: candidate.applyBullets,
        testbench: current !== undefined ? shortenTestbench(current, detail.testbenchLines) : undefined,
        eda: report ? edaBullets(report, targets, name, detail) : undefined,
        instruction: withShortened(withSteering(instruction, steering), detail),
      },
      templates,
    );
}

/** The paper's reward: 0 unless the testbench ran, then 1 + overall coverage as a fraction. */
function reward(r: CoverageReport | null): number {
  if (!r || r.status !== 'ok') return 0;
  return Math.round((1 + overallPct(r.coverage) / 100) * 1000) / 1000;
}

function bulletsLine(b: Bullets): string {
  return Object.entries(b)
    .filter(([k]) => k !== 'uncovered' && k !== 'log')
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

export function roundSummary(
  index: number,
  reply: Reply,
  candidate: Candidate,
  report: CoverageReport | null,
): RoundSummary {
  return {
    index,
    // Nothing measured: say why (no code, cut short, empty, patch failed), never a compile status.
    status: report?.status ?? candidate.status ?? 'no_code',
    coverage: report?.coverage ?? emptySummary(),
    ms: { generate: reply.ms, build: report?.ms.build ?? 0, sim: report?.ms.sim ?? 0 },
    reward: reward(report),
    tokens: reply.completionTokens,
    promptTokens: reply.evaluatedPromptTokens,
    parse: [
      bulletsLine(candidate.parseBullets),
      candidate.applyBullets ? `apply ${bulletsLine(candidate.applyBullets)}` : '',
    ]
      .filter(Boolean)
      .join('; '),
  };
}

/** A round's candidates as the event and the summary list them: the kept one first, then in the order asked. */
export function candidateRuns(outcomes: CandidateOutcome[], kept: CandidateOutcome): CandidateRun[] {
  const ordered = [kept, ...outcomes.filter((o) => o !== kept)];
  return ordered.map((o) => {
    const report = o.measured?.report;
    const failure = o.failure?.error;
    return {
      expert: o.expert.label,
      status: report?.status ?? (failure ? 'error' : (o.candidate?.status ?? 'no_code')),
      coverage: report?.coverage ?? emptySummary(),
      kept: o === kept,
      ...(failure ? { error: failure instanceof Error ? failure.message : String(failure) } : {}),
      ...(o.candidate?.testbench ? { testbench: o.candidate.testbench } : {}),
    };
  });
}
