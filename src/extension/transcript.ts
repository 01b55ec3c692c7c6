/**
 * The host's record of what it posted to the chat panel, replayed (`restore`) to a panel that opens or reloads
 * later. Streamed pieces are merged so a long run stays a short record; only the last few runs are kept. Pure.
 */
import type { HostToWebview } from '../protocol';

export const KEPT_RUNS = 5;

export class Transcript {
  private messages: HostToWebview[] = [];
  private readonly questions = new Map<string, string>();

  /** Remembers the question of an ask, so a replay can show it. */
  noteQuestion(askId: string, question: string): void {
    this.questions.set(askId, question);
  }

  add(msg: HostToWebview): void {
    if (msg.type === 'reset') {
      this.messages = [];
      this.questions.clear();
      return;
    }
    if (msg.type === 'restore' || msg.type === 'modelStatus') return;
    const last = this.messages[this.messages.length - 1];
    if (
      msg.type === 'loopEvent' &&
      msg.event.type === 'tokens' &&
      last?.type === 'loopEvent' &&
      last.runId === msg.runId &&
      last.event.type === 'tokens' &&
      last.event.round === msg.event.round
    ) {
      this.messages[this.messages.length - 1] = {
        ...last,
        event: { ...last.event, text: last.event.text + msg.event.text },
      };
      return;
    }
    if (msg.type === 'askChunk') {
      const prev = this.messages.findIndex((m) => m.type === 'askChunk' && m.askId === msg.askId);
      if (prev >= 0) {
        const p = this.messages[prev] as typeof msg;
        this.messages[prev] = { ...p, text: p.text + msg.text, done: msg.done, error: msg.error ?? p.error };
        return;
      }
      const question = this.questions.get(msg.askId);
      this.messages.push(question !== undefined ? { ...msg, question } : msg);
      return;
    }
    if (msg.type === 'runStart') this.trimRuns();
    this.messages.push(msg);
  }

  /** Drops the oldest runs (and everything before them) once `KEPT_RUNS` are recorded. */
  private trimRuns(): void {
    const starts = this.messages.flatMap((m, i) => (m.type === 'runStart' ? [i] : []));
    if (starts.length < KEPT_RUNS) return;
    this.messages = this.messages.slice(starts[starts.length - KEPT_RUNS + 1]);
  }

  runIds(): string[] {
    return this.messages.flatMap((m) => (m.type === 'runStart' ? [m.run.runId] : []));
  }

  /** What a panel that already shows `shown` runs needs: a restore when the host knows more, else nothing. */
  restoreFor(shown: readonly string[]): HostToWebview | undefined {
    const known = this.runIds();
    const missing = known.some((id) => !shown.includes(id));
    const asks = this.messages.some((m) => m.type === 'askChunk' || m.type === 'notice');
    if (!missing && !(asks && shown.length === 0)) return undefined;
    return { type: 'restore', messages: [...this.messages] };
  }

  get length(): number {
    return this.messages.length;
  }
}
