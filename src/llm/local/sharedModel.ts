/**
 * One loaded base model per file and llama.cpp runtime, shared by every backend on it (an expert per LoRA adapter
 * each has its own context over the same weights): the weights are never loaded twice, and are released with the
 * last backend that used them.
 */
import type { Llama, LlamaModel } from 'node-llama-cpp' with { 'resolution-mode': 'import' };

export interface ModelLease {
  model: LlamaModel;
  /** Ends this backend's use; the model is disposed when no backend uses it any more. */
  release(): Promise<void>;
}

interface Shared {
  model: Promise<LlamaModel>;
  users: number;
}

const models = new WeakMap<Llama, Map<string, Shared>>();

/** The model at `path` on `llama`, loaded by `load` the first time; concurrent callers wait for the same load. */
export async function acquireModel(llama: Llama, path: string, load: () => Promise<LlamaModel>): Promise<ModelLease> {
  let byPath = models.get(llama);
  if (!byPath) models.set(llama, (byPath = new Map()));
  let shared = byPath.get(path);
  if (!shared) {
    const fresh: Shared = { model: load(), users: 0 };
    byPath.set(path, fresh);
    // A failed load is not kept: the next backend tries again.
    fresh.model.catch(() => byPath.get(path) === fresh && byPath.delete(path));
    shared = fresh;
  }
  shared.users++;
  const entry = shared;
  let model: LlamaModel;
  try {
    model = await entry.model;
  } catch (err) {
    entry.users--;
    throw err;
  }
  let released = false;
  return {
    model,
    async release() {
      if (released) return;
      released = true;
      if (--entry.users > 0) return;
      if (byPath.get(path) === entry) byPath.delete(path);
      await model.dispose();
    },
  };
}

/** How many backends use the model at `path` on `llama` now (tests: the base is loaded once). */
export function modelUsers(llama: Llama, path: string): number {
  return models.get(llama)?.get(path)?.users ?? 0;
}
