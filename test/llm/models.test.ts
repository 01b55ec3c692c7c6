/** The model manifest (schema validation), and finding models on disk without the network. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChorusError } from '../../src/protocol';
import {
  defaultManifestPath,
  findDefaultModel,
  listModels,
  loadManifest,
  resolveModelFile,
  validateManifest,
} from '../../src/llm';
import { downloadFileName, isRemoteUri } from '../../src/llm/models/uri';
import { makeTinyGguf } from '../fixtures/llm/make-tiny-gguf';
import { repoRoot } from '../helpers/cli';

let root: string;
let tiny: string;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'chorus-models-'));
  tiny = await makeTinyGguf();
});
after(() => rmSync(root, { recursive: true, force: true }));

const entry = (over: Record<string, unknown> = {}) => ({
  id: 'm1',
  description: 'a model',
  uri: 'models/m1.gguf',
  sizeBytes: 10,
  contextSize: 4096,
  promptFormat: 'chatml-qwen3',
  ...over,
});

/** A throwaway installation: <dir>/models/manifest.json with these entries. */
function installation(name: string, models: object[]): { dir: string; manifestPath: string; modelsDir: string } {
  const dir = join(root, name);
  const modelsDir = join(dir, 'models');
  mkdirSync(modelsDir, { recursive: true });
  const manifestPath = join(modelsDir, 'manifest.json');
  writeFileSync(manifestPath, JSON.stringify({ models }));
  return { dir, manifestPath, modelsDir };
}

test("the project's models/manifest.json is found and valid", () => {
  const path = defaultManifestPath();
  assert.equal(path, join(repoRoot, 'models', 'manifest.json'));
  const entries = loadManifest(path);
  assert.ok(entries.length >= 1);
  assert.ok(entries.some((e) => e.id === 'chorus-4b-q4_k_m'));
  for (const e of entries) assert.ok(e.contextSize >= 512 && e.sizeBytes > 0);
});

test('manifest validation rejects what the schema forbids, naming the file and the problem', () => {
  const ok = validateManifest({ models: [entry()] }, 'm.json');
  assert.equal(ok[0].id, 'm1');
  const cases: [unknown, RegExp][] = [
    [{ models: [entry({ uri: undefined })] }, /must have required property 'uri'/],
    [{ models: [entry({ sha256: 'abc' })] }, /sha256 must match pattern/],
    [{ models: [entry({ id: 'Bad Id' })] }, /\/id must match pattern/],
    [{ models: [entry({ promptFormat: 'alpaca' })] }, /promptFormat must be equal to one of the allowed values/],
    [{ models: [entry({ extra: 1 })] }, /must NOT have additional properties/],
    [{ models: [entry({ contextSize: 100 })] }, /contextSize must be >= 512/],
    [{ model: [] }, /must have required property 'models'/],
    [{ models: [entry(), entry()] }, /lists the id "m1" twice/],
  ];
  for (const [data, why] of cases) {
    assert.throws(
      () => validateManifest(data, '/x/manifest.json'),
      (err: unknown) =>
        err instanceof ChorusError &&
        err.kind === 'bad_input' &&
        err.message.includes('/x/manifest.json') &&
        why.test(err.message),
      String(why),
    );
  }
  const bad = join(root, 'bad.json');
  writeFileSync(bad, '{"models": [');
  assert.throws(
    () => loadManifest(bad),
    (err: unknown) =>
      err instanceof ChorusError &&
      err.kind === 'bad_input' &&
      /not valid JSON/.test(err.message) &&
      err.message.includes(bad),
  );
});

test('URIs: which are remote, and the file name a download is saved under', () => {
  assert.ok(isRemoteUri('hf:Qwen/Qwen3-4B-GGUF/Qwen3-4B-Q4_K_M.gguf'));
  assert.ok(isRemoteUri('https://example.com/a.gguf'));
  assert.ok(!isRemoteUri('models/a.gguf'));
  assert.ok(!isRemoteUri('/abs/a.gguf'));
  assert.equal(downloadFileName('hf:Qwen/Qwen3-4B-GGUF/Qwen3-4B-Q4_K_M.gguf'), 'Qwen3-4B-Q4_K_M.gguf');
  assert.equal(downloadFileName('hf:user/repo/sub/dir/file.gguf#dev'), 'file.gguf');
  assert.equal(downloadFileName('https://huggingface.co/u/r/resolve/main/x%20y.gguf?download=true'), 'x y.gguf');
  assert.equal(downloadFileName('hf:user/repo:Q4_K_M'), undefined);
});

