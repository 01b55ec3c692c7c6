/**
 * CI summaries of a run, from its verdict (src/engine/verdict.ts): a JSON file for scripts and a Markdown table fit
 * for a pull-request comment. Both begin with a mark of their own, so the output rule knows CHORUS wrote them.
 */
import { basename } from 'node:path';
import { shownKinds, totalsOf, type GenerateResult } from '../protocol';

export const SUMMARY_JSON_HEADER = '{\n  "chorus": "summary"';
export const SUMMARY_MD_HEADER = '<!-- chorus summary -->';

type Summarised = Pick<
  GenerateResult,
  'top' | 'engine' | 'targets' | 'coverage' | 'verdict' | 'stopReason' | 'waivers' | 'regression'
>;

export function summaryJson(r: Summarised): string {
  const body = {
    chorus: 'summary',
    top: r.top,
    engine: r.engine,
    stopReason: r.stopReason,
    targets: r.targets,
    raw: r.coverage,
    ...(r.verdict ? { verdict: r.verdict } : {}),
    ...(r.waivers ? { waivers: { ...r.waivers, file: basename(r.waivers.file) } } : {}),
    // `raw` above is the merge's; the regression and what CHORUS adds to it beside it.
    ...(r.regression ? { regression: r.regression } : {}),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

export function summaryMarkdown(r: Summarised): string {
  const v = r.verdict;
  const head = v?.met ? '✅ targets met' : '❌ targets not met';
  const lines = [
    SUMMARY_MD_HEADER,
    `### CHORUS coverage: \`${r.top}\` — ${head}${v?.closed ? ', closed' : ''}`,
    '',
    '| kind | covered | raw | excluded | signoff | target |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const k of shownKinds(r.coverage)) {
    const raw = totalsOf(r.coverage, k);
    const e = v?.excluded[k];
    const judged = v ? totalsOf(v.coverage, k) : raw;
    const target = r.targets[k];
    lines.push(
      `| ${k} | ${raw.covered}/${raw.total} | ${raw.pct}% | ${e ? e.proven + e.waived : 0} | ${judged.pct}% | ${target !== undefined ? `${target}%` : ''} |`,
    );
  }
  lines.push('');
  if (v?.unmet.length) lines.push(`Missed: ${v.unmet.map((u) => `${u.metric} ${u.pct}% of ${u.target}%`).join(', ')}.`);
  if (v)
    lines.push(
      `Counting: ${v.counting === 'raw' ? 'raw (--require-raw)' : 'signoff (proven and waived points excluded)'}.`,
    );
  const reg = r.regression;
  if (reg) {
    const added = shownKinds(reg.added)
      .map((k) => `${k} +${totalsOf(reg.added, k).covered}`)
      .join(', ');
    lines.push(
      '',
      `On top of the regression (${reg.files.length} coverage file(s)): the table is the merge; CHORUS's testbench adds ${added}.`,
    );
  }
  if (r.waivers?.stale.length)
    lines.push('', `**${r.waivers.stale.length} stale waiver(s)** in \`${basename(r.waivers.file)}\`: review them.`);
  return `${lines.join('\n')}\n`;
}
