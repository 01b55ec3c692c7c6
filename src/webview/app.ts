/** The panel's controller: host messages and user actions change the model; a frame later the views catch up. */
import { isHostToWebview, type WebviewToHost } from '../protocol';
import { h } from './dom';
import { FrameScheduler, throttle } from './frameScheduler';
import {
  addAsk,
  addSteer,
  applyHostMessage,
  createModel,
  restoreModel,
  type ComposerMode,
  type Dirty,
  type PanelModel,
} from './model';
import { Composer } from './views/composer';
import type { ViewContext } from './views/context';
import { Dashboard } from './views/dashboard';
import { StatusLine } from './views/statusLine';
import { Transcript } from './views/transcript';
import type { VsCodeApi } from './vscodeApi';

/** How often the transcript is written to the webview state while events stream. */
const SAVE_EVERY_MS = 500;

export class PanelApp implements ViewContext {
  readonly model: PanelModel;
  private readonly dirty: Dirty = new Set(['all', 'status', 'dashboard', 'controls']);
  private readonly scheduler = new FrameScheduler(() => this.flush());
  private readonly save = throttle(() => this.api.setState(this.model), SAVE_EVERY_MS);
  private readonly liveRegion = h('div', { class: 'visually-hidden', 'aria-live': 'polite', role: 'status' });
  private readonly status: StatusLine;
  private readonly dashboard: Dashboard;
  private readonly transcript: Transcript;
  private readonly composer: Composer;
  private readonly restoredRuns: string[];

  constructor(
    private readonly root: HTMLElement,
    private readonly api: VsCodeApi<PanelModel>,
  ) {
    const saved = restoreModel(api.getState());
    this.model = saved ?? createModel();
    this.restoredRuns = saved ? Object.keys(saved.runs) : [];
    this.status = new StatusLine(this);
    this.dashboard = new Dashboard(this, (open) => {
      this.model.dashboardOpen = open;
      this.touch('dashboard');
    });
    this.transcript = new Transcript(this);
    this.composer = new Composer(this, {
      send: (mode, text) => this.send(mode, text),
      stop: () => this.model.liveRunId && this.post({ type: 'stop', runId: this.model.liveRunId }),
      retry: () => this.model.lastRunId && this.post({ type: 'retry', runId: this.model.lastRunId }),
      setMode: (mode) => {
        this.model.mode = mode;
        this.touch('controls');
      },
      draftChanged: (text) => {
        this.model.draft = text;
        this.save();
      },
    });
  }

  start(): void {
    this.root.replaceChildren(
      h('header', { class: 'top' }, this.status.el),
      h('main', { class: 'body' }, this.transcript.el, h('aside', { class: 'side' }, this.dashboard.el)),
      h('footer', { class: 'bottom' }, this.composer.el),
      this.liveRegion,
    );
    this.composer.restoreDraft(this.model.draft);
    window.addEventListener('message', (e: MessageEvent<unknown>) => {
      if (isHostToWebview(e.data)) this.receive(e.data);
    });
    // A reload or a hidden view tears the page down: write what is pending first.
    window.addEventListener('pagehide', () => this.save.now());
    this.flush();
    this.post({ type: 'ready', restoredRuns: this.restoredRuns });
  }

  post(message: WebviewToHost): void {
    this.api.postMessage(message);
  }

  announce(text: string): void {
    if (text) this.liveRegion.textContent = text;
  }

  private receive(msg: Parameters<typeof applyHostMessage>[1]): void {
    applyHostMessage(this.model, msg, this.dirty);
    this.scheduler.schedule();
  }

  private touch(...what: string[]): void {
    for (const w of what) this.dirty.add(w);
    this.scheduler.schedule();
  }

  private send(mode: ComposerMode, text: string): void {
    if (mode === 'ask') {
      const entry = addAsk(this.model, text, this.dirty);
      this.post({ type: 'ask', askId: entry.askId, question: text, runId: this.model.lastRunId });
    } else {
      const entry = addSteer(this.model, text, this.dirty);
      this.post({ type: 'steer', steerId: entry.steerId, text, runId: this.model.liveRunId });
    }
    this.scheduler.schedule();
    this.transcript.el.scrollTop = this.transcript.el.scrollHeight;
  }

  private flush(): void {
    const dirty = new Set(this.dirty);
    this.dirty.clear();
    const scroller = this.transcript.el;
    // Follow the stream only when the user is at the bottom already: reading older rounds must not jump.
    const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 48;
    const all = dirty.has('all');
    if (all || dirty.has('status')) this.status.update();
    if (all || dirty.has('dashboard') || dirty.has('controls')) this.dashboard.update();
    if (all || dirty.has('controls')) this.composer.update();
    this.transcript.update(dirty);
    if (atBottom) scroller.scrollTop = scroller.scrollHeight;
    this.save();
  }
}
