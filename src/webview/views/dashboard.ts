/** Coverage of the latest run at a glance: a compact summary, and (expanded) the chart and the holes. */
import { isMeasured, isProven, shownKinds, totalsOf } from '../../protocol';
import { fill, h } from '../dom';
import { formatPct } from '../format';
import { coverageChart, measuredRounds } from './chartView';
import type { ViewContext } from './context';
import { holesList } from './holesView';

export class Dashboard {
  readonly el: HTMLElement;
  private readonly toggle: HTMLButtonElement;
  private readonly summary = h('span', { class: 'dash-summary' });
  private readonly body = h('div', { class: 'dash-body', id: 'dash-body' });
  private readonly chartSlot = h('div', { class: 'chart-slot' });
  private readonly holesTitle = h('h3', { class: 'holes-title', id: 'holes-title' }, 'Remaining holes');
  private readonly holesSlot = h('div', { class: 'holes-slot' });
  private showAll = false;

  constructor(
    private readonly ctx: ViewContext,
    private readonly onToggle: (open: boolean) => void,
  ) {
    this.toggle = h(
      'button',
      { class: 'dash-toggle', type: 'button', 'aria-controls': 'dash-body' },
      h('span', { class: 'chevron', 'aria-hidden': 'true' }),
      h('h2', { class: 'dash-title' }, 'Coverage'),
      this.summary,
    );
    this.toggle.addEventListener('click', () => this.onToggle(!this.ctx.model.dashboardOpen));
    this.body.append(
      this.chartSlot,
      h('section', { class: 'holes-section', 'aria-labelledby': 'holes-title' }, this.holesTitle, this.holesSlot),
    );
    this.el = h('section', { class: 'dashboard', 'aria-label': 'Coverage of the latest run' }, this.toggle, this.body);
  }

  update(): void {
    const model = this.ctx.model;
    const open = model.dashboardOpen;
    this.toggle.setAttribute('aria-expanded', String(open));
    this.el.classList.toggle('open', open);
    this.body.hidden = !open;
    const run = model.lastRunId ? model.runs[model.lastRunId] : undefined;
    this.el.hidden = !run;
    if (!run) return;
    const rounds = measuredRounds(run);
    const last = rounds[rounds.length - 1];
    fill(
      this.summary,
      h('span', { class: 'dash-dut' }, run.info.dut),
      last
        ? ` · round ${last.round} · ${shownKinds(last.coverage)
            .map((k) => `${k} ${formatPct(totalsOf(last.coverage, k).pct)}`)
            .join(' · ')}`
        : run.result || run.ended
          ? ' · nothing measured'
          : ' · waiting for the first round',
    );
    fill(this.chartSlot, coverageChart(run, run.info.targets));
    const measured = rounds.length > 0 || (run.result !== undefined && isMeasured(run.result.coverage));
    // Points proven unreachable are listed but are no holes: the badge counts the rest.
    const holesLeft = run.holes.filter((x) => !isProven(x)).length;
    fill(
      this.holesTitle,
      'Remaining holes ',
      measured ? h('vscode-badge', { variant: 'counter' }, String(holesLeft)) : null,
    );
    // Redrawing the list must not throw away the keyboard user's place in it.
    const focused =
      document.activeElement instanceof HTMLElement && this.holesSlot.contains(document.activeElement)
        ? `${document.activeElement.dataset.file}:${document.activeElement.dataset.line}`
        : undefined;
    fill(
      this.holesSlot,
      holesList(this.ctx, run, this.showAll, () => {
        this.showAll = true;
        this.update();
      }),
    );
    if (focused) {
      const again = [...this.holesSlot.querySelectorAll<HTMLElement>('button.hole')].find(
        (b) => `${b.dataset.file}:${b.dataset.line}` === focused,
      );
      (again ?? this.holesSlot.querySelector<HTMLElement>('button'))?.focus();
    }
  }
}
