/** The `chorus.*` settings as one typed value, read and validated the same way by the extension and the server. */
import { parseByteSize } from './byteSize';
import { DEFAULT_TARGETS, FSM_KINDS, type TargetMetric, type Targets } from './coverage';
import type { EngineName } from './loop';

export type EngineSetting = EngineName | 'auto';
export type GpuSetting = 'auto' | 'cuda' | 'vulkan' | 'metal' | 'cpu';
/** Qwen3-style models: `auto` leaves thinking to the model's template, `on`/`off` ask for it or not. */
export type ThinkingSetting = 'auto' | 'on' | 'off';

export interface ChorusSettings {
  /** Path, `hf:` URI, manifest id or `replay:` file; empty when none is configured. */
  model: string;
  /** Base URL of an OpenAI-compatible endpoint; empty when none. */
  endpoint: string;
  apiModel: string;
  verilatorPath: string;
  targets: Targets;
  maxRounds: number;
  engine: EngineSetting;
  gpu: GpuSetting;
  contextSize: number;
  /** CPU threads for a local model; 0: as many as are useful. */
  threads: number;
  /** Longest model reply in tokens. */
  maxTokens: number;
  /** Candidate testbenches per LLM round; 0: the default (1; 4 on a local GPU; one per expert). */
  candidates: number;
  /** Experts the candidates are spread over: `.gguf`, `lora:<adapter.gguf>`, `endpoint:<model>`, URLs, `replay:` files. */
  experts: string[];
  temperature: number;
  thinking: ThinkingSetting;
  /** Endpoint: longest wait for an answer to start, and longest silence mid-reply. */
  requestTimeoutSeconds: number;
  /** A JSON file of prompt templates over the built-in ones; empty: the built-in wording. */
  promptTemplates: string;
  simTimeoutSeconds: number;
  /** Most memory CHORUS and one tool building or running a testbench may hold: a size `parseByteSize` reads (`4G`). */
  memoryLimit: string;
  /** The build cache's byte cap, a size like `memoryLimit`. */
  cacheMax: string;
  testbenchFolder: string;
  showHolesAsDiagnostics: boolean;
}

/**
 * The part of `vscode.WorkspaceConfiguration` read here, so tests and the server (a `workspace/configuration`
 * answer) can pass a plain object. A value is whatever the user wrote: each reader below checks its type.
 */
export interface ConfigurationLike {
  get(section: string): unknown;
}

export const SETTINGS_SECTION = 'chorus';

const ENGINES: readonly EngineSetting[] = ['auto', 'random', 'llm', 'hybrid'];
const GPUS: readonly GpuSetting[] = ['auto', 'cuda', 'vulkan', 'metal', 'cpu'];
const THINKING: readonly ThinkingSetting[] = ['auto', 'on', 'off'];
const METRICS: readonly TargetMetric[] = ['line', 'branch', 'toggle', 'fsm_state', 'fsm_arc', 'expr', 'overall'];

export const DEFAULT_SETTINGS: ChorusSettings = {
  model: '',
  endpoint: '',
  apiModel: '',
  verilatorPath: '',
  targets: DEFAULT_TARGETS,
  maxRounds: 3,
  engine: 'auto',
  gpu: 'auto',
  contextSize: 0,
  threads: 0,
  maxTokens: 16384,
  candidates: 0,
  experts: [],
  temperature: 0.7,
  thinking: 'auto',
  requestTimeoutSeconds: 300,
  promptTemplates: '',
  simTimeoutSeconds: 30,
  memoryLimit: '4G',
  cacheMax: '2G',
  testbenchFolder: 'tb',
  showHolesAsDiagnostics: false,
};

function str(cfg: ConfigurationLike, key: string, fallback: string): string {
  const v = cfg.get(key);
  return typeof v === 'string' ? v.trim() : fallback;
}

/** A list of non-empty strings; anything else in it is left out. */
function strings(cfg: ConfigurationLike, key: string): string[] {
  const v = cfg.get(key);
  return Array.isArray(v)
    ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim())
    : [];
}

function int(cfg: ConfigurationLike, key: string, fallback: number, min: number, max: number): number {
  const v = cfg.get(key);
  if (typeof v !== 'number' || !Number.isFinite(v)) return fallback;
  return Math.min(max, Math.max(min, Math.round(v)));
}

