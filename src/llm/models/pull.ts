/**
 * `chorus model pull`: the one place CHORUS uses the network for models. Downloads with node-llama-cpp's
 * downloader (ipull): progress, resume of a partial download, then a sha256 check when the manifest has one.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import { ChorusError, type Logger } from '../../protocol';
import { loadNodeLlamaCpp } from '../local/nodeLlamaCpp';
import { defaultManifestPath, loadManifest } from './manifest';
import { downloadFileName, isRemoteUri } from './uri';

export interface PullOptions {
  destDir: string;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  logger: Logger;
  manifestPath?: string;
  /** Checked after download; a manifest entry's own sha256 is used when this is absent. */
  sha256?: string | undefined;
}

/** Downloads a manifest id or an `hf:`/https URI into destDir; returns the file's path. */
export async function pullModel(idOrUri: string, opts: PullOptions): Promise<string> {
  const entry = isRemoteUri(idOrUri) ? undefined : loadManifest(opts.manifestPath ?? defaultManifestPath()).find((e) => e.id === idOrUri);
  const uri = entry?.uri ?? idOrUri;
  if (!isRemoteUri(uri)) {
    throw new ChorusError(
      'bad_input',
      entry
        ? `The model "${entry.id}" has no download address (${entry.uri} is a local file): put the GGUF there, or pull an hf:… or https:// URI.`
        : `Unknown model "${idOrUri}": give a manifest id (\`chorus model list\`), an hf:<user>/<repo>/<file>.gguf URI or an https:// URL.`,
    );
  }
  const expected = (opts.sha256 ?? entry?.sha256)?.toLowerCase();
  const { createModelDownloader } = await loadNodeLlamaCpp();
  await mkdir(opts.destDir, { recursive: true });
  opts.logger.debug(`Downloading ${uri} into ${opts.destDir}.`);

  let path: string;
  try {
    const fileName = downloadFileName(uri);
    const downloader = await createModelDownloader({
      modelUri: uri,
      dirPath: opts.destDir,
      ...(fileName !== undefined ? { fileName } : {}),
      showCliProgress: false,
      // A partial download stays (as a temporary file) so the next pull resumes it.
      deleteTempFileOnCancel: false,
      skipExisting: true,
      parallelDownloads: 1,
      onProgress: ({ downloadedSize, totalSize }) => opts.onProgress?.(downloadedSize, totalSize),
    });
    path = await downloader.download(opts.signal ? { signal: opts.signal } : {});
    // ipull ends a cancelled download quietly: without this check a partial file would pass for a finished one.
    if (opts.signal?.aborted) throw opts.signal.reason;
  } catch (err) {
    if (opts.signal?.aborted) throw new ChorusError('cancelled', `Download of ${uri} cancelled; run the same pull again to resume it.`);
    throw new ChorusError('failed', `Download of ${uri} failed: ${(err as Error).message}. Check the address and the network, then pull again (it resumes).`, undefined, { cause: err });
  }

  if (expected) {
    const actual = await sha256File(path, opts.signal);
    if (actual !== expected) {
      await unlink(path).catch(() => undefined);
      throw new ChorusError(
        'failed',
        `Checksum mismatch for ${path}: expected sha256 ${expected}, got ${actual}. The file was deleted; pull again, and if it repeats the source or the manifest is wrong.`,
        { file: path },
      );
    }
    opts.logger.debug(`sha256 of ${path} verified.`);
  }
  return path;
}

export function sha256File(path: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    const stream = createReadStream(path, { signal });
    stream.on('data', (chunk) => hash.update(chunk));
    stream.on('error', (err) => reject(signal?.aborted ? new ChorusError('cancelled', 'Cancelled.') : err));
    stream.on('end', () => resolve(hash.digest('hex')));
  });
}
