/** The top of a run: what the user asked for (DUT, targets, model). */
import { fill, h } from '../dom';
import { formatClock, formatTargets } from '../format';
import type { EntryView, ViewContext } from './context';

export class RequestView implements EntryView {
  readonly el = h('article', { class: 'bubble user request' });
  private seen = '';

  constructor(
    private readonly ctx: ViewContext,
    private readonly runId: string,
  ) {
    this.el.dataset.run = runId;
  }

  update(): void {
    const info = this.ctx.model.runs[this.runId]?.info;
    if (!info) return;
    const sig = JSON.stringify(info);
    if (sig === this.seen) return;
    this.seen = sig;
    const meta: [string, string][] = [['Targets', formatTargets(info.targets)]];
    meta.push(['Engine', info.maxRounds ? `${info.engine}, up to ${info.maxRounds} rounds` : info.engine]);
    if (info.model) meta.push(['Model', info.model]);
    if (info.files.length) meta.push([info.files.length === 1 ? 'File' : 'Files', info.files.join(', ')]);
    fill(
      this.el,
      h('div', { class: 'who' }, h('span', {}, 'You'), h('time', { datetime: info.startedAt ?? '' }, formatClock(info.startedAt))),
      h('p', { class: 'request-title' }, 'Close coverage on ', h('code', {}, info.dut || 'the design')),
      h('dl', { class: 'meta' }, ...meta.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
    );
  }
}
