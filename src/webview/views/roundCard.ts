/** One round of a run: the model's reply streaming in, its testbench, the stages, coverage and feedback. */
import {
  overallPct,
  shownKinds,
  totalsOf,
  type CandidateRun,
  type CoverageSummary,
  type Targets,
} from '../../protocol';
import { fill, h } from '../dom';
import { shortNames } from '../fileNames';
import { formatDelta, formatMs, formatPct, KIND_LABEL, STATUS_TEXT } from '../format';
import { previousCoverage, type RoundModel, type RunModel } from '../model';
import { splitFences, splitThinking } from '../responseText';
import { roundStages, type ChipState } from '../stages';
import type { EntryView, ViewContext } from './context';
import { codeBlock } from './codeBlock';
import { SegmentsView } from './segmentsView';

const CHIP_MARK: Record<ChipState, string> = {
  ok: '✓',
  failed: '✕',
  warning: '!',
  active: '…',
  pending: '·',
  skipped: '–',
};
const CHIP_WORD: Record<ChipState, string> = {
  ok: 'passed',
  failed: 'failed',
  warning: 'bounded',
  active: 'running',
  pending: 'waiting',
  skipped: 'skipped',
};

export class RoundCard implements EntryView {
  readonly el: HTMLElement;
  private readonly title: HTMLElement;
  private readonly chips = h('div', { class: 'chips' });
  private readonly steered = h('p', { class: 'steered', hidden: true });
  private readonly thinking = new SegmentsView('thinking-body');
  private readonly thinkingBox = h('details', { class: 'thinking', hidden: true });
  private readonly thinkingSummary = h('summary', {}, 'Thinking');
  private readonly reply = new SegmentsView('reply');
  private readonly testbenchSlot = h('div', { class: 'testbench-slot' });
  private readonly parseNote = h('p', { class: 'parse-note', hidden: true });
  private readonly diagnostics = h('ul', { class: 'diagnostics', hidden: true });
  private readonly coverage = h('div', { class: 'coverage-rows', hidden: true });
  private readonly candidates = h('details', { class: 'candidates', hidden: true });
  private readonly feedback = h('details', { class: 'feedback', hidden: true });
  private readonly foot = h('footer', { class: 'card-foot', hidden: true });
  private seen = {
    text: -1,
    testbench: undefined as string | undefined,
    stages: '',
    coverage: '',
    candidates: '',
    feedback: '',
    foot: '',
    diag: -1,
    thinkingOpen: false,
  };

  constructor(
    private readonly ctx: ViewContext,
    private readonly runId: string,
    private readonly index: number,
  ) {
    this.title = h('h3', { class: 'card-title', id: `t-${runId}-${index}` }, `Round ${index}`);
    this.thinkingBox.append(this.thinkingSummary, this.thinking.el);
    this.el = h(
      'article',
      { class: 'card round-card', 'data-run': runId, 'data-round': index, 'aria-labelledby': `t-${runId}-${index}` },
      h('header', { class: 'card-head' }, this.title, this.chips),
      this.steered,
      this.thinkingBox,
      this.reply.el,
      this.testbenchSlot,
      this.parseNote,
      this.diagnostics,
      this.coverage,
      this.candidates,
      this.feedback,
      this.foot,
    );
  }

  private get run(): RunModel | undefined {
    return this.ctx.model.runs[this.runId];
  }

  update(): void {
    const run = this.run;
    const round = run?.rounds.find((r) => r.index === this.index);
    if (!run || !round) return;
    const live =
      this.ctx.model.liveRunId === this.runId && !round.summary && run.rounds[run.rounds.length - 1] === round;
    this.el.classList.toggle('live', live);
    this.updateStages(round, live);
    if (round.instruction && this.steered.hidden) {
      fill(this.steered, h('span', { class: 'steered-label' }, 'Steered by you: '), round.instruction);
      this.steered.hidden = false;
    }
    this.updateText(round);
    this.updateTestbench(round);
    this.updateDiagnostics(round);
    this.updateCoverage(run, round);
    this.updateCandidates(round);
    this.updateFeedback(round);
    this.updateFoot(round);
  }

  private updateStages(round: RoundModel, live: boolean): void {
    const stages = roundStages(round, live);
    const sig = JSON.stringify(stages);
    if (sig === this.seen.stages) return;
    this.seen.stages = sig;
    const chip = (name: string, state: ChipState, detail?: string) =>
      h(
        'span',
        { class: `chip ${state}`, 'data-stage': name.toLowerCase(), title: detail ?? `${name}: ${CHIP_WORD[state]}` },
        h('span', { class: 'chip-mark', 'aria-hidden': 'true' }, CHIP_MARK[state]),
        h('span', { class: 'visually-hidden' }, `${name} ${CHIP_WORD[state]}`),
        h('span', { 'aria-hidden': 'true' }, name),
      );
    const build = round.build ? `Compile: ${STATUS_TEXT[round.build.status]}, ${formatMs(round.build.ms)}` : undefined;
    const sim = round.simStatus ? `Simulation: ${STATUS_TEXT[round.simStatus]}` : undefined;
    fill(
      this.chips,
      chip('Parse', stages.parse, round.parse ? `Parse: ${round.parse.outcome}` : undefined),
      chip('Compile', stages.compile, build),
      chip('Simulation', stages.simulation, sim),
    );
  }

