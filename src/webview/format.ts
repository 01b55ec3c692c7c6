/** Number and label formatting for the panel: one place so cards, chart and status read alike. */
import type { ModelStatus, ReportedKind, RunStatus, TargetMetric, Targets } from '../protocol';

export const KIND_LABEL: Record<ReportedKind, string> = {
  line: 'Line',
  branch: 'Branch',
  toggle: 'Toggle',
  fsm_state: 'FSM state',
  fsm_arc: 'FSM arc',
  expr: 'Expression',
};

export function formatPct(pct: number): string {
  return `${pct.toFixed(1)}%`;
}

/** `+12.5`, `−3.0` or `±0` percentage points; `undefined` for the first measurement. */
export function formatDelta(pct: number, previous: number | undefined): string | undefined {
  if (previous === undefined) return undefined;
  const d = Math.round((pct - previous) * 10) / 10;
  if (d === 0) return '±0';
  return d > 0 ? `+${d.toFixed(1)}` : `−${Math.abs(d).toFixed(1)}`;
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatTargets(targets: Targets): string {
  const parts = (Object.entries(targets) as [TargetMetric, number][]).map(([metric, pct]) => `${metric} ${pct}%`);
  return parts.length ? parts.join(' · ') : 'none';
}

/** Local `HH:MM` of an ISO time; empty when unparsable. */
export function formatClock(iso: string | undefined): string {
  if (!iso) return '';
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return '';
  return t.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

export type StageState = 'pending' | 'ok' | 'failed' | 'warning' | 'skipped';

/** What a run status means for the compile stage and the simulation stage. */
export function compileState(status: RunStatus): StageState {
  return status === 'compile_error' || status === 'rejected' ? 'failed' : 'ok';
}

export function simulationState(status: RunStatus): StageState {
  if (status === 'ok') return 'ok';
  if (status === 'timeout') return 'warning';
  return 'failed';
}

export const STATUS_TEXT: Record<RunStatus, string> = {
  ok: 'ok',
  compile_error: 'compile error',
  sim_error: 'simulation error',
  timeout: 'stopped at the time bound',
  rejected: 'rejected by the sandbox check',
  resource_limit: 'stopped at a resource limit',
};

/** The status line's words for the model. */
export function describeModel(status: ModelStatus | undefined): string {
  if (!status) return 'Model: waiting for the extension…';
  const name = status.model ?? 'no model';
  const backend = status.backend ? ` (${status.backend})` : '';
  switch (status.state) {
    case 'not_configured':
      return status.message ?? 'No model configured: set chorus.model, or use the random engine.';
    case 'loading':
      return `Loading ${name}${status.percent !== undefined ? ` — ${Math.round(status.percent)}%` : '…'}`;
    case 'ready':
      return `${name} — ready${backend}`;
    case 'generating':
      return `${name} — generating${status.tokensPerSecond !== undefined ? `, ${status.tokensPerSecond.toFixed(1)} tok/s` : ''}${backend}`;
    case 'error':
      return `${name} — ${status.message ?? 'error'}`;
  }
}
