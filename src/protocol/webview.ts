/**
 * The chat panel's messages, both directions (its HTML shell is src/extension/webviewHtml.ts).
 *
 * The extension host posts {@link HostToWebview} with `webview.postMessage(msg)`; the panel (src/webview) posts
 * {@link WebviewToHost} with `acquireVsCodeApi().postMessage(msg)`. Every message is plain JSON with a `type`.
 * Validate what arrives with {@link isWebviewToHost} / {@link isHostToWebview}: a webview is another process.
 */
import type { Targets } from './coverage';
import type { EngineName, LoopEvent } from './loop';
import type { ModelStatus } from './model';

/** What the user asked for; the panel shows it at the top of the run. */
export interface RunRequestInfo {
  /** The id of the run (`GenerateParams.runId`); every later message about the run carries it. */
  runId: string;
  /** The DUT's top module. */
  dut: string;
  /** DUT source files as the user knows them (workspace-relative paths or base names). */
  files: string[];
  targets: Targets;
  engine: EngineName;
  /** Model id or file name; absent for model-free engines. */
  model?: string | undefined;
  /** The round limit, when there is one. */
  maxRounds?: number | undefined;
  /** ISO 8601 time the run started. */
  startedAt?: string;
}

/** How a run ended, when it ended without a `final` loop event (or to add a message after one). */
export type RunOutcome = 'completed' | 'cancelled' | 'failed';

// ---------------------------------------------------------------------------------------------------------------
// Host → webview

/**
 * A run begins: the panel adds its request (DUT, targets, model) and makes it the current run (Stop and steering
 * apply to it). Send before the run's loop events; a `start` loop event without it starts the run too.
 */
export interface RunStartMessage {
  type: 'runStart';
  run: RunRequestInfo;
}

/**
 * One loop event of a run, in the engine's order: `roundStart` opens a round card, `tokens` stream the model's
 * text into it, `parsed` shows the testbench, `build`/`coverage` the status and coverage, `roundEnd` closes it,
 * `final` shows the result. The host forwards `chorus/loopEvent` notifications as these.
 */
export interface LoopEventMessage {
  type: 'loopEvent';
  runId: string;
  event: LoopEvent;
}

/**
 * A run stopped: after Stop (`cancelled`), on an error (`failed`, with the error's message, which says what to do
 * next) or, optionally, after `final` (`completed`). The run stops being current; Retry becomes available.
 */
export interface RunEndedMessage {
  type: 'runEnded';
  runId: string;
  outcome: RunOutcome;
  message?: string;
}

/** The model's state for the status line (loading progress, tokens per second, errors). */
export interface ModelStatusMessage {
  type: 'modelStatus';
  status: ModelStatus;
}

/**
 * A piece of the answer to an `ask` (same `askId`), streamed in order; `done` on the last. `error` ends the answer
 * with a message instead. `question` is set only when the host replays an ask the panel did not send (a restore).
 */
export interface AskChunkMessage {
  type: 'askChunk';
  askId: string;
  text: string;
  done: boolean;
  error?: string | undefined;
  question?: string;
}

/**
 * The host's answer to a `steer`: accepted for `round` of the run, or refused with a message saying why and what
 * to do next (no run is going, the engine takes no instructions). `text` is set only when the host replays a steer
 * the panel did not send (a restore), so the panel can show the user's instruction again.
 */
export interface SteerResultMessage {
  type: 'steerResult';
  steerId: string;
  accepted: boolean;
  runId?: string;
  round?: number;
  message?: string;
  text?: string;
}

/** A line for the transcript from the host itself (a file written, an action refused). */
export interface NoticeMessage {
  type: 'notice';
  level: 'info' | 'warning' | 'error';
  text: string;
}

/** Clear the transcript and the saved state ("Clear chat"). */
export interface ResetMessage {
  type: 'reset';
}

/**
 * Replace the transcript with the result of replaying `messages` in order (the host's record of what it posted).
 * Nested `reset`/`restore` messages inside are ignored.
 */
export interface RestoreMessage {
  type: 'restore';
  messages: HostToWebview[];
}

export type HostToWebview =
  | RunStartMessage
  | LoopEventMessage
  | RunEndedMessage
  | ModelStatusMessage
  | AskChunkMessage
  | SteerResultMessage
  | NoticeMessage
  | ResetMessage
  | RestoreMessage;

// ---------------------------------------------------------------------------------------------------------------
// Webview → host

/**
 * The panel has loaded (also after a reload) and listens. `restoredRuns` are the run ids it already shows from
 * its saved state: the host sends `restore` when it knows more, and the current model status.
 */
