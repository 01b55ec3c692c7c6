/** `pullModel` from a loopback server: progress, resume of a partial download, checksum verification. */
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChorusError } from '../../src/protocol';
import { findDefaultModel, listModels, openBackend, pullModel } from '../../src/llm';
import { makeTinyGguf } from '../fixtures/llm/make-tiny-gguf';
import { loopback, memoryLogger, type Loopback } from './support';

let root: string;
let tiny: Buffer;
let server: Loopback | undefined;
const logger = memoryLogger();

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'chorus-pull-'));
  tiny = readFileSync(await makeTinyGguf());
});
after(() => rmSync(root, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let dirs = 0;
const freshDir = () => join(root, `d${++dirs}`);

interface Served {
  url: string;
  ranges: (string | undefined)[];
}

/**
 * Serves `data` at /models/<name> with byte-range support. `stallFrom`: a response reaching this offset sends
 * what comes before it and then stalls, the way a slow or broken link leaves a download half done.
 */
async function serveFile(name: string, data: Buffer, stallFrom = Infinity): Promise<Served> {
  const ranges: (string | undefined)[] = [];
  const stalled: ServerResponse[] = [];
  server = await loopback((req, res) => {
    if (req.url !== `/models/${name}`) {
      res.writeHead(404).end();
      return;
    }
    ranges.push(req.headers.range);
    const m = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    const end = m && m[2] ? Number(m[2]) : data.length - 1;
    res.writeHead(m ? 206 : 200, {
      'content-type': 'application/octet-stream',
      'accept-ranges': 'bytes',
      'content-length': end - start + 1,
      ...(m ? { 'content-range': `bytes ${start}-${end}/${data.length}` } : {}),
    });
    if (req.method === 'HEAD') return void res.end();
    if (end < stallFrom) return void res.end(data.subarray(start, end + 1));
    res.write(data.subarray(start, Math.max(start, Math.min(stallFrom, end + 1))));
    stalled.push(res);
  });
  return { url: `${server.url}/models/${name}`, ranges };
}

test('downloads with progress up to the total, names the file after the URL, and skips a second pull', async () => {
  const { url } = await serveFile('tiny.gguf', tiny);
  const dest = freshDir();
  const progress: [number, number][] = [];
  const path = await pullModel(url, { destDir: dest, logger, onProgress: (d, t) => progress.push([d, t]) });
  assert.equal(path, join(dest, 'tiny.gguf'));
  assert.ok(readFileSync(path).equals(tiny));
  assert.ok(progress.length >= 1);
  assert.deepEqual(progress.at(-1), [tiny.length, tiny.length]);
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i][0] >= progress[i - 1][0], 'progress never goes back');
  assert.deepEqual(readdirSync(dest), ['tiny.gguf'], 'no temporary file is left');
  const mtime = statSync(path).mtimeMs;
  assert.equal(await pullModel(url, { destDir: dest, logger }), path);
  assert.equal(statSync(path).mtimeMs, mtime, 'a complete file is not downloaded again');

  // The pulled file is now what `hf:`/https URIs and findDefaultModel resolve to, offline.
  assert.equal(findDefaultModel([dest]), path);
  const b = await openBackend(url, { logger, modelDirs: [dest] });
  assert.equal(b.kind, 'local');
  await b.dispose();
});

