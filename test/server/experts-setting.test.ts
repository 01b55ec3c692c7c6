/**
 * `chorus.experts` and `chorus.candidates` through the built language server over stdio: two replay
 * experts each write one of a round's two candidates, the simulator keeps the better, and the round summaries and
 * the result name the experts; an expert that cannot be opened is reported and the others go on.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Notifications, Requests, type GenerateResult, type LoopEvent } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { onNotification, request, startServer, type ServerUnderTest } from '../helpers/lsp';
import { counterClose, counterResetOnly } from '../helpers/expertReplies';

let work: string;
let lsp: ServerUnderTest;
let settings: Record<string, unknown> = {};
let uri: string;
let closer: string;
let weak: string;
let missing: string;
const events = new Map<string, LoopEvent[]>();

/** One `chorus/generate` run on the counter under `experts`, two candidates a round, line 100% as the target. */
async function generate(runId: string, experts: string[]): Promise<GenerateResult> {
  settings = { engine: 'llm', experts, candidates: 2, maxRounds: 1, targets: { line: 100 } };
  return request(lsp.conn, Requests.generate, { uri, runId, top: 'counter' });
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'chorus-experts-setting-'));
  const design = join(work, 'counter.sv');
  copyFileSync(join(repoRoot, 'examples', 'counter', 'counter.sv'), design);
  uri = pathToFileURL(design).toString();
  // Replay experts are opened afresh for each run, so each run reads these from their first reply.
  const closerFile = join(work, 'closer.json');
  const weakFile = join(work, 'weak.json');
  writeFileSync(closerFile, JSON.stringify({ responses: [counterClose, counterResetOnly] }));
  writeFileSync(weakFile, JSON.stringify({ responses: [counterResetOnly, counterResetOnly] }));
  closer = `replay:${closerFile}`;
  weak = `replay:${weakFile}`;
  missing = `replay:${join(work, 'no-such-expert.json')}`;
  lsp = await startServer(
    () => settings,
    undefined,
    (conn) =>
      onNotification(conn, Notifications.loopEvent, (p) => {
        const list = events.get(p.runId) ?? [];
        list.push(p.event);
        events.set(p.runId, list);
      }),
  );
});

after(async () => {
  await lsp?.close();
  rmSync(work, { recursive: true, force: true });
});

test('two replay experts, two candidates: the round lists both experts’ candidates and the result names the kept expert', async () => {
  // The weak expert first: the kept candidate is chosen by coverage, not by the order asked.
  const result = await generate('two-experts', [weak, closer]);
  assert.equal(result.pass, true, JSON.stringify(result.rounds));
  assert.equal(result.stopReason, 'targets met');
  assert.equal(result.rounds.length, 1, JSON.stringify(result.rounds));
  const [round] = result.rounds;
  assert.equal(round.expert, closer, 'the round names the expert whose candidate it kept');
  assert.equal(result.expert, closer, 'the result names the expert whose testbench it is');
  const runs = round.candidateRuns ?? [];
  assert.deepEqual(
    runs.map((r) => [r.expert, r.kept, r.status]),
    [
      [closer, true, 'ok'],
      [weak, false, 'ok'],
    ],
    'both candidates were measured, the kept one first',
  );
  assert.equal(runs[0].coverage.line.pct, 100);
  assert.ok(
    runs[1].coverage.line.pct < 100,
    `the reset-only candidate covers less: ${JSON.stringify(runs[1].coverage.line)}`,
  );
  assert.ok(
    runs.every((r) => r.testbench === undefined),
    'the summary leaves the candidates’ texts to the candidates event',
  );
  assert.match(result.testbench, /mode = 2'b11; load_value = 8'hff;/, 'the result is the closing expert’s testbench');

  // The chat panel's candidates event carries every candidate's testbench so any of them can be opened.
  const shown = (events.get('two-experts') ?? []).filter((e) => e.type === 'candidates');
  assert.equal(shown.length, 1);
  assert.deepEqual(
    shown[0].type === 'candidates' ? shown[0].candidates.map((c) => [c.expert, Boolean(c.testbench)]) : [],
    [
      [closer, true],
      [weak, true],
    ],
  );
});

test('an expert whose replay file does not exist is reported by name and the other experts go on', async () => {
  const result = await generate('one-missing', [missing, weak, closer]);
  assert.equal(result.pass, true, JSON.stringify(result.rounds));
  assert.equal(result.expert, closer);
  const runs = result.rounds[0].candidateRuns ?? [];
  assert.deepEqual(
    runs.map((r) => r.expert).sort(),
    [closer, weak].sort(),
    'the two candidates came from the experts that opened',
  );
  const errors = (events.get('one-missing') ?? []).flatMap((e) =>
    e.type === 'log' && e.level === 'error' ? [e.message] : [],
  );
  assert.ok(
    errors.some(
      (m) =>
        m.includes(missing) &&
        /could not be opened/.test(m) &&
        /Cannot read replay file/.test(m) &&
        /other experts go on/.test(m),
    ),
    `an error names the missing expert and says the run goes on: ${JSON.stringify(errors)}`,
  );
});

test('an expert that fails mid-run (its endpoint answering 503) is listed among the candidates with its error; the other’s candidate is kept', async () => {
  const flakyFile = join(work, 'flaky.json');
  writeFileSync(flakyFile, JSON.stringify({ responses: [{ error: 'HTTP 503 Service Unavailable' }] }));
  const flaky = `replay:${flakyFile}`;
  const result = await generate('one-fails', [flaky, closer]);
  assert.equal(result.pass, true, JSON.stringify(result.rounds));
  assert.equal(result.expert, closer);
  const runs = result.rounds[0].candidateRuns ?? [];
  assert.deepEqual(
    runs.map((r) => [r.expert, r.kept, r.status]),
    [
      [closer, true, 'ok'],
      [flaky, false, 'error'],
    ],
  );
  assert.match(runs[1].error ?? '', /503/, 'the failed candidate says why');
  const errors = (events.get('one-fails') ?? []).flatMap((e) =>
    e.type === 'log' && e.level === 'error' ? [e.message] : [],
  );
  assert.ok(
    errors.some((m) => m.includes(flaky) && /failed in round 1/.test(m) && /go on without it/.test(m)),
    `an error names the failed expert and says the others go on: ${JSON.stringify(errors)}`,
  );
});

test('when no expert can be opened the run fails, naming each expert and what to fix', async () => {
  const other = `replay:${join(work, 'also-missing.json')}`;
  await assert.rejects(generate('none-open', [missing, other]), (err: Error) => {
    assert.match(err.message, /No expert .*could be opened/);
    assert.ok(err.message.includes(missing) && err.message.includes(other), err.message);
    assert.match(err.message, /chorus\.experts/);
    assert.match(err.message, /Pass replay:<file\.json>/, 'each failure says what to do');
    return true;
  });
});
