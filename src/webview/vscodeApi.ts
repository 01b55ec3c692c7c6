/** The webview's side of the host channel: typed `acquireVsCodeApi`. */
import type { WebviewToHost } from '../protocol';

export interface VsCodeApi<State> {
  postMessage(message: WebviewToHost): void;
  getState(): State | undefined;
  setState(state: State): State;
}

declare function acquireVsCodeApi<State>(): VsCodeApi<State>;

/** VS Code allows one call per page; keep the result. */
export function getVsCodeApi<State>(): VsCodeApi<State> {
  if (typeof acquireVsCodeApi !== 'function') {
    throw new Error('acquireVsCodeApi is missing: the CHORUS panel runs only inside a VS Code webview.');
  }
  return acquireVsCodeApi<State>();
}
