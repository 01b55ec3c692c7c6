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
