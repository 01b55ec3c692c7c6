/** Coverage targets: parsing `line=100,branch=90,fsm=100`, checking a summary against them, the overall figure. */
import {
  ChorusError,
  FSM_KINDS,
  shownKinds,
  totalsOf,
  type CoverageSummary,
  type TargetMetric,
  type Targets,
} from '../protocol';
export { overallPct, metricPct, unmetTargets, meetsTargets, emptySummary, coveredGain as gain } from '../protocol';

const METRICS: TargetMetric[] = ['line', 'branch', 'toggle', 'fsm_state', 'fsm_arc', 'expr', 'overall'];
/** Names a user may write for a target: every metric, `fsm` for both FSM kinds, `state`/`arc` for one. */
const ALIASES: Record<string, readonly TargetMetric[]> = { fsm: FSM_KINDS, state: ['fsm_state'], arc: ['fsm_arc'] };

export function parseTargets(text: string): Targets {
  const targets: Targets = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([a-z_]+)\s*=\s*(\d+(?:\.\d+)?)%?$/i.exec(part);
    if (!m) throw new ChorusError('bad_input', `Bad target '${part}': write kind=percent, e.g. line=100,branch=90.`);
    const name = m[1].toLowerCase();
    const metrics = ALIASES[name] ?? (METRICS.includes(name as TargetMetric) ? [name as TargetMetric] : undefined);
    if (!metrics)
      throw new ChorusError(
        'bad_input',
        `Unknown coverage kind '${m[1]}' in --target: use ${[...METRICS, 'fsm'].join(', ')}.`,
      );
    const pct = Number(m[2]);
    if (pct < 0 || pct > 100) throw new ChorusError('bad_input', `Target ${name}=${pct} is outside 0..100.`);
    for (const metric of metrics) targets[metric] = pct;
  }
  if (!Object.keys(targets).length)
    throw new ChorusError('bad_input', 'No coverage targets given: write e.g. line=100,branch=100.');
  return targets;
}

export function formatSummary(s: CoverageSummary): string {
  return shownKinds(s)
    .filter((k) => totalsOf(s, k).total > 0)
    .map((k) => {
      const t = totalsOf(s, k);
      return `${k} ${t.pct}% (${t.covered}/${t.total})`;
    })
    .join(', ');
}

export function formatTargets(t: Targets): string {
  return Object.entries(t)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}
