/**
 * The `chorus/*` messages between the language server and its clients, each declared once: method, params (with
 * the schema the server validates them with), result and error data. The server registers its handlers and the
 * extension sends its requests through these descriptors, so a mismatch is a type error on either end.
 * JSON `null` in params means "absent": the server drops null members before validating.
 */
import type { JSONSchemaType } from 'ajv';
import type { LineCoverage, Targets } from './coverage';
import type { ErrorKind, SourceLocation } from './errors';
import type { EngineName, GenerateResult, LoopEvent } from './loop';
import type { ModelChoice, ModelStatus } from './model';
import { clientNotification, notification, request, type ParamsOf, type RequestDescriptor, type ResultOf } from './rpc';

/** The `data` of every error response to a `chorus/*` request. */
export interface ChorusErrorData {
  kind: ErrorKind;
  /** Where the problem is, when it is in a source file. */
  location?: SourceLocation;
  /** InvalidParams: the offending member as a JSON pointer (`/targets/line`; `/uri` when it is missing). */
  field?: string;
}

/** Every kind, as a record so that a kind added to ErrorKind must be added here. */
const ERROR_KINDS: Record<ErrorKind, true> = {
  bad_input: true,
  rejected: true,
  missing_tool: true,
  infrastructure: true,
  untrusted: true,
  failed: true,
  cancelled: true,
};

/** True when an error response's `data` is a {@link ChorusErrorData} (clients decode with this). */
export function isChorusErrorData(data: unknown): data is ChorusErrorData {
  if (typeof data !== 'object' || data === null || !('kind' in data)) return false;
  return Object.keys(ERROR_KINDS).some((k) => k === data.kind);
}

// ---------------------------------------------------------------------------------------------------------------
// Params and results

/** The LSP `initializationOptions` the extension starts the server with; a plain LSP client may send none. */
export interface ChorusInitOptions {
  /** Folders holding GGUF files besides the extension's models/: its global storage. */
  modelDirs?: string[];
  /**
   * False in a restricted workspace: nothing may be built, simulated or loaded (the client refuses too) until
   * `chorus/workspaceTrust` says otherwise. Absent: trusted (a plain LSP editor has no such notion).
   */
  workspaceTrusted?: boolean;
}

export interface GenerateParams {
  /** The document the user ran the command on (file URI). */
  uri: string;
  /** Every DUT source (file URIs); defaults to the document and the files it needs. */
  files?: string[];
  top?: string;
  targets?: Targets;
  engine?: EngineName;
  /** `path`, `hf:…`, manifest id or `replay:<file.json>`; defaults to the `chorus.model` setting. */
  model?: string;
  rounds?: number;
  /** Client-chosen id echoed in every loop event notification. */
  runId: string;
  seed?: number;
  budgetSeconds?: number;
  /**
   * coverage.dat files (file URIs) of the user's regression to start from (`generate --merge`); default the
   * `chorus.regressionCoverage` setting. Only the model-free engine (`random`) runs on top of a regression.
   */
  regression?: string[];
  /** Client-created work-done progress token (LSP WorkDoneProgressParams). */
  workDoneToken?: string | number;
}

/** Result of `chorus/generate`: the run's result as it goes on the wire. */
export type GenerateResponse = GenerateResult;

export interface LoopEventParams {
  runId: string;
  uri: string;
  event: LoopEvent;
}

export interface CoverageParams {
  uri: string;
}

export interface CoverageResult {
  result: GenerateResponse | null;
  /** Per-line hits for overlays. */
  lines: LineCoverage[];
}

export interface SteerParams {
  runId: string;
  text: string;
}

export interface SteerResult {
  /** False when no run with that id is going (it has just ended): the instruction was not used. */
  accepted: boolean;
}

export interface AskParams {
  uri: string;
  question: string;
  askId: string;
}

export interface AskResult {
  /** The whole answer (it also streamed as `chorus/askChunk`). */
  text: string;
}

export interface AskChunkParams {
  askId: string;
  text: string;
  done: boolean;
}

export interface ListModelsParams {
  /** A document whose settings (`chorus.endpoint`) apply; the window's settings when absent. */
  uri?: string;
}

export interface ListModelsResult {
  models: ModelChoice[];
}

export interface ExportLcovParams {
  uri: string;
}

