/**
 * The panel's transcript as data: host messages and user actions change it, views draw it, and it is what
 * `vscode.setState` keeps across reloads. No DOM here. Changes mutate in place (a token stream is thousands of
 * appends) and report which parts of the view went stale.
 */
import type {
  CandidateRun,
  CoverageSummary,
  Diagnostic,
  GenerateResult,
  HostToWebview,
  LoopEvent,
  ModelStatus,
  RoundSummary,
  RunOutcome,
  RunRequestInfo,
  RunStatus,
  Hole,
} from '../protocol';

export interface RoundModel {
  index: number;
  /** The user's steering instruction this round was given. */
  instruction?: string;
  /** The model's streamed reply, as received. */
  text: string;
  parse?: { outcome: string; patch: boolean };
  /** The testbench the reply yields (for patches: after applying them). */
  testbench?: string;
  build?: { status: RunStatus; ms: number; diagnostics: Diagnostic[] };
  /** Status of the simulation that measured `coverage`. */
  simStatus?: RunStatus;
  coverage?: CoverageSummary;
  holeCount?: number;
  /** The feedback sent to the model for the next round. */
  feedback?: string;
  summary?: RoundSummary;
  /** A round with several candidates: each one's expert and outcome, the kept one first. */
  candidates?: CandidateRun[] | undefined;
}

export interface RunModel {
  info: RunRequestInfo;
  rounds: RoundModel[];
  /** The holes of the latest measurement. */
  holes: Hole[];
  result?: GenerateResult;
  ended?: { outcome: RunOutcome; message?: string | undefined };
}

export type SteerState = 'sent' | 'accepted' | 'refused';

export type Entry =
  | { kind: 'request'; key: string; runId: string }
  | { kind: 'round'; key: string; runId: string; round: number }
  | { kind: 'result'; key: string; runId: string }
  | {
      kind: 'steer';
      key: string;
      steerId: string;
      text: string;
      runId?: string | undefined;
      state: SteerState;
      round?: number | undefined;
      message?: string | undefined;
    }
  | {
      kind: 'ask';
      key: string;
      askId: string;
      question: string;
      answer: string;
      state: 'streaming' | 'done' | 'error';
      error?: string;
    }
  | { kind: 'notice'; key: string; level: 'info' | 'warning' | 'error'; text: string };

export type ComposerMode = 'steer' | 'ask';

export interface PanelModel {
  version: typeof MODEL_VERSION;
  runs: Record<string, RunModel>;
  /** In the order they happened. */
  entries: Entry[];
  /** The run that is going (Stop and steering apply to it). */
  liveRunId?: string | undefined;
  /** The latest run (the dashboard shows it; Retry repeats it). */
  lastRunId?: string | undefined;
  modelStatus?: ModelStatus | undefined;
  mode: ComposerMode;
  draft: string;
  dashboardOpen: boolean;
  /** Next number for local ids and notice keys. */
  seq: number;
}

export const MODEL_VERSION = 1;
/** Older runs are dropped from the transcript beyond this many, so saved state stays small. */
export const MAX_RUNS = 8;

/**
 * What went stale: entry keys, plus `entries` (entries were added or removed), `status` (model line),
 * `dashboard` (chart and holes), `controls` (Stop/Retry/mode), `all` (redraw everything).
 */
export type Dirty = Set<string>;

export function createModel(): PanelModel {
  return { version: MODEL_VERSION, runs: {}, entries: [], mode: 'steer', draft: '', dashboardOpen: true, seq: 1 };
}

/** A saved state, when it is one this version can read; otherwise undefined (start afresh). */
export function restoreModel(saved: unknown): PanelModel | undefined {
  if (typeof saved !== 'object' || saved === null) return undefined;
  const m = saved as Partial<PanelModel>;
  if (m.version !== MODEL_VERSION || !Array.isArray(m.entries) || typeof m.runs !== 'object' || m.runs === null) {
    return undefined;
  }
  const base = createModel();
  return { ...base, ...m, mode: m.mode === 'ask' ? 'ask' : 'steer', draft: typeof m.draft === 'string' ? m.draft : '' };
}

const roundKey = (runId: string, round: number) => `round:${runId}:${round}`;

function ensureRun(model: PanelModel, runId: string, info: Partial<RunRequestInfo>, dirty: Dirty): RunModel {
  let run = model.runs[runId];
  if (!run) {
    run = {
      info: {
        runId,
        dut: info.dut ?? '',
        files: info.files ?? [],
        targets: info.targets ?? {},
        engine: info.engine ?? 'llm',
        ...info,
      },
      rounds: [],
      holes: [],
    };
    model.runs[runId] = run;
    model.entries.push({ kind: 'request', key: `request:${runId}`, runId });
    dirty.add('entries');
    pruneRuns(model, dirty);
  }
  return run;
}

