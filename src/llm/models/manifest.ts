/** models/manifest.json: the models CHORUS knows, validated against models/manifest.schema.json. */
import Ajv from 'ajv';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ChorusError, type ModelManifestEntry } from '../../protocol';
import { readUserFileSync } from '../../protocol/userFile';
import schema from '../../../models/manifest.schema.json';

const validate = new Ajv({ allErrors: true }).compile(schema);

/** models/manifest.json of this installation: found by walking up from this file (src/llm/models or dist/). */
export function defaultManifestPath(from = __dirname): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = join(dir, 'models', 'manifest.json');
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The folder a manifest's relative `uri` paths are relative to (the extension root). */
export function manifestRoot(manifestPath: string): string {
  return dirname(dirname(manifestPath));
}

/** Checks parsed manifest data; errors name the file and each problem. */
export function validateManifest(data: unknown, source: string): ModelManifestEntry[] {
  if (!validate(data)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
    throw new ChorusError('bad_input', `Model manifest ${source} is invalid: ${problems}. Fix it to match models/manifest.schema.json.`, { file: source });
  }
  const entries = (data as { models: ModelManifestEntry[] }).models;
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.id)) throw new ChorusError('bad_input', `Model manifest ${source} lists the id "${e.id}" twice: ids must be unique.`, { file: source });
    seen.add(e.id);
  }
  return entries;
}

/** Reads and validates a manifest; no path and none found means no entries. */
export function loadManifest(path: string | undefined = defaultManifestPath()): ModelManifestEntry[] {
  if (!path) return [];
  let text: string;
  try {
    text = readUserFileSync(path, { what: 'model manifest' }).toString('utf8');
  } catch (err) {
    throw new ChorusError('bad_input', `Cannot read the model manifest ${path}: ${(err as Error).message.replace(/\.$/, '')}.`, { file: path });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ChorusError('bad_input', `Model manifest ${path} is not valid JSON: ${(err as Error).message}.`, { file: path });
  }
  return validateManifest(data, path);
}
