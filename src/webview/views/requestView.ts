/** The top of a run: what the user asked for (DUT, targets, model). */
import { fill, h } from '../dom';
import { formatClock, formatTargets } from '../format';
import { RunEntryView, type ViewContext } from './context';

export class RequestView extends RunEntryView {
  constructor(ctx: ViewContext, runId: string) {
    super(h('article', { class: 'bubble user request' }), ctx, runId);
  }

  update(): void {
    const info = this.ctx.model.runs[this.runId]?.info;
    if (!info || !this.gate.changed(info)) return;
    const meta: [string, string][] = [['Targets', formatTargets(info.targets)]];
    meta.push(['Engine', info.maxRounds ? `${info.engine}, up to ${info.maxRounds} rounds` : info.engine]);
    if (info.model) meta.push(['Model', info.model]);
    if (info.files.length) meta.push([info.files.length === 1 ? 'File' : 'Files', info.files.join(', ')]);
    fill(
      this.el,
      h(
        'div',
        { class: 'who' },
        h('span', {}, 'You'),
        h('time', { datetime: info.startedAt ?? '' }, formatClock(info.startedAt)),
      ),
      h('p', { class: 'request-title' }, 'Close coverage on ', h('code', {}, info.dut || 'the design')),
      h('dl', { class: 'meta' }, ...meta.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
    );
  }
}
