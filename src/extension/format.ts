/** Short texts for coverage and run progress, shared by the status bar, notifications and test results. Pure. */
import { REPORTED_KINDS } from '../protocol';
import type { CoverageSummary, LoopEvent, ReportedKind, Verdict } from '../protocol';

const SHORT: Record<ReportedKind, string> = {
  line: 'line',
  branch: 'branch',
  toggle: 'toggle',
  fsm_state: 'fsm state',
  fsm_arc: 'fsm arc',
  expr: 'expr',
};

export function pctText(pct: number): string {
  return `${Number.isInteger(pct) ? pct : pct.toFixed(1)}%`;
}

/** `line 96% · branch 88% · toggle 70%`, omitting kinds the design has no points of. */
export function summaryText(c: CoverageSummary, kinds: readonly ReportedKind[] = REPORTED_KINDS): string {
  return kinds
    .filter((k) => (c[k]?.total ?? 0) > 0)
    .map((k) => `${SHORT[k]} ${pctText(c[k]?.pct ?? 100)}`)
    .join(' · ');
}

/** `branch 88% < 100%, toggle 70% < 90%`; empty when every target is met. */
/** The targets the engine's verdict says were missed (`branch 80% < 90%`); shown here, never judged again. */
export function targetsMissed(r: { verdict?: Verdict }): string {
  return (r.verdict?.unmet ?? []).map((u) => `${u.metric} ${pctText(u.pct)} < ${pctText(u.target)}`).join(', ');
}

export interface ProgressState {
  round: number;
  maxRounds: number;
  tokens: number;
  coverage?: string;
}

/**
 * The progress notification's line for a loop event (undefined: keep the current line), and how far the bar
 * moves (percent of the whole run). Mutates `state`.
 */
export function progressStep(state: ProgressState, e: LoopEvent): { message?: string; increment?: number } {
  const cov = () => (state.coverage ? ` — ${state.coverage}` : '');
  const round = () => `Round ${state.round}${state.maxRounds ? ` of ${state.maxRounds}` : ''}`;
  switch (e.type) {
    case 'start':
      return { message: `Starting (${e.engine})…` };
    case 'roundStart':
      state.round = e.round;
      state.tokens = 0;
      return { message: `${round()}: generating…${cov()}` };
    case 'tokens':
      state.tokens += 1;
      // A progress notification is not a token counter: update on every 50th piece only.
      return state.tokens % 50 === 0 ? { message: `${round()}: writing the testbench…${cov()}` } : {};
    case 'build':
      return {
        message: `${round()}: ${e.status === 'ok' ? 'simulating' : `build ${e.status.replace('_', ' ')}`}…${cov()}`,
      };
    case 'coverage':
      state.coverage = summaryText(e.coverage);
      return { message: `${round()}${cov()}` };
    case 'roundEnd':
      return { increment: state.maxRounds ? 100 / state.maxRounds : 0 };
    case 'final':
      state.coverage = summaryText(e.result.coverage);
      return { message: `Done (${e.result.stopReason})${cov()}` };
    default:
      return {};
  }
}