function num(cfg: ConfigurationLike, key: string, fallback: number, min: number, max: number): number {
  const v = cfg.get(key);
  if (typeof v !== 'number' || !Number.isFinite(v)) return fallback;
  return Math.min(max, Math.max(min, v));
}

/** A size setting (`4G`, `1536M`, a bare number of MiB); anything else is named in a warning and left at its default. */
function size(cfg: ConfigurationLike, key: string, fallback: string, warn: (message: string) => void): string {
  const v = cfg.get(key);
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v === 'string' && parseByteSize(v) !== undefined) return v.trim();
  warn(
    `chorus.${key} is ${JSON.stringify(v)}, not a size such as "4G" or "1536M"; using ${fallback}. Fix it in the settings.`,
  );
  return fallback;
}

function oneOf<T extends string>(cfg: ConfigurationLike, key: string, allowed: readonly T[], fallback: T): T {
  const v = cfg.get(key);
  return allowed.find((a) => a === v) ?? fallback;
}

/** Keeps only known metrics with a percentage in 0..100; an empty or invalid object means the defaults. */
export function sanitizeTargets(value: unknown): Targets {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ...DEFAULT_TARGETS };
  const out: Targets = {};
  for (const [key, pct] of Object.entries(value)) {
    // `fsm` stands for both FSM kinds, as in `--target fsm=100`.
    const metrics = key === 'fsm' ? FSM_KINDS : METRICS.filter((m) => m === key);
    if (typeof pct === 'number' && pct >= 0 && pct <= 100) for (const metric of metrics) out[metric] = pct;
  }
  return Object.keys(out).length ? out : { ...DEFAULT_TARGETS };
}

/**
 * Reads and validates every setting; a bad value falls back to its default instead of reaching the server.
 * `warn` hears of a bad value that would otherwise pass unnoticed (a size that does not parse).
 */
export function readSettings(
  cfg: ConfigurationLike,
  warn: (message: string) => void = () => undefined,
): ChorusSettings {
  const d = DEFAULT_SETTINGS;
  const folder = str(cfg, 'testbenchFolder', d.testbenchFolder);
  return {
    model: str(cfg, 'model', d.model),
    endpoint: str(cfg, 'endpoint', d.endpoint),
    apiModel: str(cfg, 'apiModel', d.apiModel),
    verilatorPath: str(cfg, 'verilatorPath', d.verilatorPath),
    targets: sanitizeTargets(cfg.get('targets')),
    maxRounds: int(cfg, 'maxRounds', d.maxRounds, 1, 50),
    engine: oneOf(cfg, 'engine', ENGINES, d.engine),
    gpu: oneOf(cfg, 'gpu', GPUS, d.gpu),
    contextSize: int(cfg, 'contextSize', d.contextSize, 0, 1 << 20),
    threads: int(cfg, 'threads', d.threads, 0, 1024),
    maxTokens: int(cfg, 'maxTokens', d.maxTokens, 16, 1 << 20),
    candidates: int(cfg, 'candidates', d.candidates, 0, 64),
    experts: strings(cfg, 'experts'),
    temperature: num(cfg, 'temperature', d.temperature, 0, 2),
    thinking: oneOf(cfg, 'thinking', THINKING, d.thinking),
    requestTimeoutSeconds: int(cfg, 'requestTimeoutSeconds', d.requestTimeoutSeconds, 1, 86_400),
    promptTemplates: str(cfg, 'promptTemplates', d.promptTemplates),
    simTimeoutSeconds: int(cfg, 'simTimeoutSeconds', d.simTimeoutSeconds, 1, 3600),
    memoryLimit: size(cfg, 'memoryLimit', d.memoryLimit, warn),
    cacheMax: size(cfg, 'cacheMax', d.cacheMax, warn),
    testbenchFolder: safeRelativeFolder(folder) ?? d.testbenchFolder,
    showHolesAsDiagnostics: cfg.get('showHolesAsDiagnostics') === true,
  };
}

/** A workspace-relative folder without `..` or an absolute root; undefined when the value escapes the folder. */
export function safeRelativeFolder(value: string): string | undefined {
  const parts = value
    .replace(/\\/g, '/')
    .split('/')
    .filter((p) => p && p !== '.');
  if (value.startsWith('/') || /^[a-zA-Z]:/.test(value) || parts.includes('..')) return undefined;
  return parts.join('/') || '.';
}
