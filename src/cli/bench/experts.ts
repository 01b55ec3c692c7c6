/**
 * Which expert won: per sample, the expert whose testbench is the result, each round's kept expert, and
 * the experts whose candidates met the targets; over the bench, wins and closes per expert and the oracle (items any
 * expert closes) beside the ensemble's Pass@1, so a user sees whether a set of experts is complementary.
 */
import { meetsTargets, type GenerateResult, type Targets } from '../../protocol';

export interface SampleExperts {
  /** The expert whose testbench is the sample's result. */
  kept?: string;
  /** Each round's kept expert, in round order (null: a round without candidates, e.g. a seeded one). */
  rounds: (string | null)[];
  /** Every expert taking part, in first-seen order. */
  experts: string[];
  /** Experts at least one of whose candidates met the run's targets. */
  closedBy: string[];
}

/** The sample's expert record, or undefined when the run had one candidate per round from one model. */
export function sampleExperts(
  result: Pick<GenerateResult, 'rounds' | 'expert'> | null,
  targets: Targets,
): SampleExperts | undefined {
  if (!result || !result.rounds.some((r) => r.candidateRuns?.length)) return undefined;
  const experts: string[] = [];
  const closedBy: string[] = [];
  for (const r of result.rounds) {
    for (const c of r.candidateRuns ?? []) {
      if (!experts.includes(c.expert)) experts.push(c.expert);
      if (c.status === 'ok' && meetsTargets(c.coverage, targets) && !closedBy.includes(c.expert))
        closedBy.push(c.expert);
    }
  }
  return {
    ...(result.expert ? { kept: result.expert } : {}),
    rounds: result.rounds.map((r) => r.expert ?? null),
    experts,
    closedBy,
  };
}

export interface ExpertRow {
  expert: string;
  /** Items whose result is this expert's testbench. */
  wins: number;
  /** Items one of this expert's candidates closed. */
  closes: number;
}

export interface ExpertStats {
  rows: ExpertRow[];
  /** Items any expert closes. */
  oracle: number;
  /** Items the ensemble passed (sample 1). */
  ensemble: number;
  items: number;
}

/** Wins and closes per expert over the items' first samples; undefined when no item had several candidates. */
export function expertStats(results: readonly { pass: boolean; experts?: SampleExperts }[]): ExpertStats | undefined {
  const withExperts = results.filter((r) => r.experts);
  if (!withExperts.length) return undefined;
  const rows = new Map<string, ExpertRow>();
  const row = (expert: string) =>
    rows.get(expert) ?? (rows.set(expert, { expert, wins: 0, closes: 0 }).get(expert) as ExpertRow);
  let oracle = 0;
  for (const r of withExperts) {
    const e = r.experts as SampleExperts;
    e.experts.forEach(row);
    if (e.kept && r.pass) row(e.kept).wins++;
    for (const x of e.closedBy) row(x).closes++;
    if (e.closedBy.length) oracle++;
  }
  return { rows: [...rows.values()], oracle, ensemble: results.filter((r) => r.pass).length, items: results.length };
}

/** The table `chorus bench` prints under its summary. */
export function expertMarkdown(stats: ExpertStats): string {
  const pct = (n: number) => `${((100 * n) / Math.max(1, stats.items)).toFixed(1)}%`;
  return [
    '## Experts',
    '',
    '| Expert | Wins (passed items whose result it wrote) | Closes (items one of its candidates closed) |',
    '|---|---:|---:|',
    ...stats.rows.map((r) => `| ${r.expert} | ${r.wins} | ${r.closes} |`),
    '',
    `Oracle (items any expert closes): ${stats.oracle}/${stats.items} (${pct(stats.oracle)}) · ensemble Pass@1: ${stats.ensemble}/${stats.items} (${pct(stats.ensemble)})`,
    '',
  ].join('\n');
}