test('a cancelled download resumes: the second pull fetches only what is missing', async () => {
  // Bigger than one 5 MiB download chunk, so the first chunk completes and is recorded before the stall.
  const big = Buffer.alloc(12 * 1024 * 1024);
  for (let i = 0; i < big.length; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
  const chunk = 5 * 1024 * 1024;
  const first = await serveFile('big.gguf', big, chunk + 1000);
  const dest = freshDir();
  const controller = new AbortController();
  const partial = join(dest, 'big.gguf.ipull');
  const pending = pullModel(first.url, {
    destDir: dest,
    logger,
    signal: controller.signal,
    onProgress: () => {
      // Cancel once the first chunk and its progress record are on disk (the record goes after the data).
      if (existsSync(partial) && statSync(partial).size > big.length) controller.abort();
    },
  });
  const poll = setInterval(() => existsSync(partial) && statSync(partial).size > big.length && controller.abort(), 20);
  await assert.rejects(
    pending,
    (err: unknown) =>
      err instanceof ChorusError && err.kind === 'cancelled' && /pull again to resume/.test(err.message),
  );
  clearInterval(poll);
  assert.ok(existsSync(partial), 'the partial download is kept');
  assert.ok(!existsSync(join(dest, 'big.gguf')));
  await server?.close();

  const second = await serveFile('big.gguf', big);
  const path = await pullModel(second.url, { destDir: dest, logger, sha256: sha(big) });
  assert.ok(readFileSync(path).equals(big));
  const starts = second.ranges.filter((r): r is string => Boolean(r)).map((r) => Number(/bytes=(\d+)/.exec(r)?.[1]));
  assert.ok(starts.length >= 1, `ranged requests: ${JSON.stringify(second.ranges)}`);
  assert.ok(
    starts.every((s) => s >= chunk),
    `the first chunk was not fetched again: ${JSON.stringify(second.ranges)}`,
  );
  assert.ok(!existsSync(partial));
});

test('a checksum mismatch deletes the file and fails; the right checksum passes', async () => {
  const { url } = await serveFile('tiny.gguf', tiny);
  const dest = freshDir();
  await assert.rejects(
    pullModel(url, { destDir: dest, logger, sha256: '0'.repeat(64) }),
    (err: unknown) =>
      err instanceof ChorusError &&
      err.kind === 'failed' &&
      /Checksum mismatch/.test(err.message) &&
      err.message.includes(sha(tiny)),
  );
  assert.deepEqual(readdirSync(dest), [], 'the bad file was deleted');
  const path = await pullModel(url, { destDir: dest, logger, sha256: sha(tiny) });
  assert.ok(readFileSync(path).equals(tiny));
});

test('a manifest id pulls its URI and checks its sha256; local-only entries and unknown ids are clear errors', async () => {
  const { url } = await serveFile('tiny.gguf', tiny);
  const manifestDir = freshDir();
  const manifestPath = join(manifestDir, 'models', 'manifest.json');
  mkdirSync(join(manifestDir, 'models'), { recursive: true });
  const entry = (id: string, uri: string, sum?: string) => ({
    id,
    description: id,
    uri,
    sizeBytes: tiny.length,
    contextSize: 4096,
    promptFormat: 'gguf-template',
    ...(sum ? { sha256: sum } : {}),
  });
  writeFileSync(
    manifestPath,
    JSON.stringify({
      models: [
        entry('tiny', url, sha(tiny)),
        entry('tiny-wrong', url, 'f'.repeat(64)),
        entry('local-only', 'models/local.gguf'),
      ],
    }),
  );
  const dest = join(manifestDir, 'models');
  const before = (await listModels({ modelDirs: [dest], manifestPath })).find((c) => c.id === 'tiny');
  assert.equal(before?.present, false);
  assert.equal(before?.downloadable, true);

  const path = await pullModel('tiny', { destDir: dest, logger, manifestPath });
  assert.ok(readFileSync(path).equals(tiny));
  const listed = (await listModels({ modelDirs: [dest], manifestPath })).find((c) => c.id === 'tiny');
  assert.equal(listed?.present, true);
  assert.equal(listed?.path, path);

  rmSync(path);
  await assert.rejects(pullModel('tiny-wrong', { destDir: dest, logger, manifestPath }), /Checksum mismatch/);
  await assert.rejects(
    pullModel('local-only', { destDir: dest, logger, manifestPath }),
    (err: unknown) => err instanceof ChorusError && err.kind === 'bad_input' && /no download address/.test(err.message),
  );
  await assert.rejects(
    pullModel('nope', { destDir: dest, logger, manifestPath }),
    (err: unknown) => err instanceof ChorusError && err.kind === 'bad_input' && /Unknown model/.test(err.message),
  );
});

test('a missing file on the server fails with a clear message', async () => {
  const { url } = await serveFile('tiny.gguf', tiny);
  await assert.rejects(
    pullModel(url.replace('tiny.gguf', 'other.gguf'), { destDir: freshDir(), logger }),
    (err: unknown) =>
      err instanceof ChorusError && err.kind === 'failed' && /Download of .*other\.gguf failed/.test(err.message),
  );
});