export interface ExportLcovResult {
  lcov: string;
}

/** The formats of `chorus/exportWaivers`: the CLI's `--vlt`, `--urg-el`, `--imc-tcl`, `--lcov`, `--cobertura`. */
export type WaiverExportFormat = 'vlt' | 'urgEl' | 'imcTcl' | 'lcov' | 'cobertura';

export const WAIVER_EXPORT_FORMATS: readonly WaiverExportFormat[] = ['vlt', 'urgEl', 'imcTcl', 'lcov', 'cobertura'];

export interface ExportWaiversParams {
  /** A DUT document of the last run (file URI). */
  uri: string;
  format: WaiverExportFormat;
  /** Where to write (file URI). */
  target: string;
  /** Replace a file there that CHORUS did not write (the user said so). */
  force?: boolean;
  /** URG and IMC: the DUT's instance path in the user's testbench (`--dut-path`); default `tb.dut`. */
  dutPath?: string;
}

/**
 * `written`: the file was written. `needsConsent`: a file CHORUS did not write is there, and nothing was written:
 * ask the user, then send the request again with `force`. Every other refusal (a link, a folder, an input of the
 * run) is an error response.
 */
export type ExportWaiversResult =
  { status: 'written'; file: string; excluded: number } | { status: 'needsConsent'; file: string; message: string };

export interface TopsParams {
  /** An HDL document (file URI); its open text is read when the editor has it, else the file. */
  uri: string;
}

export interface TopsResult {
  /** The modules the document defines, in source order. */
  modules: string[];
  /**
   * The top choice: the module no other module of the document instantiates when there is exactly one (the top
   * is clear: one entry); otherwise every module, ranked as `candidates`, the uninstantiated ones first.
   */
  tops: string[];
  /**
   * Every module a testbench could drive, ranked: those no other module instantiates first (wrappers), then the
   * modules they instantiate (the core), nearest first. Absent from servers older than it.
   */
  candidates?: string[];
}

export interface FilelistsForParams {
  /** An HDL document (file URI). */
  uri: string;
  /** Candidate filelists (`.f` file URIs) the client found in the workspace; at most MAX_FILELIST_CANDIDATES. */
  lists: string[];
}

export interface FilelistsForResult {
  /** The candidates (file URIs) whose sources, nested lists included, name the document; unreadable lists are left out. */
  lists: string[];
}

/**
 * `chorus/workspaceTrust`: where workspace trust stands now. The extension sends it when the user grants trust in
 * the session (VS Code reloads the window to take it away); `workspaceTrusted` in the initialization options says
 * it at start.
 */
export interface WorkspaceTrustParams {
  trusted: boolean;
}

/** Most candidate filelists one `chorus/filelistsFor` reads: discovery searches a bounded number of `.f` and project files. */
export const MAX_FILELIST_CANDIDATES = 100;

/**
 * `chorus/modelStatus`: the model's state, and the engine a run asking for none (`chorus.engine: auto`) would use
 * with the window's settings, as the engine decides it (a configured model, or a GGUF found in the model folders,
 * means `llm`). Sent when the server is initialized, when the `chorus.*` settings change, and with every state change.
 */
