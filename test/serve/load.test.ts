/**
 * `chorus serve` under a small load (bench/serve-load.ts's check, cut down): 20 reward requests over 3 designs,
 * 8 clients at once, against a server with 2 slots and a queue bound of 4, no retries. Every request is answered
 * 200 or 429 and nothing else; every accepted answer equals the engine's own measure of that testbench; every tool
 * the server ran was started under the per-request memory bound, as CHORUS_TOOL_LOG recorded it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/protocol';
import { startServe, type RunningServe } from '../../src/serve';
import { limitMs } from '../helpers/time-limits';
import { loadItems, overMemoryBound, referenceMismatches, sendLoad, tally, toolRuns } from './load';

const SLOTS = 2;
const QUEUE = 4;
const CLIENTS = 8;
const MEMORY = 1024 ** 3;
// Three designs, two testbenches each: six cold builds (~6 s each at load 2, two at a time), the rest warm.
const RUN_MS = limitMs(3 * 6_000, 2);

describe('chorus serve under load: the queue bound, the answers, the memory bound', { timeout: 3 * RUN_MS }, () => {
  const work = mkdtempSync(join(tmpdir(), 'chorus-serve-load-test-'));
  const toolLog = join(work, 'tools.jsonl');
  let server: RunningServe;
  before(async () => {
    // Read by each tool start, so set before the server starts anything; the reference measures come after the
    // log is read.
    process.env.CHORUS_TOOL_LOG = toolLog;
    server = await startServe({
      port: 0,
      slots: SLOTS,
      queue: QUEUE,
      memoryLimitBytes: MEMORY,
      logger: silentLogger,
    });
  });
  after(async () => {
    delete process.env.CHORUS_TOOL_LOG;
    await server.close();
    rmSync(work, { recursive: true, force: true });
  });

  it(
    'answers 200 or 429, the engine own reward, every tool under the memory bound',
    { timeout: 2 * RUN_MS },
    async () => {
      const items = loadItems(20, 3, 2);
      const { results } = await sendLoad(items, CLIENTS, () => server.url, false);
      const { accepted, rejected, other } = tally(results);
      assert.deepEqual(
        other.map((r) => r.code),
        [],
        'every request is accepted or refused 429',
      );
      assert.equal(accepted.length + rejected.length, items.length, 'accepted + rejected = sent');
      // Eight arrive at once while builds take seconds: two run, four wait, the rest are refused.
      assert.ok(accepted.length >= SLOTS + QUEUE, `accepted ${accepted.length}`);
      assert.ok(rejected.length >= CLIENTS - SLOTS - QUEUE, `rejected ${rejected.length}`);
      for (const r of accepted) assert.equal(r.body?.status, 'ok', `${r.item.tbName}: ${JSON.stringify(r.body)}`);

      const runs = toolRuns(toolLog);
      assert.ok(runs.length >= accepted.length, `the tool log recorded ${runs.length} runs`);
      assert.deepEqual(
        overMemoryBound(runs, MEMORY).map((e) => `${e.tool} ${JSON.stringify(e.limits)}`),
        [],
        'every tool ran under the per-request memory bound',
      );

      delete process.env.CHORUS_TOOL_LOG;
      const reference = await referenceMismatches(accepted, work, MEMORY);
      assert.equal(reference.checked, new Set(accepted.map((r) => r.item.tbName)).size);
      assert.deepEqual(reference.mismatches, [], 'each answer is the engine own reward of that testbench');
    },
  );
});
