/**
 * The dense reward CHORUS was trained on, and the follow-up the model would read after a testbench, for a reward
 * server: R = 1 + c when the testbench built and ran (c in [0, 1]: the mean of the asked metrics' covered
 * fractions), 0 otherwise; the feedback is the loop's own follow-up for a whole-file reply.
 */
import { basename } from 'node:path';
import { metricPct, type CoverageReport, type CoverageSummary, type RewardMetric, type Targets } from '../protocol';
import { edaBullets, nextInstruction } from './llm/feedback';
import { buildFollowupMessage } from './llm/prompt';

/** A metric's covered fraction in [0, 1]: the kinds' percentages (coverageMath), combined kinds by their points. */
export function coveredFraction(s: CoverageSummary, metric: RewardMetric): number {
  if (metric === 'fsm') return pooled(s, ['fsm_state', 'fsm_arc']);
  if (metric === 'code') return pooled(s, ['line', 'branch']);
  return metricPct(s, metric) / 100;
}

/** Covered of total over several kinds together; with no points of them, as coverageMath reads an absent kind. */
function pooled(s: CoverageSummary, kinds: ['line', 'branch'] | ['fsm_state', 'fsm_arc']): number {
  const covered = kinds.reduce((n, k) => n + (s[k]?.covered ?? 0), 0);
  const total = kinds.reduce((n, k) => n + (s[k]?.total ?? 0), 0);
  return total ? covered / total : metricPct(s, kinds[0]) / 100;
}

export interface Reward {
  /** 0 when the testbench did not build or run; else 1 + `coverage`. */
  reward: number;
  /** The mean of the asked metrics' covered fractions (0 when it did not run). */
  coverage: number;
  /** Each asked metric's covered fraction. */
  fractions: Partial<Record<RewardMetric, number>>;
}

/** The reward of one measured testbench over `metrics` (default: overall, the paper's reward). */
export function rewardOf(report: CoverageReport, metrics: readonly RewardMetric[] = ['overall']): Reward {
  const asked = metrics.length ? [...new Set(metrics)] : (['overall'] as const);
  if (report.status !== 'ok') return { reward: 0, coverage: 0, fractions: {} };
  const fractions = Object.fromEntries(asked.map((m) => [m, round(coveredFraction(report.coverage, m))]));
  const coverage = round(asked.reduce((a, m) => a + (fractions[m] ?? 0), 0) / asked.length);
  return { reward: round(1 + coverage), coverage, fractions };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/**
 * The follow-up message the loop would send after a whole-file reply naming `filename`: the parse section, the EDA
 * result (coverage, targets, holes, or the build/run log) and the next instruction. Files are named by base name,
 * as in the loop's prompts.
 */
export function nextRoundFeedback(
  report: CoverageReport,
  filename: string,
  targets: Targets = {},
  name: (file: string) => string = basename,
): string {
  return buildFollowupMessage({
    parse: { status: 'success', type: 'file', filename },
    eda: edaBullets(report, targets, name),
    instruction: nextInstruction(report, []),
  }).content;
}
