/**
 * What `--model` / `chorus.model` names, as a file on disk — without the network: a path, a manifest id, or an
 * `hf:`/https URI that `chorus model pull` has already downloaded.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { ChorusError, type ModelManifestEntry } from '../../protocol';
import { findByName, findGgufFiles, type FoundModel } from './files';
import { defaultManifestPath, loadManifest, manifestRoot } from './manifest';
import { downloadFileName, hubNameHints, isRemoteUri } from './uri';

export interface ModelLookup {
  modelDirs: string[];
  manifestPath?: string | undefined;
}

export interface ResolvedModel {
  path: string;
  entry?: ModelManifestEntry;
}

/** Where a manifest entry's file is when present: its relative path under the extension root, or by name in a model folder. */
export function locateEntry(entry: ModelManifestEntry, modelDirs: string[], manifestPath?: string): FoundModel | undefined {
  if (isRemoteUri(entry.uri)) return findDownloaded(entry.uri, modelDirs);
  const candidates = isAbsolute(entry.uri) ? [entry.uri] : manifestPath ? [resolve(manifestRoot(manifestPath), entry.uri)] : [];
  for (const c of candidates) {
    if (existsSync(c) && statSync(c).isFile()) return { path: c, sizeBytes: statSync(c).size };
  }
  return findByName(modelDirs, basename(entry.uri));
}

/** A remote URI's file, if a download of it is in one of the folders. */
export function findDownloaded(uri: string, modelDirs: string[]): FoundModel | undefined {
  const name = downloadFileName(uri);
  if (name) return findByName(modelDirs, name);
  const hints = hubNameHints(uri);
  if (!hints.length) return undefined;
  return findGgufFiles(modelDirs).find((f) => hints.every((h) => basename(f.path).toLowerCase().includes(h)));
}

export function resolveModelFile(spec: string, lookup: ModelLookup): ResolvedModel {
  const manifestPath = lookup.manifestPath ?? defaultManifestPath();
  const asPath = resolve(spec);
  if (existsSync(asPath) && statSync(asPath).isFile()) return { path: asPath };

  const entry = isRemoteUri(spec) ? undefined : loadManifest(manifestPath).find((e) => e.id === spec);
  if (entry) {
    const found = locateEntry(entry, lookup.modelDirs, manifestPath);
    if (found) return { path: found.path, entry };
    if (isRemoteUri(entry.uri)) {
      throw new ChorusError('bad_input', `The model "${entry.id}" is not downloaded yet: run \`chorus model pull ${entry.id}\` (about ${gib(entry.sizeBytes)}).`);
    }
    throw new ChorusError('bad_input', `The model "${entry.id}" is not on disk: put ${basename(entry.uri)} into ${lookup.modelDirs[0] ?? 'models/'} or set chorus.model (--model) to its path.`);
  }
  if (isRemoteUri(spec)) {
    const found = findDownloaded(spec, lookup.modelDirs);
    if (found) return { path: found.path };
    throw new ChorusError('bad_input', `${spec} is not downloaded yet (CHORUS uses the network only when asked): run \`chorus model pull ${spec}\`.`);
  }
  if (spec.toLowerCase().endsWith('.gguf') || spec.includes('/') || spec.includes('\\')) {
    throw new ChorusError('bad_input', `Model file ${asPath} not found: check the path, or run \`chorus model list\` to see the models found.`, { file: asPath });
  }
  throw new ChorusError('bad_input', `Unknown model "${spec}": give a .gguf path, a model id from \`chorus model list\`, an hf:/https URI you pulled, or replay:<file.json>.`);
}

function gib(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}
