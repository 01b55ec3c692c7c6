/**
 * The Yosys worker's wall-clock bound: it stops the worker once passed, and a run that turns out to prove only moves
 * it (`extendDeadline`), so the proofs take the time a search would have kept for witnesses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { YosysStopped, YosysWorker } from '../../src/formal/worker';

const SHORT_MS = 200;

test('a worker past its bound is stopped, and one whose bound was moved runs on', { timeout: 120_000 }, async () => {
  const signal = new AbortController().signal;
  const kept = new YosysWorker({ signal, deadlineMs: SHORT_MS, memoryMb: 1024 });
  const moved = new YosysWorker({ signal, deadlineMs: SHORT_MS, memoryMb: 1024 });
  // The safety net of this test's own timeout: a help text takes Yosys well under a second.
  moved.extendDeadline(90_000);
  try {
    // Timers fire in order of their times: the first bound has passed when this sleep ends.
    await sleep(3 * SHORT_MS);
    await assert.rejects(
      kept.run(['-q', '-p', 'help'], {}),
      (e: unknown) => e instanceof YosysStopped && e.why === 'timeout' && /passed its \d+ s bound/.test(e.message),
    );
    const out = await moved.run(['-q', '-p', 'tee -o help.txt help'], {});
    assert.equal(out.code, 0, out.log);
    assert.match(out.files['help.txt'] ?? '', /read_verilog/);
  } finally {
    kept.close();
    moved.close();
  }
});