test('resolving --model offline: a path, a manifest id (relative to the installation or in a model folder), a pulled URI', () => {
  const inst = installation('resolve', [
    entry({ id: 'local', uri: 'models/local.gguf' }),
    entry({ id: 'remote', uri: 'hf:someone/Some-Model-GGUF/some-model.Q4_K_M.gguf', sizeBytes: 2_500_000_000 }),
    entry({ id: 'hub', uri: 'hf:someone/Other-Model-GGUF:Q8_0' }),
  ]);
  const storage = join(inst.dir, 'storage');
  mkdirSync(storage);
  const lookup = { modelDirs: [storage], manifestPath: inst.manifestPath };

  assert.deepEqual(resolveModelFile(tiny, lookup), { path: tiny });

  assert.throws(
    () => resolveModelFile('local', lookup),
    (err: unknown) =>
      err instanceof ChorusError &&
      err.kind === 'bad_input' &&
      /"local" is not on disk: put local\.gguf into/.test(err.message),
  );
  copyFileSync(tiny, join(inst.modelsDir, 'local.gguf'));
  const local = resolveModelFile('local', lookup);
  assert.equal(local.path, join(inst.modelsDir, 'local.gguf'));
  assert.equal(local.entry?.id, 'local');

  assert.throws(
    () => resolveModelFile('remote', lookup),
    (err: unknown) =>
      err instanceof ChorusError &&
      err.kind === 'bad_input' &&
      /not downloaded yet: run `chorus model pull remote` \(about 2\.3 GiB\)/.test(err.message),
  );
  assert.throws(
    () => resolveModelFile('hf:someone/Some-Model-GGUF/some-model.Q4_K_M.gguf', lookup),
    /not downloaded yet .*chorus model pull hf:/,
  );
  copyFileSync(tiny, join(storage, 'some-model.Q4_K_M.gguf'));
  assert.equal(resolveModelFile('remote', lookup).path, join(storage, 'some-model.Q4_K_M.gguf'));
  assert.equal(
    resolveModelFile('hf:someone/Some-Model-GGUF/some-model.Q4_K_M.gguf', lookup).path,
    join(storage, 'some-model.Q4_K_M.gguf'),
  );

  assert.throws(() => resolveModelFile('hub', lookup), /not downloaded yet/);
  copyFileSync(tiny, join(storage, 'hf_someone_Other-Model.Q8_0.gguf'));
  assert.equal(resolveModelFile('hub', lookup).path, join(storage, 'hf_someone_Other-Model.Q8_0.gguf'));

  assert.throws(
    () => resolveModelFile('no-such-model', lookup),
    (err: unknown) =>
      err instanceof ChorusError &&
      err.kind === 'bad_input' &&
      /Unknown model "no-such-model".*chorus model list/.test(err.message),
  );
  assert.throws(
    () => resolveModelFile('missing/file.gguf', lookup),
    (err: unknown) => err instanceof ChorusError && err.kind === 'bad_input' && /not found/.test(err.message),
  );
});

test('listModels: manifest entries with presence and size, then other GGUF files, without duplicates', async () => {
  const inst = installation('list', [
    entry({ id: 'alpha', uri: 'models/alpha.gguf', sizeBytes: 123 }),
    entry({ id: 'beta', uri: 'models/beta.gguf', sizeBytes: 456 }),
  ]);
  copyFileSync(tiny, join(inst.modelsDir, 'alpha.gguf'));
  copyFileSync(tiny, join(inst.modelsDir, 'zeta.gguf'));
  writeFileSync(join(inst.modelsDir, 'notes.txt'), 'not a model');
  const size = readFileSync(tiny).length;
  const choices = await listModels({ modelDirs: [inst.modelsDir], manifestPath: inst.manifestPath });
  assert.deepEqual(
    choices.map((c) => [c.id, c.source, c.present, c.sizeBytes]),
    [
      ['alpha', 'manifest', true, size],
      ['beta', 'manifest', false, 456],
      ['zeta.gguf', 'found', true, size],
    ],
  );
  assert.equal(choices[2].uri, join(inst.modelsDir, 'zeta.gguf'));
  assert.equal(choices[1].downloadable, false);
});

test('findDefaultModel: the first *.gguf in the folders, else a present manifest entry, else nothing', () => {
  const empty = join(root, 'empty');
  mkdirSync(empty);
  const inst = installation('default', [entry({ id: 'elsewhere', uri: 'weights/e.gguf' })]);
  assert.equal(findDefaultModel([empty, join(root, 'does-not-exist')], inst.manifestPath), undefined);

  mkdirSync(join(inst.dir, 'weights'));
  copyFileSync(tiny, join(inst.dir, 'weights', 'e.gguf'));
  assert.equal(findDefaultModel([empty], inst.manifestPath), join(inst.dir, 'weights', 'e.gguf'));

  const two = join(root, 'two');
  mkdirSync(two);
  copyFileSync(tiny, join(two, 'b.gguf'));
  copyFileSync(tiny, join(two, 'a.gguf'));
  assert.equal(findDefaultModel([empty, two], inst.manifestPath), join(two, 'a.gguf'));
});

test('every manifest entry downloads from a pinned public address or says it is a local file the user supplies', () => {
  const entries = loadManifest(defaultManifestPath());
  for (const e of entries) {
    if (/^https:\/\//.test(e.uri)) {
      assert.match(
        e.uri,
        /^https:\/\/huggingface\.co\/[^/]+\/[^/]+\/resolve\/[0-9a-f]{40}\/[^/]+\.gguf$/,
        `${e.id}: a download pinned to one revision`,
      );
      assert.match(e.sha256 ?? '', /^[0-9a-f]{64}$/, `${e.id}: a pinned download is checked by sha256`);
    } else {
      assert.match(
        e.description,
        /local file you must supply/,
        `${e.id}: says plainly that the user supplies the file`,
      );
    }
  }
  const reference = entries.find((e) => e.id === 'qwen3-4b-instruct-2507-q4_k_m');
  assert.ok(reference, 'the base model the paper fine-tunes is the reference entry');
  assert.match(reference.uri, /Qwen3-4B-Instruct-2507-Q4_K_M\.gguf$/);
});