export interface ModelStatusParams extends ModelStatus {
  autoEngine: EngineName;
  /**
   * Whether a run has a model (configured, or a GGUF found in the model folders), as the engine decides it: an
   * explicit `llm` or `hybrid` run without one cannot start, and the client asks for a model only then.
   */
  modelAvailable: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// Params schemas (tsc checks each against its type)

const uri = { type: 'string', minLength: 1 } as const;
const text = { type: 'string' } as const;

const targetPct = { type: 'number', minimum: 0, maximum: 100, nullable: true } as const;
const targetsSchema: JSONSchemaType<Targets> = {
  type: 'object',
  properties: {
    line: targetPct,
    branch: targetPct,
    toggle: targetPct,
    fsm_state: targetPct,
    fsm_arc: targetPct,
    expr: targetPct,
    overall: targetPct,
  },
  additionalProperties: false,
};

const generateParams: JSONSchemaType<GenerateParams> = {
  type: 'object',
  required: ['uri', 'runId'],
  properties: {
    uri,
    files: { type: 'array', items: uri, nullable: true },
    top: { type: 'string', minLength: 1, nullable: true },
    targets: { ...targetsSchema, nullable: true },
    engine: { type: 'string', enum: ['random', 'llm', 'hybrid'], nullable: true },
    model: { type: 'string', minLength: 1, nullable: true },
    rounds: { type: 'integer', minimum: 1, maximum: 50, nullable: true },
    runId: { type: 'string', minLength: 1 },
    seed: { type: 'integer', nullable: true },
    budgetSeconds: { type: 'number', exclusiveMinimum: 0, nullable: true },
    regression: { type: 'array', items: uri, nullable: true },
    workDoneToken: { type: ['string', 'integer'], nullable: true },
  },
  additionalProperties: false,
};

/** What the server checks `initializationOptions` against (it fails `initialize` naming the member otherwise). */
export const initOptionsSchema: JSONSchemaType<ChorusInitOptions> = {
  type: 'object',
  properties: {
    modelDirs: { type: 'array', items: { type: 'string', minLength: 1 }, nullable: true },
    workspaceTrusted: { type: 'boolean', nullable: true },
  },
  additionalProperties: false,
};

const uriOnly: JSONSchemaType<{ uri: string }> = {
  type: 'object',
  required: ['uri'],
  properties: { uri },
  additionalProperties: false,
};

const steerParams: JSONSchemaType<SteerParams> = {
  type: 'object',
  required: ['runId', 'text'],
  properties: { runId: { type: 'string', minLength: 1 }, text },
  additionalProperties: false,
};

const askParams: JSONSchemaType<AskParams> = {
  type: 'object',
  required: ['uri', 'question', 'askId'],
  properties: { uri, question: { type: 'string', minLength: 1 }, askId: { type: 'string', minLength: 1 } },
  additionalProperties: false,
};

const filelistsForParams: JSONSchemaType<FilelistsForParams> = {
  type: 'object',
  required: ['uri', 'lists'],
  properties: { uri, lists: { type: 'array', items: uri, maxItems: MAX_FILELIST_CANDIDATES } },
  additionalProperties: false,
};

const exportWaiversParams: JSONSchemaType<ExportWaiversParams> = {
  type: 'object',
  required: ['uri', 'format', 'target'],
  properties: {
    uri,
    format: { type: 'string', enum: [...WAIVER_EXPORT_FORMATS] },
    target: uri,
    force: { type: 'boolean', nullable: true },
    dutPath: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_$]*(\\.[A-Za-z_][A-Za-z0-9_$]*)*$', nullable: true },
  },
  additionalProperties: false,
};

const workspaceTrustParams: JSONSchemaType<WorkspaceTrustParams> = {
  type: 'object',
  required: ['trusted'],
  properties: { trusted: { type: 'boolean' } },
  additionalProperties: false,
};

const listModelsParams: JSONSchemaType<ListModelsParams> = {
  type: 'object',
  properties: { uri: { ...uri, nullable: true } },
  additionalProperties: false,
};

// ---------------------------------------------------------------------------------------------------------------
// The messages

// `@__PURE__`: bundles that import src/protocol without using the messages (the webview) drop them.

/** Builds, simulates or opens a model: refused in a restricted workspace. */
const BUILDS = { needsTrust: true } as const;
/**
 * Reads the design, the results the server keeps or the model folders (a `chorus/steer` only reaches a run that is
 * already going): allowed in a restricted workspace.
 */
const READS = { needsTrust: false } as const;

