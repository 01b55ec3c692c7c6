/**
 * CHORUS's measurement as LLM4Cov's result (its `protocol.md`): the status mapped from CHORUS's run status, one
 * summary row per DUT instance (the top first, `level` its depth below the top), fractions in [0, 1], and the kinds
 * Verilator does not have (Block, Functional, Assertion) null. docs/serve.md says how each field is made.
 */
import { basename } from 'node:path';
import { coveredFraction, nextRoundFeedback, type MeasureResult } from '../engine';
import {
  OVERALL_KINDS,
  overallPct,
  type CoverageJob,
  type CoverageJobResult,
  type CoverageSummary,
  type Diagnostic,
  type Llm4CovMetric,
  type Llm4CovStatus,
  type ModuleSummary,
  type RunStatus,
} from '../protocol';
import type { Measurement } from './evaluate';

/** Every status but a measured run is a failed simulator run to LLM4Cov (`xrun_failed`). */
export function llm4covStatus(status: RunStatus): Llm4CovStatus {
  return status === 'ok' ? 'success' : 'xrun_failed';
}

/** `chorus coverage`'s exit codes: 0 measured, 2 rejected by the sandbox, 1 any other failure. */
export function returnCode(status: RunStatus): number {
  return status === 'ok' ? 0 : status === 'rejected' ? 2 : 1;
}

export function llm4covResult(job: CoverageJob, m: Measurement): CoverageJobResult {
  const r = m.result;
  const base = {
    returncode: returnCode(r.status),
    status: llm4covStatus(r.status),
    chorus_status: r.status,
    ...(job.job_id !== undefined ? { job_id: job.job_id } : {}),
  };
  if (r.status !== 'ok') return { ...base, err_msg: errorText(r) };
  const asked = new Set<Llm4CovMetric>(job.metrics?.length ? job.metrics : ['overall', 'code', 'fsm', 'toggle']);
  return {
    ...base,
    err_msg: '',
    cov_info: {
      summary: summaryRows(r).map(({ name, level, instance, summary }) => row(name, level, instance, summary, asked)),
      detail: job.skip_detail ? '' : nextRoundFeedback(r, basename(job.tb)),
      runtime_sec: Math.round(m.ms) / 1000,
    },
  };
}

/** The diagnostics, then the simulator's last lines: what LLM4Cov's `err_msg` carries from xrun's log. */
function errorText(r: MeasureResult): string {
  const lines = r.diagnostics.map(diagnosticLine);
  if (r.simOutput?.trim()) lines.push(...r.simOutput.trimEnd().split('\n').slice(-20));
  if (!lines.length) lines.push(...(r.notes ?? []), `the run ended with status ${r.status}`);
  return lines.join('\n');
}

function diagnosticLine(d: Diagnostic): string {
  const where = [d.file, d.line || undefined, d.line && d.column ? d.column : undefined].filter(Boolean).join(':');
  return `${where}: ${d.severity}: ${d.message}`;
}

interface Row {
  name: string;
  level: number;
  instance: string;
  summary: CoverageSummary;
}

/** The DUT's instances, the top's first, each named by its module (Verilator's name of a parameterised copy cut). */
function summaryRows(r: MeasureResult): Row[] {
  const instances = Object.entries(r.instances).sort(([a], [b]) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
  const [first] = instances;
  if (!first) return [];
  const top = depth(first[0]);
  const moduleOf = new Map<string, string>();
  for (const p of r.points)
    if (!moduleOf.has(p.hierarchy)) moduleOf.set(p.hierarchy, p.module.split('__')[0] ?? p.module);
  return instances.map(([instance, summary], i) => ({
    name: moduleOf.get(instance) ?? instance.slice(instance.lastIndexOf('.') + 1),
    level: depth(instance) - top,
    instance,
    // The top's row is the run's own coverage: what the reward and `chorus coverage` report.
    summary: i === 0 ? r.coverage : summary,
  }));
}

function depth(path: string): number {
  return path.split('.').length;
}

function row(
  name: string,
  level: number,
  instance: string,
  s: CoverageSummary,
  asked: Set<Llm4CovMetric>,
): ModuleSummary {
  const has = (k: keyof CoverageSummary) => (s[k]?.total ?? 0) > 0;
  const pct = (k: keyof CoverageSummary) => (s[k]?.pct ?? 0) / 100;
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  const codeKinds = (['line', 'branch'] as const).filter(has);
  const fsmKinds = (['fsm_state', 'fsm_arc'] as const).filter(has);
  const overallKinds = OVERALL_KINDS.filter(has);
  const pooled = (kinds: readonly (keyof CoverageSummary)[]) => {
    const total = kinds.reduce((n, k) => n + (s[k]?.total ?? 0), 0);
    return total ? kinds.reduce((n, k) => n + (s[k]?.covered ?? 0), 0) / total : null;
  };
  const only = (m: Llm4CovMetric, x: number | null) => (asked.has(m) && x !== null ? round(x) : null);
  return {
    name,
    level,
    instance,
    'Overall Average': only('overall', overallKinds.length ? overallPct(s) / 100 : null),
    'Overall Covered': only('overall', pooled(overallKinds)),
    'Code Average': only('code', mean(codeKinds.map(pct))),
    'Code Covered': only('code', codeKinds.length ? coveredFraction(s, 'code') : null),
    'Fsm Average': only('fsm', mean(fsmKinds.map(pct))),
    'Fsm Covered': only('fsm', pooled(fsmKinds)),
    'Functional Average': null,
    'Functional Covered': null,
    Toggle: only('toggle', has('toggle') ? pct('toggle') : null),
    Block: null,
    Assertion: null,
  };
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}