function pruneRuns(model: PanelModel, dirty: Dirty): void {
  const ids = model.entries.filter((e) => e.kind === 'request').map((e) => (e as { runId: string }).runId);
  if (ids.length <= MAX_RUNS) return;
  const drop = new Set(ids.slice(0, ids.length - MAX_RUNS));
  for (const id of drop) delete model.runs[id];
  // Everything before the first kept run's request goes with the dropped runs.
  const firstKept = model.entries.findIndex((e) => e.kind === 'request' && !drop.has(e.runId));
  model.entries = model.entries.slice(firstKept);
  dirty.add('all');
}

function ensureRound(model: PanelModel, run: RunModel, index: number, dirty: Dirty): RoundModel {
  let round = run.rounds.find((r) => r.index === index);
  if (!round) {
    round = { index, text: '' };
    run.rounds.push(round);
    run.rounds.sort((a, b) => a.index - b.index);
    model.entries.push({ kind: 'round', key: roundKey(run.info.runId, index), runId: run.info.runId, round: index });
    dirty.add('entries');
  }
  dirty.add(roundKey(run.info.runId, index));
  return round;
}

function startRun(model: PanelModel, info: RunRequestInfo, dirty: Dirty): void {
  const run = ensureRun(model, info.runId, info, dirty);
  run.info = { ...run.info, ...info };
  model.liveRunId = info.runId;
  model.lastRunId = info.runId;
  dirty.add(`request:${info.runId}`).add('dashboard').add('controls');
}

function endRun(model: PanelModel, runId: string, dirty: Dirty): void {
  if (model.liveRunId === runId) model.liveRunId = undefined;
  dirty.add('controls');
}

function ensureResultEntry(model: PanelModel, runId: string, dirty: Dirty): void {
  const key = `result:${runId}`;
  if (!model.entries.some((e) => e.key === key)) {
    model.entries.push({ kind: 'result', key, runId });
    dirty.add('entries');
  }
  dirty.add(key);
}

function applyLoopEvent(model: PanelModel, runId: string, event: LoopEvent, dirty: Dirty): void {
  if (event.type === 'start') {
    const known = model.runs[runId]?.info;
    startRun(
      model,
      {
        ...known,
        runId,
        dut: event.top,
        files: event.files,
        targets: event.targets,
        engine: event.engine,
        model: event.model ?? known?.model,
      },
      dirty,
    );
    return;
  }
  const joinedMidRun = !model.runs[runId];
  const run = ensureRun(model, runId, {}, dirty);
  if (joinedMidRun) {
    // Events of a run the panel never saw start (opened while it ran): it is the latest, and live until final.
    if (event.type !== 'final') model.liveRunId = runId;
    model.lastRunId = runId;
    dirty.add('controls').add('dashboard');
  }
  switch (event.type) {
    case 'roundStart': {
      const round = ensureRound(model, run, event.round, dirty);
      if (event.instruction) round.instruction = event.instruction;
      break;
    }
    case 'tokens':
      ensureRound(model, run, event.round, dirty).text += event.text;
      break;
    case 'parsed': {
      const round = ensureRound(model, run, event.round, dirty);
      round.parse = { outcome: event.outcome, patch: event.patch === true };
      if (event.testbench !== undefined) round.testbench = event.testbench;
      break;
    }
    case 'build':
      ensureRound(model, run, event.round, dirty).build = {
        status: event.status,
        ms: event.ms,
        diagnostics: event.diagnostics,
      };
      break;
    case 'coverage': {
      const round = ensureRound(model, run, event.round, dirty);
      round.coverage = event.coverage;
      round.simStatus = event.status;
      round.holeCount = event.holes.length;
      run.holes = event.holes;
      dirty.add('dashboard');
      break;
    }
    case 'candidates':
      ensureRound(model, run, event.round, dirty).candidates = event.candidates;
      break;
    case 'feedback':
      ensureRound(model, run, event.round, dirty).feedback = event.text;
      break;
    case 'roundEnd': {
      const round = ensureRound(model, run, event.round.index, dirty);
      round.summary = event.round;
      round.candidates ??= event.round.candidateRuns;
      if (!round.coverage && event.round.status === 'ok') round.coverage = event.round.coverage;
      dirty.add('dashboard');
      break;
    }
    case 'log':
      // Info lines are progress chatter the cards already show; warnings and errors are worth a line.
      if (event.level !== 'info') addNotice(model, event.level === 'warn' ? 'warning' : 'error', event.message, dirty);
      break;
    case 'final': {
      // Per-line hits are for editor overlays; they would only bloat the saved state.
      const { lines: _lines, ...result } = event.result;
      run.result = result;
      run.holes = result.holes;
      ensureResultEntry(model, runId, dirty);
      endRun(model, runId, dirty);
      dirty.add('dashboard');
      break;
    }
  }
}

function addNotice(model: PanelModel, level: 'info' | 'warning' | 'error', text: string, dirty: Dirty): void {
  model.entries.push({ kind: 'notice', key: `notice:${model.seq++}`, level, text });
  dirty.add('entries');
}

