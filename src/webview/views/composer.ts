/**
 * Where the user talks to the loop: steer the next round, or ask a question (the mode switch, or a leading "?").
 * Enter sends, Shift+Enter starts a new line. Stop and Retry act on the latest run.
 */
import { h } from '../dom';
import { interpretInput, type ComposerMode } from '../model';
import type { ViewContext } from './context';

export interface ComposerActions {
  send(mode: ComposerMode, text: string): void;
  stop(): void;
  retry(): void;
  setMode(mode: ComposerMode): void;
  draftChanged(text: string): void;
}

const PLACEHOLDER: Record<ComposerMode, string> = {
  steer: 'Steer the next round, e.g. “drive back-to-back pushes while full”',
  ask: 'Ask about the design or its holes, e.g. “why is the else arm of line 44 never taken?”',
};

export class Composer {
  readonly el: HTMLElement;
  private readonly input = h('vscode-textarea', {
    class: 'composer-input',
    rows: 3,
    resize: 'vertical',
    'aria-label': 'Message to CHORUS',
  });
  private readonly steerRadio = h('vscode-radio', { name: 'composer-mode', value: 'steer', label: 'Steer next round' });
  private readonly askRadio = h('vscode-radio', { name: 'composer-mode', value: 'ask', label: 'Ask a question' });
  private readonly hint = h('span', { class: 'hint', id: 'composer-hint' });
  private readonly send = h('vscode-button', { class: 'send' }, 'Steer');
  private readonly stopButton = h('vscode-button', { class: 'stop', secondary: true, title: 'Stop the run' }, 'Stop');
  private readonly retryButton = h(
    'vscode-button',
    { class: 'retry', secondary: true, title: 'Run the same request again' },
    'Retry',
  );

  constructor(
    private readonly ctx: ViewContext,
    private readonly actions: ComposerActions,
  ) {
    this.input.setAttribute('aria-describedby', 'composer-hint');
    const modes = h(
      'vscode-radio-group',
      { class: 'modes', 'aria-label': 'What your message does' },
      this.steerRadio,
      this.askRadio,
    );
    modes.addEventListener('change', () => this.actions.setMode(this.askRadio.checked ? 'ask' : 'steer'));
    this.input.addEventListener('keydown', (e) => {
      // IME composition uses Enter to accept a candidate: never send then.
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && !e.altKey && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        this.submit();
      }
    });
    this.input.addEventListener('input', () => {
      this.actions.draftChanged(this.input.value);
      this.refreshLabels();
    });
    this.send.addEventListener('click', () => this.submit());
    this.stopButton.addEventListener('click', () => this.actions.stop());
    this.retryButton.addEventListener('click', () => this.actions.retry());
    this.el = h(
      'div',
      { class: 'composer', role: 'form', 'aria-label': 'Talk to CHORUS' },
      modes,
      this.input,
      h(
        'div',
        { class: 'composer-row' },
        this.hint,
        h('span', { class: 'spacer' }),
        this.stopButton,
        this.retryButton,
        this.send,
      ),
    );
  }

  /** Puts the saved draft back (after a reload). */
  restoreDraft(text: string): void {
    this.input.value = text;
    this.refreshLabels();
  }

  focus(): void {
    this.input.focus();
  }

  private submit(): void {
    const { mode, text } = interpretInput(this.input.value, this.ctx.model.mode);
    if (!text) return;
    this.actions.send(mode, text);
    this.input.value = '';
    this.actions.draftChanged('');
    this.refreshLabels();
  }

  update(): void {
    const model = this.ctx.model;
    this.steerRadio.checked = model.mode === 'steer';
    this.askRadio.checked = model.mode === 'ask';
    const live = model.liveRunId !== undefined;
    this.stopButton.disabled = !live;
    this.retryButton.disabled = live || model.lastRunId === undefined;
    this.refreshLabels();
  }

  private refreshLabels(): void {
    const { mode } = interpretInput(this.input.value, this.ctx.model.mode);
    this.input.placeholder = PLACEHOLDER[this.ctx.model.mode];
    this.send.textContent = mode === 'ask' ? 'Ask' : 'Steer';
    this.send.setAttribute(
      'aria-label',
      mode === 'ask' ? 'Ask the question' : 'Send the instruction for the next round',
    );
    const live = this.ctx.model.liveRunId !== undefined;
    this.hint.textContent =
      mode === 'ask'
        ? this.ctx.model.mode === 'ask'
          ? 'Enter asks · Shift+Enter: new line'
          : 'Starts with “?”: sent as a question · Enter asks'
        : `Enter ${live ? 'steers the next round' : 'sends (no run is going: it applies to the next one)'} · Shift+Enter: new line · start with “?” to ask`;
  }
}
