/** The user's own messages (steering, questions), the model's answers and the host's notices. */
import { fill, h } from '../dom';
import type { Entry } from '../model';
import { splitFences } from '../responseText';
import { ChangeGate, type EntryView, type ViewContext } from './context';
import { SegmentsView } from './segmentsView';

type SteerEntry = Extract<Entry, { kind: 'steer' }>;
type AskEntry = Extract<Entry, { kind: 'ask' }>;
type NoticeEntry = Extract<Entry, { kind: 'notice' }>;

export class SteerView implements EntryView {
  readonly el = h('article', { class: 'bubble user steer' });
  private readonly state = h('p', { class: 'steer-state' });
  private readonly gate = new ChangeGate();

  constructor(private readonly entry: SteerEntry) {
    this.el.append(
      h('div', { class: 'who' }, 'You → next round'),
      h('p', { class: 'user-text' }, entry.text),
      this.state,
    );
  }

  update(): void {
    const e = this.entry;
    if (!this.gate.changed([e.state, e.round, e.message])) return;
    this.el.dataset.state = e.state;
    this.state.textContent =
      e.state === 'sent'
        ? 'Sent.'
        : e.state === 'accepted'
          ? e.round !== undefined
            ? `Round ${e.round} will follow it.`
            : 'Queued for the next round.'
          : (e.message ?? 'Not applied.');
  }
}

export class AskView implements EntryView {
  readonly el: HTMLElement;
  private readonly question = h('p', { class: 'user-text' });
  private readonly answer = new SegmentsView('answer');
  private readonly state = h('p', { class: 'answer-state' });
  private readonly gate = new ChangeGate();

  constructor(
    private readonly ctx: ViewContext,
    private readonly entry: AskEntry,
  ) {
    this.el = h(
      'div',
      { class: 'ask' },
      h('article', { class: 'bubble user question' }, h('div', { class: 'who' }, 'You asked'), this.question),
      h(
        'article',
        { class: 'bubble model answer-bubble', 'aria-label': 'Answer' },
        h('div', { class: 'who' }, 'CHORUS'),
        this.answer.el,
        this.state,
      ),
    );
  }

  update(): void {
    const e = this.entry;
    if (!this.gate.changed([e.question.length, e.answer.length, e.state])) return;
    this.question.textContent = e.question || '(question)';
    this.answer.update(splitFences(e.answer));
    this.state.className = `answer-state ${e.state}`;
    this.state.textContent =
      e.state === 'error' ? (e.error ?? 'No answer.') : e.state === 'streaming' && !e.answer ? 'Thinking…' : '';
    if (e.state === 'done') this.ctx.announce('Answer complete.');
  }
}

export class NoticeView implements EntryView {
  readonly el: HTMLElement;

  constructor(entry: NoticeEntry) {
    this.el = h('p', { class: `notice ${entry.level}`, role: entry.level === 'error' ? 'alert' : undefined });
    fill(this.el, h('span', { class: 'mark', 'aria-hidden': 'true' }, entry.level === 'info' ? 'ℹ' : '!'), entry.text);
  }

  update(): void {}
}
