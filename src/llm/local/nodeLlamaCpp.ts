/**
 * node-llama-cpp is ESM-only and native, so it is never bundled: it is imported at run time, once, and only when a
 * local model or a GGUF file is actually used (the endpoint and replay paths never load it).
 */
import { ChorusError } from '../../protocol';

export type NodeLlamaCpp = typeof import('node-llama-cpp', { with: { 'resolution-mode': 'import' } });

let loading: Promise<NodeLlamaCpp> | undefined;

export function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  loading ??= import('node-llama-cpp').catch((err: unknown) => {
    loading = undefined;
    throw new ChorusError(
      'missing_tool',
      `node-llama-cpp could not be loaded (${(err as Error).message}): reinstall CHORUS, or use --endpoint with an OpenAI-compatible server.`,
      undefined,
      { cause: err },
    );
  });
  return loading;
}
