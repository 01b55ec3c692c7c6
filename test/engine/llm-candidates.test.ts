/**
 * Several candidates per round from several experts, with replay experts and real Verilator: the best
 * candidate is kept and named, the others are listed; a failing expert is reported and left out while the others
 * go on; a cancel stops every candidate.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { generateToEnd } from '../../src/engine';
import { candidateSeed, defaultCandidates, limiter } from '../../src/engine/llm/experts';
import { roundSeed } from '../../src/engine/llm/seed';
import { openBackend, type ChatBackend } from '../../src/llm';
import { silentLogger, type LoopEvent } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { replayModel } from '../helpers/replay';
import { fifoRecorded as recorded, fifoResetOnly as resetOnly } from '../helpers/expertReplies';

const fifo = join(repoRoot, 'examples', 'fifo', 'fifo.sv');

const expert = (responses: unknown[]) => openBackend(replayModel(responses as string[]), { logger: silentLogger });

test('three experts, one candidate each: the best is kept and named, the failing expert is reported and dropped', async () => {
  const weak = await expert([resetOnly, resetOnly, resetOnly]);
  const strong = await expert([recorded[0], recorded[1]]);
  const down = await expert([{ error: 'HTTP 503: model is overloaded' }, recorded[0]]);
  const events: LoopEvent[] = [];
  // Formal off: the candidates are under test, not Yosys on the holes left.
  const result = await generateToEnd(
    { rtlFiles: [fifo], engine: 'llm', formal: false, targets: { line: 100, branch: 100 }, rounds: 1, stallRounds: 5 },
    { logger: silentLogger, signal: new AbortController().signal, backend: weak, experts: [weak, strong, down] },
    (e) => events.push(e),
  );
  const [r1, r2] = result.rounds;
  // Round 1: the strong expert's testbench measures best and is kept, listed first; the down expert is an error.
  assert.equal(r1.expert, strong.label);
  assert.deepEqual(
    r1.candidateRuns?.map((c) => [c.expert, c.status, c.kept]),
    [
      [strong.label, 'ok', true],
      [weak.label, 'ok', false],
      [down.label, 'error', false],
    ],
  );
  assert.ok((r1.candidateRuns?.[0].coverage.line.pct ?? 0) > (r1.candidateRuns?.[1].coverage.line.pct ?? 0));
  assert.match(r1.candidateRuns?.[2].error ?? '', /503/);
  assert.ok(
    events.some(
      (e) =>
        e.type === 'log' &&
        e.level === 'error' &&
        e.message.includes(`Expert ${down.label} failed in round 1`) &&
        e.message.includes('go on'),
    ),
  );
  // The candidates event carries each testbench, so any of them can be opened.
  const listed = events.find((e) => e.type === 'candidates' && e.round === 1);
  assert.ok(listed?.type === 'candidates');
  assert.match(listed.candidates[0].testbench ?? '', /module tb_fifo/);
  assert.equal(listed.candidates[2].testbench, undefined);
  // Round 2: the three candidates go round-robin over the two experts still going; the strong one's patch closes the FIFO.
  assert.deepEqual(r2.candidateRuns?.map((c) => c.expert).sort(), [strong.label, weak.label, weak.label].sort());
  assert.equal(r2.expert, strong.label);
  assert.equal(result.pass, true);
  assert.equal(result.expert, strong.label);
  assert.equal((down as unknown as { remaining: number }).remaining, 1, 'the dropped expert was not asked again');
  // The round's tokens count every candidate's.
  assert.ok((r1.tokens ?? 0) > Math.ceil(recorded[0].length / 4));
});

test('a cancel stops every candidate of the round at once', async () => {
  const slow = (ms: number) => expert([{ text: recorded[0], delayMs: ms }]);
  const experts: ChatBackend[] = [await slow(60_000), await slow(60_000)];
  const controller = new AbortController();
  const started = Date.now();
  const result = await generateToEnd(
    { rtlFiles: [fifo], engine: 'llm', formal: false, targets: { line: 100 }, rounds: 1, candidates: 4 },
    { logger: silentLogger, signal: controller.signal, backend: experts[0], experts },
    (e) => {
      if (e.type === 'roundStart') setTimeout(() => controller.abort(), 200);
    },
  );
  assert.equal(result.stopReason, 'cancelled');
  assert.ok(Date.now() - started < 50_000, 'no candidate ran on to its 60 s reply');
});

test('defaults and seeds: one candidate per expert, 1 alone on a CPU or replay; candidate 0 samples as a one-candidate run', async () => {
  const a = await expert(['x']);
  const b = await expert(['y']);
  const signal = new AbortController().signal;
  assert.equal(await defaultCandidates([a, b], signal), 2);
  assert.equal(await defaultCandidates([a], signal), 1);
  const gpu: ChatBackend = {
    label: 'g',
    kind: 'local',
    chat: a.chat.bind(a),
    compute: async () => 'cuda',
    dispose: async () => {},
  };
  const cpu: ChatBackend = { ...gpu, compute: async () => 'cpu' };
  assert.equal(await defaultCandidates([gpu], signal), 4);
  assert.equal(await defaultCandidates([cpu], signal), 1);
  assert.equal(candidateSeed(7, 3, 0, 0), roundSeed(7, 3));
  assert.equal(candidateSeed(7, 3, 0, 1), roundSeed(roundSeed(7, 3), 1));
  const seeds = new Set([0, 1, 2, 3].map((slot) => candidateSeed(7, 3, slot, 0)));
  assert.equal(seeds.size, 4, 'each candidate samples with its own seed');

  // The measuring bound: never more tasks at once than the limit.
  const limit = limiter(2);
  let running = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 6 }, () =>
      limit(async () => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 20));
        running--;
      }),
    ),
  );
  assert.equal(most, 2);
});
