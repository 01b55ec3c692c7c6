/**
 * The one way CHORUS reads a file a user named (DUT and testbench sources, filelists, `-v` libraries, specs,
 * prompt templates, replay files, datasets): only a regular file, and never more than a bound. A device reports
 * size 0 and never ends (`/dev/zero` would fill memory), and opening a FIFO blocks until a writer comes (in a
 * thread-pool thread that even `process.exit` waits for), so the path is stat'ed before it is opened, opened
 * non-blocking, and the opened descriptor is checked again: a file swapped for a FIFO or a device between the
 * two is refused too. Reads stop one byte past the bound, so a file that grows while read cannot grow memory.
 *
 * Node built-ins only, and not re-exported from the protocol's index: the browser bundle never sees it. It lives
 * here because every layer that reads user files (hdl, sim, llm, engine, adapters) may import the protocol.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { ChorusError, type SourceLocation } from './errors';
import { formatBytes } from './byteSize';

/** The default bound: far above any hand-written source, list or spec; a larger file is a netlist, a log or a mistake. */
export const MAX_USER_FILE_BYTES = 64 * 1024 ** 2;

export interface UserFileOptions {
  /** Largest size read (default MAX_USER_FILE_BYTES). */
  maxBytes?: number | undefined;
  /** What the file is, for messages: "DUT file", "filelist", "replay file"; default "file". */
  what?: string;
  /** The path as the user wrote it, for the error's location; default the path read. */
  shownAs?: string;
}

/** Why a user file was refused; `missing` lets a caller say where relative paths start. */
export type UserFileProblem = 'missing' | 'folder' | 'not_regular' | 'too_large' | 'unreadable';

/** A refused user file: always bad input (CLI exit 2), located at the file. */
export class UserFileError extends ChorusError {
  constructor(
    readonly problem: UserFileProblem,
    message: string,
    location: SourceLocation,
    options?: { cause?: unknown },
  ) {
    super('bad_input', message, location, options);
  }
}

// O_NONBLOCK: should a FIFO appear between the stat and the open, the open returns at once instead of waiting for a writer.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

function refuseStat(s: Stats, path: string, o: UserFileOptions): void {
  const what = o.what ?? 'file';
  const at = { file: o.shownAs ?? path };
  if (s.isDirectory()) throw new UserFileError('folder', `This is a folder: pass the ${what} itself.`, at);
  if (!s.isFile()) {
    const kind = s.isFIFO()
      ? 'a FIFO (named pipe)'
      : s.isSocket()
        ? 'a socket'
        : s.isCharacterDevice() || s.isBlockDevice()
          ? 'a device'
          : 'not a regular file';
    throw new UserFileError(
      'not_regular',
      `This is ${kind}, not a regular file: CHORUS reads a ${what} only from a regular file (a device never ends, a pipe blocks); save the text to a file and pass that.`,
      at,
    );
  }
  const max = o.maxBytes ?? MAX_USER_FILE_BYTES;
  if (s.size > max) throw tooLarge(s.size, path, o);
}

function tooLarge(size: number | undefined, path: string, o: UserFileOptions): UserFileError {
  const what = o.what ?? 'file';
  const max = o.maxBytes ?? MAX_USER_FILE_BYTES;
  const sized = size === undefined ? `More than ${formatBytes(max)}` : `A file of ${formatBytes(size)}`;
  return new UserFileError(
    'too_large',
    `${sized}, over the ${formatBytes(max)} limit for a ${what}: check that this is the ${what} you meant, not a netlist, a log or an archive.`,
    { file: o.shownAs ?? path },
  );
}

function statFailure(err: unknown, path: string, o: UserFileOptions): UserFileError {
  const code = (err as NodeJS.ErrnoException).code;
  const at = { file: o.shownAs ?? path };
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return new UserFileError('missing', 'No such file: check the path.', at, { cause: err });
  return new UserFileError(
    'unreadable',
    `Cannot read this ${o.what ?? 'file'} (${code ?? (err as Error).message}): check its permissions.`,
    at,
    { cause: err },
  );
}

/** Reads a regular file of at most `maxBytes`; anything else is a UserFileError naming the path and what to do. */
export async function readUserFile(path: string, o: UserFileOptions = {}): Promise<Buffer> {
  const max = o.maxBytes ?? MAX_USER_FILE_BYTES;
  let handle;
  try {
    refuseStat(await stat(path), path, o);
    handle = await open(path, OPEN_FLAGS);
    refuseStat(await handle.stat(), path, o);
  } catch (err) {
    await handle?.close();
    throw err instanceof UserFileError ? err : statFailure(err, path, o);
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    // One byte past the bound tells a file that grew while read from one that fits.
    while (total <= max) {
      const chunk = Buffer.alloc(Math.min(1024 ** 2, max + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total > max) throw tooLarge(undefined, path, o);
    return Buffer.concat(chunks, total);
  } catch (err) {
    throw err instanceof UserFileError ? err : statFailure(err, path, o);
  } finally {
    await handle.close();
  }
}

/** readUserFile as UTF-8 text. */
export async function readUserText(path: string, o: UserFileOptions = {}): Promise<string> {
  return (await readUserFile(path, o)).toString('utf8');
}

/** readUserFile for synchronous callers (configuration read at start-up). */
export function readUserFileSync(path: string, o: UserFileOptions = {}): Buffer {
  const max = o.maxBytes ?? MAX_USER_FILE_BYTES;
  let fd: number | undefined;
  try {
    refuseStat(statSync(path), path, o);
    fd = openSync(path, OPEN_FLAGS);
    refuseStat(fstatSync(fd), path, o);
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= max) {
      const chunk = Buffer.alloc(Math.min(1024 ** 2, max + 1 - total));
      const bytesRead = readSync(fd, chunk, 0, chunk.length, total);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total > max) throw tooLarge(undefined, path, o);
    return Buffer.concat(chunks, total);
  } catch (err) {
    throw err instanceof UserFileError ? err : statFailure(err, path, o);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