  private updateText(round: RoundModel): void {
    const parsed = round.testbench !== undefined;
    // The text is append-only while streaming; the parse changes how the reply shows (its code gives way to the
    // parsed testbench), so that counts as a change too.
    const sig = round.text.length + (parsed ? 0.5 : 0);
    if (sig === this.seen.text) return;
    this.seen.text = sig;
    const split = splitThinking(round.text);
    if (split.thinking !== undefined) {
      this.thinkingBox.hidden = false;
      this.thinking.update(split.thinking ? [{ kind: 'text', text: split.thinking }] : []);
      this.thinkingSummary.textContent = split.thinkingOpen ? 'Thinking…' : 'Thinking';
      // Open while the model thinks, closed once it answers; a user's own toggling wins after that.
      if (split.thinkingOpen !== this.seen.thinkingOpen) this.thinkingBox.open = split.thinkingOpen;
      this.seen.thinkingOpen = split.thinkingOpen;
    }
    // A patch reply is its hunks: worth showing beside the patched testbench. A full reply's code is the testbench.
    const hideCode = parsed && !round.parse?.patch;
    // The code block's header names the file: the reply's `filename:` line would only repeat it.
    const answer = parsed ? split.answer.replace(/^filename:[^\n]*\n?/m, '') : split.answer;
    this.reply.update(splitFences(answer), hideCode);
  }

  private updateTestbench(round: RoundModel): void {
    const failed = round.parse !== undefined && round.testbench === undefined;
    this.parseNote.hidden = !failed;
    if (failed && round.parse) this.parseNote.textContent = `No testbench: ${round.parse.outcome}`;
    if (round.testbench === this.seen.testbench) return;
    this.seen.testbench = round.testbench;
    const text = round.testbench;
    if (text === undefined) {
      this.testbenchSlot.replaceChildren();
    } else {
      const label = `testbench of round ${this.index}`;
      const name = /^filename:\s*(\S+)/m.exec(round.text)?.[1] ?? 'Testbench';
      fill(
        this.testbenchSlot,
        codeBlock({
          title: round.parse?.patch ? `${name} (patched)` : name,
          text,
          label,
          onOpen: () => this.ctx.post({ type: 'openTestbench', runId: this.runId, round: this.index, testbench: text }),
          onApply: () =>
            this.ctx.post({ type: 'applyTestbench', runId: this.runId, round: this.index, testbench: text }),
          onCopy: () => this.ctx.post({ type: 'copy', text }),
        }),
      );
    }
  }

  private updateDiagnostics(round: RoundModel): void {
    const diags = round.build?.diagnostics ?? [];
    if (diags.length === this.seen.diag) return;
    this.seen.diag = diags.length;
    this.diagnostics.hidden = diags.length === 0;
    const name = shortNames(diags.map((d) => d.file));
    fill(
      this.diagnostics,
      ...diags
        .slice(0, 20)
        .map((d) =>
          h(
            'li',
            { class: `diag ${d.severity}` },
            h(
              'span',
              { class: 'diag-where' },
              [name(d.file), d.line || undefined, d.column || undefined].filter((p) => p !== undefined).join(':'),
            ),
            ` ${d.severity}: ${d.message}`,
          ),
        ),
      diags.length > 20 ? h('li', { class: 'diag more' }, `… and ${diags.length - 20} more`) : null,
    );
  }

  private updateCoverage(run: RunModel, round: RoundModel): void {
    const cov = round.coverage;
    const prev = previousCoverage(run, this.index);
    const sig = cov ? JSON.stringify([cov, prev, round.holeCount]) : '';
    if (sig === this.seen.coverage) return;
    this.seen.coverage = sig;
    this.coverage.hidden = !cov;
    if (!cov) return;
    fill(this.coverage, ...coverageRows(cov, prev, run.info.targets), holeLine(round.holeCount));
    if (this.ctx.model.liveRunId === this.runId) {
      this.ctx.announce(
        `Round ${this.index} coverage: ${shownKinds(cov)
          .map((k) => `${k} ${formatPct(totalsOf(cov, k).pct)}`)
          .join(', ')}.`,
      );
    }
  }

