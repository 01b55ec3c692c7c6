/** The model's state in one line at the top: name, readiness, loading progress, speed, errors. */
import { h } from '../dom';
import { describeModel } from '../format';
import type { ViewContext } from './context';

export class StatusLine {
  readonly el: HTMLElement;
  private readonly dot = h('span', { class: 'dot', 'aria-hidden': 'true' });
  private readonly text = h('span', { class: 'status-text' });
  private readonly progress = h('vscode-progress-bar', {
    class: 'status-progress',
    hidden: true,
    'aria-label': 'Model loading',
  });

  constructor(private readonly ctx: ViewContext) {
    this.el = h(
      'div',
      { class: 'status-line', role: 'status', 'aria-live': 'polite' },
      this.dot,
      this.text,
      this.progress,
    );
  }

  update(): void {
    const status = this.ctx.model.modelStatus;
    this.el.dataset.state = status?.state ?? 'unknown';
    this.text.textContent = describeModel(status);
    this.text.title = status?.message ?? this.text.textContent;
    const loading = status?.state === 'loading';
    this.progress.hidden = !loading;
    if (loading) {
      if (status.percent !== undefined) {
        this.progress.indeterminate = false;
        this.progress.value = status.percent;
      } else {
        this.progress.indeterminate = true;
      }
    }
  }
}
