/** Model state as the status bar, the chat panel and `chorus/modelStatus` show it. */
export type ModelState = 'not_configured' | 'loading' | 'ready' | 'generating' | 'error';

export interface ModelStatus {
  state: ModelState;
  /** What is loaded or configured: a file name, an endpoint model, `replay:…`. */
  model?: string | undefined;
  /** Loading progress, 0..100. */
  percent?: number;
  /** While generating. */
  tokensPerSecond?: number | undefined;
  /** Errors: what went wrong and what to do next. */
  message?: string;
  /** The compute backend in use: `cuda`, `vulkan`, `metal`, `cpu`, `endpoint`, `replay`. */
  backend?: string;
}

/** One entry of models/manifest.json. */
export interface ModelManifestEntry {
  id: string;
  description: string;
  uri: string;
  sha256?: string;
  sizeBytes: number;
  contextSize: number;
  promptFormat: 'chatml-qwen3' | 'gguf-template';
}

/** A model the user can pick: a manifest entry, a GGUF found on disk, or an endpoint. */
export interface ModelChoice {
  id: string;
  label: string;
  /** What to pass as `--model` / `chorus.model`. */
  uri: string;
  /** Present on disk (or reachable, for endpoints). */
  present: boolean;
  sizeBytes?: number;
  source: 'manifest' | 'found' | 'endpoint';
  /** The file on disk, when present. */
  path?: string | undefined;
  /** One line about the model (manifest entries). */
  description?: string;
  /** `chorus model pull <id>` can fetch it (manifest entries with an hf: or https URI). */
  downloadable?: boolean;
}
