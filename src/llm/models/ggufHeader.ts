/**
 * A cheap sanity check of a GGUF header before node-llama-cpp parses the file: its parser trusts the tensor and
 * metadata counts, and a truncated or corrupt file made it loop and grow to gigabytes instead of failing.
 */
import { open } from 'node:fs/promises';
import { ChorusError } from '../../protocol';

/** The smallest possible tensor-info and metadata entries, in bytes: counts beyond what the file can hold are lies. */
const MIN_TENSOR_INFO = 8 + 1 + 4 + 8 + 4 + 8;
const MIN_METADATA_KV = 8 + 1 + 4 + 1;

export async function checkGgufHeader(path: string): Promise<void> {
  const bad = (why: string) =>
    new ChorusError('bad_input', `${path} is not a readable GGUF model (${why}): download it again or check the path.`, { file: path });
  let size: number;
  const header = Buffer.alloc(24);
  let read: number;
  try {
    const fh = await open(path, 'r');
    try {
      size = (await fh.stat()).size;
      ({ bytesRead: read } = await fh.read(header, 0, 24, 0));
    } finally {
      await fh.close();
    }
  } catch (err) {
    throw new ChorusError('bad_input', `Cannot read ${path}: ${(err as Error).message}. Give the path of a .gguf file.`, { file: path });
  }
  if (read < 24 || header.toString('latin1', 0, 4) !== 'GGUF') throw bad('no GGUF header');
  const version = header.readUInt32LE(4);
  if (version < 2 || version > 3) throw bad(`GGUF version ${version} is not supported; versions 2 and 3 are`);
  const tensors = header.readBigUInt64LE(8);
  const kvs = header.readBigUInt64LE(16);
  if (tensors * BigInt(MIN_TENSOR_INFO) + kvs * BigInt(MIN_METADATA_KV) > BigInt(size - 24)) {
    throw bad(`its header lists ${tensors} tensors and ${kvs} metadata entries, more than ${size} bytes can hold: the file is truncated or corrupt`);
  }
}
