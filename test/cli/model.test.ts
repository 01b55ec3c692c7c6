/** `chorus model list | pull | info` through the built CLI (run `node scripts/build.mjs` first). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { makeTinyGguf } from '../fixtures/llm/make-tiny-gguf';
import { loopback } from '../llm/support';

let dir: string;
let tiny: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chorus-cli-model-'));
  tiny = await makeTinyGguf();
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('model info --json: architecture, parameters, quantization, context length, chat template', async () => {
  const r = await runCli(['model', 'info', tiny, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const info = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.equal(info.path, tiny);
  assert.equal(info.architecture, 'llama');
  assert.equal(info.quantization, 'F32');
  assert.equal(info.contextLength, 4096);
  assert.equal(info.chatTemplate, true);
  assert.equal(info.name, 'tiny-llama-chatml');
  assert.equal(info.sizeBytes, readFileSync(tiny).length);
  // 2 layers of 64-dim attention and 128-wide FFN, 259-token embeddings and output: the tensor shapes add up to this.
  const vocab = 259;
  const layer = 4 * 64 * 64 + 3 * 64 * 128 + 2 * 64;
  assert.equal(info.parameters, 2 * 64 * vocab + 2 * layer + 64);

  const bare = await runCli(['model', 'info', await makeTinyGguf({ chatTemplate: false }), '--json']);
  assert.equal((JSON.parse(bare.stdout) as { chatTemplate: boolean }).chatTemplate, false);
});

test('model info in text, and clear exit-2 errors for a missing file or a file that is not a GGUF', async () => {
  const r = await runCli(['model', 'info', tiny]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /architecture: +llama/);
  assert.match(r.stdout, /quantization: +F32/);
  assert.match(r.stdout, /context: +4096 tokens/);
  assert.match(r.stdout, /chat template: present/);
  assert.match(r.stdout, /parameters: +115\.\d K/);

  const missing = await runCli(['model', 'info', join(dir, 'none.gguf')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Cannot read .*none\.gguf.*Give the path of a \.gguf file/);
  const text = join(dir, 'fake.gguf');
  writeFileSync(text, 'not a model at all');
  const fake = await runCli(['model', 'info', text]);
  assert.equal(fake.code, 2);
  assert.match(fake.stderr, /not a readable GGUF model/);
});

test('model list --json: manifest entries with presence, and GGUF files found in --models-dir', async () => {
  const models = join(dir, 'models-a');
  mkdirSync(models);
  copyFileSync(tiny, join(models, 'mine.gguf'));
  const r = await runCli(['model', 'list', '--json', '--models-dir', models]);
  assert.equal(r.code, 0, r.stderr);
  const list = JSON.parse(r.stdout) as {
    id: string;
    source: string;
    present: boolean;
    sizeBytes: number;
    path?: string;
  }[];
  const manifest = list.find((c) => c.id === 'chorus-4b-q4_k_m');
  assert.equal(manifest?.source, 'manifest');
  assert.equal(typeof manifest?.present, 'boolean');
  const mine = list.find((c) => c.id === 'mine.gguf');
  assert.deepEqual(mine && [mine.source, mine.present, mine.sizeBytes, mine.path], [
    'found',
    true,
    readFileSync(tiny).length,
    join(models, 'mine.gguf'),
  ]);

  const text = await runCli(['model', 'list', '--models-dir', models]);
  assert.equal(text.code, 0);
  assert.match(text.stdout, /mine\.gguf +found +456\.6 KiB +present/);
  assert.match(text.stdout, /qwen3-4b-q4_k_m +manifest +2\.3 GiB +(present|missing)/);
});

test('model pull from a loopback URL: saved with progress lines; a local-only manifest id is a usage error', async () => {
  const data = readFileSync(tiny);
  const server = await loopback((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': data.length });
    res.end(req.method === 'HEAD' ? undefined : data);
  });
  try {
    const dest = join(dir, 'pulled');
    const r = await runCli(['model', 'pull', `${server.url}/files/pulled.gguf`, '--dir', dest]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`Saved ${join(dest, 'pulled.gguf').replace(/[.]/g, '\\.')}`));
    assert.match(r.stderr, /Downloading: 100% \(456\.6 KiB of 456\.6 KiB\)/);
    assert.ok(readFileSync(join(dest, 'pulled.gguf')).equals(data));

    const json = await runCli([
      'model',
      'pull',
      `${server.url}/files/pulled.gguf`,
      '--dir',
      dest,
      '--json',
      '--sha256',
      '0'.repeat(64),
    ]);
    assert.equal(json.code, 1);
    assert.match(json.stderr, /Checksum mismatch/);
  } finally {
    await server.close();
  }
  const local = await runCli(['model', 'pull', 'chorus-4b-q4_k_m']);
  assert.equal(local.code, 2);
  assert.match(local.stderr, /no download address/);
});
