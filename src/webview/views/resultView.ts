/** How a run ended: targets met or not, why it stopped, whether it is closed (formal), the final testbench. */
import { closureText, formalSummaryText, isMeasured, isProven, shownKinds, totalsOf } from '../../protocol';
import { fill, h } from '../dom';
import { formatPct } from '../format';
import { RunEntryView, type ViewContext } from './context';

export class ResultView extends RunEntryView {
  constructor(ctx: ViewContext, runId: string) {
    super(h('article', { class: 'card result' }), ctx, runId);
  }

  update(): void {
    const run = this.ctx.model.runs[this.runId];
    if (!run || !this.gate.changed([run.result?.stopReason, run.result?.stopDetail, run.result?.pass, run.ended]))
      return;
    const result = run.result;
    const ended = run.ended;
    const parts: (HTMLElement | null)[] = [];
    let tone = 'info';
    if (result) {
      const n = result.rounds.length;
      tone = result.pass ? 'ok' : 'warning';
      const head = result.pass
        ? `Targets met after ${n} ${n === 1 ? 'round' : 'rounds'}`
        : `Targets not met: stopped (${result.stopReason}${result.stopDetail ? `: ${result.stopDetail}` : ''}) after ${n} ${n === 1 ? 'round' : 'rounds'}`;
      parts.push(
        h(
          'p',
          { class: 'result-head' },
          h('span', { class: 'mark', 'aria-hidden': 'true' }, result.pass ? '✓' : '!'),
          head,
        ),
      );
      // A point proven unreachable is no hole left: counted apart.
      const proven = result.holes.filter(isProven).length;
      const holes = result.holes.length - proven;
      const measured = isMeasured(result.coverage);
      parts.push(
        h(
          'p',
          { class: 'result-cov' },
          measured
            ? shownKinds(result.coverage)
                .map((k) => `${k} ${formatPct(totalsOf(result.coverage, k).pct)}`)
                .join(' · ') +
                ` · ${holes === 0 ? 'no holes left' : `${holes} ${holes === 1 ? 'hole' : 'holes'} left`}` +
                (proven ? ` · ${proven} proven unreachable` : '')
            : 'Nothing was measured: no testbench compiled and ran.',
        ),
      );
      // Closure is about measured points: a run that measured none has no closure to report.
      const closure = measured ? closureText(result) : undefined;
      if (closure || result.formal) {
        parts.push(
          h(
            'p',
            { class: `result-closure${result.closed ? ' closed' : ''}` },
            closure ?? '',
            result.formal
              ? h('span', { class: 'result-formal' }, `${closure ? ' · ' : ''}${formalSummaryText(result.formal)}`)
              : null,
          ),
        );
      }
      if (result.testbench) {
        const lastRound = result.rounds.at(-1)?.index ?? 0;
        const open = h('vscode-button', { secondary: true }, 'Open testbench');
        open.addEventListener('click', () =>
          this.ctx.post({ type: 'openTestbench', runId: this.runId, round: lastRound, testbench: result.testbench }),
        );
        parts.push(
          h(
            'div',
            { class: 'result-tb' },
            h('span', {}, result.testbenchPath ? 'Written to ' : 'Not written to a file yet.'),
            result.testbenchPath ? h('code', {}, result.testbenchPath) : null,
            open,
          ),
        );
      }
    }
    if (ended && !(result && ended.outcome === 'completed' && !ended.message)) {
      if (!result) tone = ended.outcome === 'failed' ? 'error' : ended.outcome === 'cancelled' ? 'warning' : 'info';
      const rounds = run.rounds.length;
      const text =
        ended.outcome === 'cancelled'
          ? `Stopped${rounds ? ` during round ${rounds}` : ''}.`
          : ended.outcome === 'failed'
            ? 'The run failed.'
            : 'The run finished.';
      parts.push(
        h('p', { class: 'result-head' }, text),
        ended.message ? h('p', { class: 'result-message' }, ended.message) : null,
      );
    }
    this.el.className = `card result ${tone}`;
    fill(this.el, ...parts);
    this.ctx.announce(parts.map((p) => p?.textContent ?? '').join(' '));
  }
}
