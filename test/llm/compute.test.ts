/** Which compute backend a local model tries, and the CPU fallback — the logic, and the real path on this machine. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalBackend, computeAttempts, withComputeFallback, type GpuSetting } from '../../src/llm';
import { FinalAttemptError } from '../../src/llm/local/compute';
import { makeTinyGguf } from '../fixtures/llm/make-tiny-gguf';
import { memoryLogger } from './support';

test('attempt order: the configured GPU (or auto) first, the CPU last; CPU only when forced', () => {
  assert.deepEqual(computeAttempts('auto'), ['auto', false]);
  assert.deepEqual(computeAttempts('cuda'), ['cuda', false]);
  assert.deepEqual(computeAttempts('vulkan'), ['vulkan', false]);
  assert.deepEqual(computeAttempts('metal'), ['metal', false]);
  assert.deepEqual(computeAttempts(false), [false]);
});

test('a failing GPU backend falls back to the CPU with a warning', async () => {
  const logger = memoryLogger();
  const tried: GpuSetting[] = [];
  const r = await withComputeFallback(
    'cuda',
    async (gpu) => {
      tried.push(gpu);
      if (gpu === 'cuda') throw new Error('libcuda.so.1: cannot open shared object file');
      return 'model on cpu';
    },
    logger,
  );
  assert.deepEqual(tried, ['cuda', false]);
  assert.equal(r.value, 'model on cpu');
  assert.equal(r.gpu, false);
  assert.deepEqual(r.failures, [{ gpu: 'cuda', message: 'libcuda.so.1: cannot open shared object file' }]);
  assert.match(logger.text(), /warn: The cuda backend failed \(libcuda.*falling back to the CPU/);
});

test('a working GPU is used without trying the CPU', async () => {
  const tried: GpuSetting[] = [];
  const r = await withComputeFallback('auto', async (gpu) => (tried.push(gpu), 'gpu model'), memoryLogger());
  assert.deepEqual(tried, ['auto']);
  assert.equal(r.gpu, 'auto');
});

test('no second CPU attempt after a failure that already ran on the CPU, nor after a cancel; the last error surfaces', async () => {
  const tried: GpuSetting[] = [];
  await assert.rejects(
    withComputeFallback(
      'auto',
      async (gpu) => {
        tried.push(gpu);
        throw new FinalAttemptError(new Error('bad magic'));
      },
      memoryLogger(),
    ),
    /bad magic/,
  );
  assert.deepEqual(tried, ['auto']);

  tried.length = 0;
  await assert.rejects(
    withComputeFallback(
      'cuda',
      async (gpu) => {
        tried.push(gpu);
        throw new Error('aborted');
      },
      memoryLogger(),
      () => true,
    ),
    /aborted/,
  );
  assert.deepEqual(tried, ['cuda']);

  tried.length = 0;
  await assert.rejects(
    withComputeFallback(
      'vulkan',
      async (gpu) => {
        tried.push(gpu);
        throw new Error(`fails on ${String(gpu)}`);
      },
      memoryLogger(),
    ),
    /fails on false/,
  );
  assert.deepEqual(tried, ['vulkan', false]);
});

test('asking for CUDA loads the real model: on CUDA where it works, else on the CPU after a logged fallback', async () => {
  const { getLlamaGpuTypes } = await import('node-llama-cpp');
  const cudaWorks = (await getLlamaGpuTypes('supported')).includes('cuda');
  const logger = memoryLogger();
  const backend = new LocalBackend({ modelPath: await makeTinyGguf(), logger, gpu: 'cuda', threads: 1 });
  try {
    const info = await backend.info();
    if (cudaWorks) {
      assert.equal(info.compute, 'cuda');
    } else {
      assert.equal(info.compute, 'cpu');
      assert.match(logger.text(), /The cuda backend failed .*falling back to the CPU/);
    }
    const r = await backend.chat([{ role: 'user', content: 'hello' }], { maxTokens: 3, seed: 1 });
    assert.ok(r.usage.completionTokens >= 1);
  } finally {
    await backend.dispose();
  }
});
