/** Coverage targets: parsing `line=100,branch=90`, checking a summary against them, the overall figure. */
import { ChorusError, REPORTED_KINDS, type CoverageSummary, type TargetMetric, type Targets } from '../protocol';
export { overallPct, metricPct, unmetTargets, meetsTargets, emptySummary, coveredGain as gain } from '../protocol';

const METRICS: TargetMetric[] = ['line', 'branch', 'toggle', 'overall'];

export function parseTargets(text: string): Targets {
  const targets: Targets = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([a-z]+)\s*=\s*(\d+(?:\.\d+)?)%?$/i.exec(part);
    if (!m) throw new ChorusError('bad_input', `Bad target '${part}': write kind=percent, e.g. line=100,branch=90.`);
    const metric = m[1].toLowerCase() as TargetMetric;
    if (!METRICS.includes(metric)) throw new ChorusError('bad_input', `Unknown coverage kind '${m[1]}' in --target: use ${METRICS.join(', ')}.`);
    const pct = Number(m[2]);
    if (pct < 0 || pct > 100) throw new ChorusError('bad_input', `Target ${metric}=${pct} is outside 0..100.`);
    targets[metric] = pct;
  }
  if (!Object.keys(targets).length) throw new ChorusError('bad_input', 'No coverage targets given: write e.g. line=100,branch=100.');
  return targets;
}

export function formatSummary(s: CoverageSummary): string {
  return REPORTED_KINDS.filter((k) => s[k].total > 0)
    .map((k) => `${k} ${s[k].pct}% (${s[k].covered}/${s[k].total})`)
    .join(', ');
}

export function formatTargets(t: Targets): string {
  return Object.entries(t).map(([k, v]) => `${k}=${v}`).join(',');
}

