/**
 * Experts for a run's candidates, each named by a URI: `replay:<file.json>`, `lora:<adapter.gguf>` (an
 * adapter on the configured base model, which is loaded once for all of them), `endpoint:<model>` (a model at the
 * configured endpoint), an `http(s)://…/v1#<model>` endpoint, or a local model (a .gguf path or manifest id).
 */
import { basename } from 'node:path';
import { ChorusError } from '../protocol';
import type { ChatBackend } from './backend';
import { EndpointBackend } from './endpoint/openai';
import { openBackend, openLocal, type OpenBackendOptions } from './open';

export type ExpertSpec =
  | { kind: 'replay'; uri: string }
  | { kind: 'lora'; uri: string; adapter: string; scale: number }
  | { kind: 'endpoint'; uri: string; baseUrl?: string; model: string }
  | { kind: 'model'; uri: string; model: string };

/** What an expert URI names; `lora:<file>` may end in `@<scale>` (default 1). */
export function parseExpert(uri: string): ExpertSpec {
  const text = uri.trim();
  if (!text)
    throw new ChorusError(
      'bad_input',
      'An empty --expert: pass a .gguf path, lora:<adapter.gguf>, endpoint:<model>, an http(s) URL or replay:<file.json>.',
    );
  if (text.startsWith('replay:')) return { kind: 'replay', uri: text };
  if (text.startsWith('lora:')) {
    const [, adapter, scale] = /^lora:(.+?)(?:@(\d+(?:\.\d+)?))?$/.exec(text) ?? [];
    if (adapter === undefined)
      throw new ChorusError(
        'bad_input',
        `Expert ${text}: lora: needs an adapter file, e.g. lora:adapters/verilog.gguf or lora:adapters/verilog.gguf@0.5.`,
      );
    return { kind: 'lora', uri: text, adapter, scale: scale !== undefined ? Number(scale) : 1 };
  }
  if (text.startsWith('endpoint:')) {
    const model = text.slice('endpoint:'.length);
    if (!model)
      throw new ChorusError(
        'bad_input',
        `Expert ${text}: endpoint: needs a model name served at --endpoint, e.g. endpoint:qwen3-8b.`,
      );
    return { kind: 'endpoint', uri: text, model };
  }
  if (/^https?:\/\//.test(text)) {
    // split always yields a first element, so the default is never used.
    const [baseUrl = '', model] = text.split('#', 2);
    if (!model)
      throw new ChorusError(
        'bad_input',
        `Expert ${text}: name the served model after #, e.g. http://127.0.0.1:8000/v1#qwen3-8b.`,
      );
    return { kind: 'endpoint', uri: text, baseUrl, model };
  }
  return { kind: 'model', uri: text, model: text };
}

export interface ExpertOptions extends OpenBackendOptions {
  /** The base model LoRA experts adapt (`--model`, `chorus.model`). */
  baseModel?: string | undefined;
}

export interface OpenedExperts {
  experts: ChatBackend[];
  failures: { expert: string; message: string }[];
}

/** Opens one expert; a local one is loaded now, so an adapter that does not fit its base fails here, by name. */
async function openExpert(spec: ExpertSpec, opts: ExpertOptions): Promise<ChatBackend> {
  switch (spec.kind) {
    case 'replay':
      return openBackend(spec.uri, { ...opts, endpoint: undefined });
    case 'endpoint': {
      const baseUrl = spec.baseUrl ?? opts.endpoint?.baseUrl;
      if (!baseUrl)
        throw new ChorusError(
          'bad_input',
          `${spec.uri} needs --endpoint <url> (chorus.endpoint), or give the URL: http://host:port/v1#${spec.model}.`,
        );
      return new EndpointBackend({
        ...opts.endpoint,
        baseUrl,
        model: spec.model,
        logger: opts.logger,
        sampling: opts.sampling,
      });
    }
    case 'lora':
    case 'model': {
      const base = spec.kind === 'lora' ? opts.baseModel : spec.model;
      if (!base)
        throw new ChorusError(
          'bad_input',
          `${spec.uri} adapts a base model: pass it with --model <base.gguf> (chorus.model).`,
        );
      const backend = openLocal(base, opts, {
        label: (path, id) => (spec.kind === 'lora' ? `lora:${basename(spec.adapter)}` : (id ?? basename(path))),
        ...(spec.kind === 'lora' ? { lora: [{ filePath: spec.adapter, scale: spec.scale }] } : {}),
      });
      try {
        await backend.load(opts.signal);
      } catch (err) {
        await backend.dispose();
        throw err;
      }
      return backend;
    }
  }
}

/** Every expert opened, or listed with why it could not be: the run goes on with those that opened. */
export async function openExperts(uris: readonly string[], opts: ExpertOptions): Promise<OpenedExperts> {
  const out: OpenedExperts = { experts: [], failures: [] };
  for (const uri of uris) {
    try {
      out.experts.push(await openExpert(parseExpert(uri), opts));
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      out.failures.push({ expert: uri, message: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}
