/** The run transcript: one view per entry, created as entries appear and updated when they go stale. */
import { h } from '../dom';
import type { Dirty, Entry } from '../model';
import { AskView, NoticeView, SteerView } from './chatViews';
import type { EntryView, ViewContext } from './context';
import { RequestView } from './requestView';
import { ResultView } from './resultView';
import { RoundCard } from './roundCard';

export class Transcript {
  readonly el: HTMLElement;
  readonly list = h('div', { class: 'entries' });
  private views = new Map<string, EntryView>();
  private readonly empty = h(
    'div',
    { class: 'empty-state' },
    h('h2', {}, 'CHORUS'),
    h(
      'p',
      {},
      'Run “CHORUS: Generate high-coverage stimulus” on a Verilog or SystemVerilog file. Each round shows here: the model’s testbench, the build, and coverage closing in.',
    ),
    h('p', {}, 'While it runs, type below to steer the next round, or start with “?” to ask about the design.'),
  );

  constructor(private readonly ctx: ViewContext) {
    this.el = h(
      'div',
      { class: 'transcript', role: 'log', 'aria-label': 'Runs and messages', 'aria-live': 'off', tabindex: -1 },
      this.empty,
      this.list,
    );
  }

  private make(entry: Entry): EntryView {
    switch (entry.kind) {
      case 'request':
        return new RequestView(this.ctx, entry.runId);
      case 'round':
        return new RoundCard(this.ctx, entry.runId, entry.round);
      case 'result':
        return new ResultView(this.ctx, entry.runId);
      case 'steer':
        return new SteerView(entry);
      case 'ask':
        return new AskView(this.ctx, entry);
      case 'notice':
        return new NoticeView(entry);
    }
  }

  /** Brings the DOM up to date with the model; `dirty` names what changed. */
  update(dirty: Dirty): void {
    const entries = this.ctx.model.entries;
    if (dirty.has('all')) {
      this.views.clear();
      this.list.replaceChildren();
    }
    if (dirty.has('all') || dirty.has('entries')) {
      const keys = new Set(entries.map((e) => e.key));
      for (const [key, view] of this.views) {
        if (!keys.has(key)) {
          view.el.remove();
          this.views.delete(key);
        }
      }
      // Entries are only ever appended (or pruned from the front), so missing views go at the end in order.
      for (const entry of entries) {
        if (this.views.has(entry.key)) continue;
        const view = this.make(entry);
        this.views.set(entry.key, view);
        this.list.append(view.el);
        view.update();
      }
    }
    // A run ending (`controls`) settles its last round's chips: round and result views look again (cheap: they
    // compare before they draw).
    const settle = dirty.has('controls');
    for (const entry of entries) {
      if (dirty.has(entry.key) || (settle && (entry.kind === 'round' || entry.kind === 'result')))
        this.views.get(entry.key)?.update();
    }
    this.empty.hidden = entries.length > 0;
  }
}
