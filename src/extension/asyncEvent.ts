/**
 * An event whose listeners may be async, and whose `fire` resolves once every listener has settled. A run's
 * end goes through one, so the run counts as done only after its result is published.
 */
import type * as vscode from 'vscode';

export type AsyncListener<T> = (e: T) => void | Promise<void>;
export type AsyncEvent<T> = (listener: AsyncListener<T>) => vscode.Disposable;

export class AsyncEmitter<T> implements vscode.Disposable {
  private readonly listeners = new Set<AsyncListener<T>>();

  readonly event: AsyncEvent<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  };

  /** Calls every listener at once (none waits for another); rejects with the first failure once all settled. */
  async fire(e: T): Promise<void> {
    const settled = await Promise.allSettled([...this.listeners].map(async (listener) => listener(e)));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  }

  dispose(): void {
    this.listeners.clear();
  }
}