  /** Every candidate of the round: who wrote it and how it measured, the kept one first; each can be opened. */
  private updateCandidates(round: RoundModel): void {
    const list = round.candidates ?? [];
    const sig = JSON.stringify(list.map((c) => [c.expert, c.status, c.kept, c.testbench?.length]));
    if (sig === this.seen.candidates) return;
    this.seen.candidates = sig;
    this.candidates.hidden = list.length === 0;
    if (!list.length) return;
    const kept = list.find((c) => c.kept);
    fill(
      this.candidates,
      h('summary', {}, `${list.length} candidates${kept ? ` · kept: ${kept.expert}` : ''}`),
      h('ol', { class: 'candidate-list' }, ...list.map((c, i) => this.candidateRow(c, i))),
    );
  }

  private candidateRow(c: CandidateRun, position: number): HTMLElement {
    const status =
      c.status === 'error'
        ? `failed${c.error ? `: ${c.error}` : ''}`
        : c.status in STATUS_TEXT
          ? STATUS_TEXT[c.status as keyof typeof STATUS_TEXT]
          : c.status.replace(/_/g, ' ');
    const testbench = c.testbench;
    let open: HTMLElement | null = null;
    if (testbench !== undefined) {
      open = h(
        'button',
        {
          class: 'candidate-open',
          type: 'button',
          'aria-label': `Open the testbench of candidate ${position + 1} (${c.expert})`,
        },
        'Open',
      );
      open.addEventListener('click', () =>
        this.ctx.post({ type: 'openTestbench', runId: this.runId, round: this.index, testbench }),
      );
    }
    return h(
      'li',
      { class: c.kept ? 'candidate kept' : 'candidate' },
      h('span', { class: 'candidate-expert' }, c.expert),
      h('span', { class: 'candidate-status' }, c.kept ? `kept · ${status}` : status),
      h('span', { class: 'candidate-cov' }, c.status === 'ok' ? formatPct(overallPct(c.coverage)) : '–'),
      open,
    );
  }

  private updateFeedback(round: RoundModel): void {
    const text = round.feedback ?? '';
    if (text === this.seen.feedback) return;
    this.seen.feedback = text;
    this.feedback.hidden = !text;
    fill(
      this.feedback,
      h('summary', {}, 'Feedback to the model'),
      h('pre', { class: 'feedback-text', tabindex: 0 }, text),
    );
  }

  private updateFoot(round: RoundModel): void {
    const s = round.summary;
    const parts: string[] = [];
    if (s) {
      if (s.tokens !== undefined) parts.push(`${s.tokens} tokens`);
      parts.push(`generate ${formatMs(s.ms.generate)}`, `build ${formatMs(s.ms.build)}`, `sim ${formatMs(s.ms.sim)}`);
      if (s.candidates !== undefined) parts.push(`${s.candidates} candidates`);
      if (s.reward !== undefined) parts.push(`reward ${s.reward.toFixed(2)}`);
    }
    const text = parts.join(' · ');
    if (text === this.seen.foot) return;
    this.seen.foot = text;
    this.foot.hidden = !text;
    this.foot.textContent = text;
  }
}

function holeLine(count: number | undefined): HTMLElement | null {
  if (count === undefined) return null;
  return h(
    'p',
    { class: 'hole-count' },
    count === 0 ? 'No holes left.' : `${count} ${count === 1 ? 'hole' : 'holes'} left.`,
  );
}

/** Coverage per kind: a bar with the target marked, the percentage and the change from the last round. */
export function coverageRows(cov: CoverageSummary, prev: CoverageSummary | undefined, targets: Targets): HTMLElement[] {
  return shownKinds(cov).map((kind) => {
    const { pct, covered, total } = totalsOf(cov, kind);
    const delta = formatDelta(pct, prev?.[kind]?.pct);
    const target = targets[kind];
    const fillBar = h('span', { class: `cov-fill kind-${kind}` });
    fillBar.style.width = `${Math.min(100, Math.max(0, pct))}%`;
    const bar = h('span', { class: 'cov-bar', 'aria-hidden': 'true' }, fillBar);
    if (target !== undefined) {
      const mark = h('span', { class: 'cov-target' });
      mark.style.left = `${Math.min(100, target)}%`;
      bar.append(mark);
    }
    const met = target === undefined ? '' : pct >= target ? ' met' : ' below';
    const direction =
      delta === undefined ? 'first' : delta.startsWith('+') ? 'up' : delta.startsWith('−') ? 'down' : 'same';
    const spoken = `${KIND_LABEL[kind]} ${formatPct(pct)}, ${covered} of ${total}${delta ? `, change ${delta}` : ''}${target !== undefined ? `, target ${target}%` : ''}`;
    return h(
      'div',
      { class: `cov-row${met}`, 'data-kind': kind, role: 'group', 'aria-label': spoken },
      h('span', { class: 'cov-kind', 'aria-hidden': 'true' }, KIND_LABEL[kind]),
      bar,
      h('span', { class: 'cov-pct', 'aria-hidden': 'true' }, formatPct(pct)),
      h('span', { class: `cov-delta ${direction}`, 'aria-hidden': 'true' }, delta ?? ''),
      h('span', { class: 'cov-count', 'aria-hidden': 'true' }, `${covered}/${total}`),
    );
  });
}