/** Client → server requests. */
export const Requests = {
  /** Run the closure loop on a DUT. Work-done progress + `chorus/loopEvent` notifications. */
  generate: /* @__PURE__ */ request<GenerateParams, GenerateResponse, ChorusErrorData>(
    'chorus/generate',
    generateParams,
    BUILDS,
  ),
  /** The last result for a document (null when none). */
  coverage: /* @__PURE__ */ request<CoverageParams, CoverageResult, ChorusErrorData>('chorus/coverage', uriOnly, READS),
  /** Steer the next round of a running loop with a user instruction. */
  steer: /* @__PURE__ */ request<SteerParams, SteerResult, ChorusErrorData>('chorus/steer', steerParams, READS),
  /** Ask the model about the design and its holes; the answer streams as `chorus/askChunk`. */
  ask: /* @__PURE__ */ request<AskParams, AskResult, ChorusErrorData>('chorus/ask', askParams, BUILDS),
  /** The models the user can pick. */
  listModels: /* @__PURE__ */ request<ListModelsParams, ListModelsResult, ChorusErrorData>(
    'chorus/listModels',
    listModelsParams,
    READS,
  ),
  /** lcov of the last result for a document. */
  exportLcov: /* @__PURE__ */ request<ExportLcovParams, ExportLcovResult, ChorusErrorData>(
    'chorus/exportLcov',
    uriOnly,
    READS,
  ),
  /**
   * The last run's exclusions (proven and waived points) written for a signoff tool, through the engine's output
   * rule: a file CHORUS did not write is replaced only with `force`.
   */
  exportWaivers: /* @__PURE__ */ request<ExportWaiversParams, ExportWaiversResult, ChorusErrorData>(
    'chorus/exportWaivers',
    exportWaiversParams,
    READS,
  ),
  /** The modules of a document and which of them could be the top. */
  tops: /* @__PURE__ */ request<TopsParams, TopsResult, ChorusErrorData>('chorus/tops', uriOnly, READS),
  /** Which of the given filelists name the document (filelist discovery). */
  filelistsFor: /* @__PURE__ */ request<FilelistsForParams, FilelistsForResult, ChorusErrorData>(
    'chorus/filelistsFor',
    filelistsForParams,
    READS,
  ),
} as const;

/** A `chorus/*` request by its name in {@link Requests}. */
export type RequestName = keyof typeof Requests;

/**
 * Each request's params and result, by name: the server's handler table and the extension's `ChorusServer` are
 * mapped over it, so a request declared without a handler, or without a client method, is a type error.
 */
export type RequestTypes = {
  [K in RequestName]: { params: ParamsOf<(typeof Requests)[K]>; result: ResultOf<(typeof Requests)[K]> };
};

/**
 * {@link Requests} as a mapped type over {@link RequestTypes}: code generic in a name `K` (a loop registering
 * every handler) sees the descriptor's own params and result, not the union over all requests.
 */
export type RequestTable = {
  readonly [K in RequestName]: RequestDescriptor<RequestTypes[K]['params'], RequestTypes[K]['result'], ChorusErrorData>;
};

/** Client → server notifications. */
export const ClientNotifications = {
  /** Workspace trust changed (the user granted it): requests that build, simulate or open a model run from now on. */
  workspaceTrust: /* @__PURE__ */ clientNotification<WorkspaceTrustParams>(
    'chorus/workspaceTrust',
    workspaceTrustParams,
  ),
} as const;

/** Server → client notifications. */
export const Notifications = {
  /** One loop event of a running `chorus/generate`. */
  loopEvent: /* @__PURE__ */ notification<LoopEventParams>('chorus/loopEvent'),
  /** The model's state changed. */
  modelStatus: /* @__PURE__ */ notification<ModelStatusParams>('chorus/modelStatus'),
  /** A piece of a streamed answer to `chorus/ask`. */
  askChunk: /* @__PURE__ */ notification<AskChunkParams>('chorus/askChunk'),
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Code lens commands: the server puts these in its lenses, the extension's commands of the same id receive them.

export const LensCommands = { generate: 'chorus.generate', showCoverage: 'chorus.showCoverage' } as const;

/** The one argument each lens command gets: the document (file URI) and, for `generate`, the module it sits on. */
export interface LensCommandArgs {
  [LensCommands.generate]: { uri: string; top: string };
  [LensCommands.showCoverage]: { uri: string };
}

export type LensCommand = keyof LensCommandArgs;

/** A lens argument as a command receives it (either command's). */
export type LensArgs = LensCommandArgs[LensCommand] & { top?: string };

/** The lens arguments, or undefined for any other command argument (a `Uri` from a menu, nothing from the palette). */
export function readLensArgs(arg: unknown): LensArgs | undefined {
  if (typeof arg !== 'object' || arg === null || !('uri' in arg) || typeof arg.uri !== 'string' || !arg.uri)
    return undefined;
  const top = 'top' in arg && typeof arg.top === 'string' && arg.top ? arg.top : undefined;
  return top ? { uri: arg.uri, top } : { uri: arg.uri };
}