function findEntry<K extends Entry['kind']>(
  model: PanelModel,
  kind: K,
  pred: (e: Extract<Entry, { kind: K }>) => boolean,
) {
  return model.entries.find(
    (e): e is Extract<Entry, { kind: K }> => e.kind === kind && pred(e as Extract<Entry, { kind: K }>),
  );
}

/** Applies one host message. `restore` replays into a fresh transcript that keeps the composer's state. */
export function applyHostMessage(model: PanelModel, msg: HostToWebview, dirty: Dirty = new Set()): Dirty {
  switch (msg.type) {
    case 'runStart':
      startRun(model, msg.run, dirty);
      break;
    case 'loopEvent':
      applyLoopEvent(model, msg.runId, msg.event, dirty);
      break;
    case 'runEnded': {
      const run = ensureRun(model, msg.runId, {}, dirty);
      run.ended = { outcome: msg.outcome, message: msg.message };
      ensureResultEntry(model, msg.runId, dirty);
      endRun(model, msg.runId, dirty);
      break;
    }
    case 'modelStatus':
      model.modelStatus = msg.status;
      dirty.add('status');
      break;
    case 'askChunk': {
      let entry = findEntry(model, 'ask', (e) => e.askId === msg.askId);
      if (!entry) {
        entry = {
          kind: 'ask',
          key: `ask:${msg.askId}`,
          askId: msg.askId,
          question: msg.question ?? '',
          answer: '',
          state: 'streaming',
        };
        model.entries.push(entry);
        dirty.add('entries');
      }
      entry.answer += msg.text;
      if (msg.error !== undefined) {
        entry.state = 'error';
        entry.error = msg.error;
      } else if (msg.done) {
        entry.state = 'done';
      }
      dirty.add(entry.key);
      break;
    }
    case 'steerResult': {
      let entry = findEntry(model, 'steer', (e) => e.steerId === msg.steerId);
      if (!entry && msg.text !== undefined) {
        // A replayed steer: the instruction comes back with its answer.
        entry = {
          kind: 'steer',
          key: `steer:${msg.steerId}`,
          steerId: msg.steerId,
          text: msg.text,
          runId: msg.runId,
          state: 'sent',
        };
        model.entries.push(entry);
        dirty.add('entries');
      }
      if (entry) {
        entry.state = msg.accepted ? 'accepted' : 'refused';
        entry.round = msg.round;
        entry.message = msg.message;
        entry.runId = msg.runId ?? entry.runId;
        dirty.add(entry.key);
      } else if (!msg.accepted && msg.message) {
        addNotice(model, 'warning', msg.message, dirty);
      }
      break;
    }
    case 'notice':
      addNotice(model, msg.level, msg.text, dirty);
      break;
    case 'reset':
      resetTranscript(model);
      dirty.add('all');
      break;
    case 'restore':
      resetTranscript(model);
      for (const inner of msg.messages) {
        if (inner.type !== 'reset' && inner.type !== 'restore') applyHostMessage(model, inner, dirty);
      }
      dirty.add('all');
      break;
  }
  return dirty;
}

function resetTranscript(model: PanelModel): void {
  model.runs = {};
  model.entries = [];
  model.liveRunId = undefined;
  model.lastRunId = undefined;
}

/** The user sent a steering instruction; returns the entry (its id goes to the host). */
export function addSteer(model: PanelModel, text: string, dirty: Dirty): Extract<Entry, { kind: 'steer' }> {
  const steerId = `s${Date.now().toString(36)}-${model.seq++}`;
  const entry: Extract<Entry, { kind: 'steer' }> = {
    kind: 'steer',
    key: `steer:${steerId}`,
    steerId,
    text,
    runId: model.liveRunId,
    state: 'sent',
  };
  model.entries.push(entry);
  dirty.add('entries');
  return entry;
}

/** The user asked a question; returns the entry (its id goes to the host). */
export function addAsk(model: PanelModel, question: string, dirty: Dirty): Extract<Entry, { kind: 'ask' }> {
  const askId = `a${Date.now().toString(36)}-${model.seq++}`;
  const entry: Extract<Entry, { kind: 'ask' }> = {
    kind: 'ask',
    key: `ask:${askId}`,
    askId,
    question,
    answer: '',
    state: 'streaming',
  };
  model.entries.push(entry);
  dirty.add('entries');
  return entry;
}

/** The round before `index` that has coverage: the base of the deltas. */
export function previousCoverage(run: RunModel, index: number): CoverageSummary | undefined {
  let prev: CoverageSummary | undefined;
  for (const r of run.rounds) {
    if (r.index >= index) break;
    if (r.coverage) prev = r.coverage;
  }
  return prev;
}

/** Where the user's message goes, from the mode and a leading `?` (a question whatever the mode). */
export function interpretInput(raw: string, mode: ComposerMode): { mode: ComposerMode; text: string } {
  const text = raw.trim();
  if (text.startsWith('?')) return { mode: 'ask', text: text.slice(1).trim() };
  return { mode, text };
}
