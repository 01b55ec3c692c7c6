/** What every view gets: the model it draws and the way back to the host. */
import type { WebviewToHost } from '../../protocol';
import type { PanelModel } from '../model';

export interface ViewContext {
  readonly model: PanelModel;
  post(message: WebviewToHost): void;
  /** Says something to screen readers (a polite live region). */
  announce(text: string): void;
}

/** A transcript entry on screen: `update` redraws what changed since the last call. */
export interface EntryView {
  readonly el: HTMLElement;
  update(): void;
}

/** Remembers what a view last drew, so `update` can skip redrawing the same state. */
export class ChangeGate {
  private seen = '';

  /** True, and remembered, when `state` differs from the last one passed. */
  changed(state: unknown): boolean {
    const sig = JSON.stringify(state);
    if (sig === this.seen) return false;
    this.seen = sig;
    return true;
  }
}

/** A transcript entry that shows part of one run (its request, its result). */
export abstract class RunEntryView implements EntryView {
  protected readonly gate = new ChangeGate();

  constructor(
    readonly el: HTMLElement,
    protected readonly ctx: ViewContext,
    protected readonly runId: string,
  ) {
    el.dataset.run = runId;
  }

  abstract update(): void;
}