export interface ReadyMessage {
  type: 'ready';
  restoredRuns: string[];
}

/**
 * An instruction from the user for the next round of `runId` (the current run; absent when none is going).
 * The host queues it for the engine (`chorus/steer`) and answers with `steerResult`.
 */
export interface SteerMessage {
  type: 'steer';
  steerId: string;
  text: string;
  runId?: string | undefined;
}

/**
 * A question about the design or its holes, answered by the model with the DUT and coverage of `runId` (the
 * latest run) as context; the answer comes back as `askChunk` messages with the same `askId`.
 */
export interface AskMessage {
  type: 'ask';
  askId: string;
  question: string;
  runId?: string | undefined;
}

/** Stop the run (cancel `chorus/generate`). */
export interface StopMessage {
  type: 'stop';
  runId: string;
}

/** Run the same request again. */
export interface RetryMessage {
  type: 'retry';
  runId: string;
}

/** Open a round's testbench in an editor (read-only or untitled; nothing is written). */
export interface OpenTestbenchMessage {
  type: 'openTestbench';
  runId: string;
  round: number;
  testbench: string;
}

/** Write a round's testbench as the run's testbench file; the host asks before overwriting a file. */
export interface ApplyTestbenchMessage {
  type: 'applyTestbench';
  runId: string;
  round: number;
  testbench: string;
}

/** Put text on the clipboard (webview clipboard access is not dependable; the host's is). */
export interface CopyMessage {
  type: 'copy';
  text: string;
}

/** Show a coverage hole in the DUT editor: `file` as in `Hole.file`, `line` 1-based. */
export interface RevealHoleMessage {
  type: 'revealHole';
  file: string;
  line: number;
  runId?: string | undefined;
}

export type WebviewToHost =
  | ReadyMessage
  | SteerMessage
  | AskMessage
  | StopMessage
  | RetryMessage
  | OpenTestbenchMessage
  | ApplyTestbenchMessage
  | CopyMessage
  | RevealHoleMessage;

// ---------------------------------------------------------------------------------------------------------------
// Validation (shapes only: enough to switch on `type` safely)

type Shape = Record<string, 'string' | 'number' | 'boolean' | 'object' | 'array' | 'string?' | 'number?' | 'string[]'>;

const webviewToHostShapes: Record<WebviewToHost['type'], Shape> = {
  ready: { restoredRuns: 'string[]' },
  steer: { steerId: 'string', text: 'string', runId: 'string?' },
  ask: { askId: 'string', question: 'string', runId: 'string?' },
  stop: { runId: 'string' },
  retry: { runId: 'string' },
  openTestbench: { runId: 'string', round: 'number', testbench: 'string' },
  applyTestbench: { runId: 'string', round: 'number', testbench: 'string' },
  copy: { text: 'string' },
  revealHole: { file: 'string', line: 'number', runId: 'string?' },
};

const hostToWebviewShapes: Record<HostToWebview['type'], Shape> = {
  runStart: { run: 'object' },
  loopEvent: { runId: 'string', event: 'object' },
  runEnded: { runId: 'string', outcome: 'string', message: 'string?' },
  modelStatus: { status: 'object' },
  askChunk: { askId: 'string', text: 'string', done: 'boolean', error: 'string?', question: 'string?' },
  steerResult: {
    steerId: 'string',
    accepted: 'boolean',
    runId: 'string?',
    round: 'number?',
    message: 'string?',
    text: 'string?',
  },
  notice: { level: 'string', text: 'string' },
  reset: {},
  restore: { messages: 'array' },
};

function fits(value: unknown, want: Shape[string]): boolean {
  switch (want) {
    case 'string?':
      return value === undefined || typeof value === 'string';
    case 'number?':
      return value === undefined || (typeof value === 'number' && Number.isFinite(value));
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'array':
      return Array.isArray(value);
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return typeof value === want;
  }
}

function matches(msg: unknown, shapes: Record<string, Shape>): boolean {
  if (typeof msg !== 'object' || msg === null) return false;
  const record = new Map<string, unknown>(Object.entries(msg));
  const type = record.get('type');
  if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(shapes, type)) return false;
  const shape = shapes[type];
  return shape !== undefined && Object.entries(shape).every(([key, want]) => fits(record.get(key), want));
}

/** True when `msg` has the shape of a panel → host message (check before acting on one). */
export function isWebviewToHost(msg: unknown): msg is WebviewToHost {
  return matches(msg, webviewToHostShapes);
}

/** True when `msg` has the shape of a host → panel message. */
export function isHostToWebview(msg: unknown): msg is HostToWebview {
  return matches(msg, hostToWebviewShapes);
}
