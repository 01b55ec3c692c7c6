/** The models a user can pick: manifest entries (present or not), other GGUF files found, an endpoint's models. */
import { basename } from 'node:path';
import type { ModelChoice } from '../../protocol';
import { findGgufFiles } from './files';
import { defaultManifestPath, loadManifest } from './manifest';
import { locateEntry } from './resolve';
import { isRemoteUri } from './uri';
import { apiRoot } from '../endpoint/openai';

export interface ListModelsOptions {
  modelDirs: string[];
  manifestPath?: string;
  /** Also ask this server which models it serves (GET /v1/models); `model` is the configured one, listed first. */
  endpoint?: { baseUrl: string; model?: string | undefined; apiKey?: string; timeoutMs?: number } | undefined;
}

export async function listModels(opts: ListModelsOptions): Promise<ModelChoice[]> {
  const manifestPath = opts.manifestPath ?? defaultManifestPath();
  const choices: ModelChoice[] = [];
  const claimed = new Set<string>();
  for (const entry of loadManifest(manifestPath)) {
    const found = locateEntry(entry, opts.modelDirs, manifestPath);
    if (found) claimed.add(found.path);
    choices.push({
      id: entry.id,
      label: entry.id,
      uri: entry.id,
      present: Boolean(found),
      sizeBytes: found?.sizeBytes ?? entry.sizeBytes,
      source: 'manifest',
      path: found?.path,
      description: entry.description,
      downloadable: isRemoteUri(entry.uri),
    });
  }
  for (const f of findGgufFiles(opts.modelDirs)) {
    if (claimed.has(f.path)) continue;
    choices.push({ id: basename(f.path), label: basename(f.path), uri: f.path, present: true, sizeBytes: f.sizeBytes, source: 'found', path: f.path });
  }
  if (opts.endpoint) choices.push(...(await endpointModels(opts.endpoint)));
  return choices;
}

async function endpointModels(endpoint: NonNullable<ListModelsOptions['endpoint']>): Promise<ModelChoice[]> {
  const root = apiRoot(endpoint.baseUrl);
  const key = endpoint.apiKey ?? process.env.CHORUS_API_KEY;
  try {
    const res = await fetch(`${root}/models`, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
      signal: AbortSignal.timeout(endpoint.timeoutMs ?? 5000),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    const ids = (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
    if (endpoint.model && ids.includes(endpoint.model)) ids.sort((a, b) => Number(b === endpoint.model) - Number(a === endpoint.model));
    return ids.map((id) => ({ id, label: `${id} @ ${root}`, uri: id, present: true, source: 'endpoint' as const }));
  } catch (err) {
    const why = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    return [{ id: root, label: `${root} (unreachable: ${why})`, uri: root, present: false, source: 'endpoint' }];
  }
}

/** The model to use when none is configured: the first `*.gguf` in the folders, else a present manifest entry. */
export function findDefaultModel(modelDirs: string[], manifestPath: string | undefined = defaultManifestPath()): string | undefined {
  const first = findGgufFiles(modelDirs)[0];
  if (first) return first.path;
  try {
    for (const entry of loadManifest(manifestPath)) {
      const found = locateEntry(entry, modelDirs, manifestPath);
      if (found) return found.path;
    }
  } catch {
    // a broken manifest is reported by `chorus model list`; here it just means no default
  }
  return undefined;
}
