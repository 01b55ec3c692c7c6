/** Model URIs: which are remote (`hf:`, http(s)), and the file name a download of one is saved under. */
import { basename } from 'node:path';

export function isRemoteUri(uri: string): boolean {
  return /^(hf:|huggingface:|hf\.co\/|huggingface\.co\/|https?:\/\/)/i.test(uri);
}

/**
 * The file name `chorus model pull` saves a remote URI under, known without the network: the last path part of a
 * URL or of `hf:<user>/<repo>/<file>.gguf`. Undefined for `hf:<user>/<repo>[:quant]`, which only the hub can name.
 */
export function downloadFileName(uri: string): string | undefined {
  if (/^https?:\/\//i.test(uri)) {
    try {
      const name = basename(decodeURIComponent(new URL(uri).pathname));
      return name || undefined;
    } catch {
      return undefined;
    }
  }
  const hubPath = /^(?:hf:|huggingface:|hf\.co\/|huggingface\.co\/)\/*([^#]+)/i.exec(uri)?.[1];
  if (hubPath === undefined) return undefined;
  const parts = hubPath.split('/').filter(Boolean);
  return parts.length > 2 ? parts.at(-1) : undefined;
}

/** For `hf:<user>/<repo>[:quant]`: words a downloaded file's name contains (repo, quant), lower case. */
export function hubNameHints(uri: string): string[] {
  const m = /^(?:hf:|huggingface:|hf\.co\/|huggingface\.co\/)\/*([^/#]+)\/([^/:#]+)(?::([^/#]+))?$/i.exec(uri);
  const [, , repoName, quant] = m ?? [];
  if (repoName === undefined) return [];
  const repo = repoName.toLowerCase().replace(/-gguf$/, '');
  return quant ? [repo, quant.toLowerCase()] : [repo];
}
