/**
 * The formal stage beside the search: where there is a core for it, Yosys starts on the holes the first plain runs
 * leave and the search goes on meanwhile; with one core the search waits for it, started on a stall. Either way a
 * design whose last holes are a deep counter's point (the search's) and a parameter-disabled arm (the formal
 * engine's) ends closed. Real Yosys, real Verilator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateToEnd } from '../../src/engine';
import { prepareRun } from '../../src/engine/context';
import { formalBounds } from '../../src/engine/search/formal';
import { FormalStage } from '../../src/engine/search/formalStage';
import { planHarness } from '../../src/engine/search/harness';
import { DEFAULT_SEARCH, runSearch } from '../../src/engine/search/search';
import { HarnessRunner } from '../../src/engine/search/runner';
import type { Logger } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { fixture, measureTestbench, randomTestbench, topOf } from '../formal/support';

const file = join(repoRoot, 'test', 'fixtures', 'formal', 'beside.sv');
const invertLine =
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('if (INVERT)')) + 1;
// Far past what the runs take (they end closed in seconds): the formal stage's bound grows with it.
const BUDGET_S = 120;

function recording(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const keep = (m: string) => void lines.push(m);
  return { logger: { debug: keep, info: keep, warn: keep, error: keep }, lines };
}

test('the memory a formal stage beside the search holds comes out of each run’s limit', () => {
  const runner = new HarnessRunner({
    binary: '/nonexistent',
    workDir: tmpdir(),
    rtlFiles: [],
    fsmPlan: { flags: [] },
    sim: { memoryLimitBytes: 4 * 2 ** 30 },
    simTimeoutMs: 1_000,
    logger: recording().logger,
  });
  assert.equal(runner.memoryLimitBytes(), 4 * 2 ** 30);
  runner.reserveMemory(2 ** 30);
  assert.equal(runner.memoryLimitBytes(), 3 * 2 ** 30);
  runner.reserveMemory(0);
  assert.equal(runner.memoryLimitBytes(), 4 * 2 ** 30);
});

test(
  'a run closes with the formal stage as this machine schedules it (beside the search on more than one core)',
  {
    timeout: 600_000,
  },
  async () => {
    const { logger, lines } = recording();
    const r = await generateToEnd(
      { rtlFiles: [file], engine: 'random', targets: { line: 100, branch: 100 }, seed: 1, budgetSeconds: BUDGET_S },
      { logger, signal: new AbortController().signal },
    );
    assert.equal(r.closed, true, `closed: ${r.stopReason}; holes ${JSON.stringify(r.holes)}`);
    const proven = r.holes.filter((h) => h.proof);
    assert.ok(
      proven.some((h) => h.line === invertLine),
      `the INVERT arm is proven: ${JSON.stringify(r.holes)}`,
    );
    const beside = lines.filter((l) => /formal stage starts beside the search/.test(l));
    if (DEFAULT_SEARCH.formalBeside) {
      assert.equal(beside.length, 1, 'started once, beside the search');
      const ran = lines
        .map((l) => /formal stage ended; the search ran (\d+) candidate\(s\) beside it/.exec(l))
        .find(Boolean);
      assert.ok(ran, `the stage's end is logged: ${lines.filter((l) => /formal/.test(l)).join(' | ')}`);
    } else assert.equal(beside.length, 0);
  },
);

test(
  'on one core the search waits for the formal stage, started when it stops finding points',
  {
    timeout: 600_000,
  },
  async () => {
    const { logger, lines } = recording();
    const signal = new AbortController().signal;
    const ctx = await prepareRun({
      rtlFiles: [file],
      engine: 'random',
      targets: { line: 100, branch: 100 },
      workDir: mkdtempSync(join(tmpdir(), 'chorus-beside-')),
    });
    const out = await runSearch(
      ctx,
      { logger, signal },
      { seed: 1, budgetMs: BUDGET_S * 1000, formal: formalBounds(BUDGET_S * 1000), formalBeside: false },
      () => {},
    );
    assert.equal(out.result.stopReason, 'all reachable points covered');
    assert.equal(lines.filter((l) => /beside the search/.test(l)).length, 0);
    assert.ok(
      lines.some((l) => /^formal: \d+ hole\(s\): [1-9]\d* proven unreachable/.test(l)),
      `the waited stage proved the arm: ${lines.filter((l) => /formal/.test(l)).join(' | ')}`,
    );
  },
);

test(
  'a formal stage on a design with several clocks proves only, so the search does not wait for it at its end',
  { timeout: 600_000 },
  async () => {
    for (const [name, top, several] of [
      ['two_clocks.sv', 'two_clocks', true],
      ['beside.sv', 'beside', false],
    ] as const) {
      const rtl = fixture(name);
      const mod = topOf([{ file: rtl, content: readFileSync(rtl, 'utf8') }], top);
      // No cycle: every point is a hole.
      const points = await measureTestbench([rtl], top, randomTestbench(mod, 0, 3));
      const ctx = await prepareRun({
        rtlFiles: [rtl],
        engine: 'random',
        targets: { line: 100, branch: 100 },
        workDir: mkdtempSync(join(tmpdir(), 'chorus-beside-')),
      });
      // What the search would see at its end, each time the stage reports while it runs.
      const seen: { busy: boolean; awaited: boolean }[] = [];
      const said: string[] = [];
      let stage: FormalStage | undefined = undefined;
      const note = (m: string) => {
        said.push(m);
        if (stage && /^formal: /.test(m)) seen.push({ busy: stage.busy, awaited: stage.awaited });
      };
      const logger: Logger = { debug: note, info: note, warn: note, error: note };
      stage = new FormalStage(
        ctx,
        { logger, signal: new AbortController().signal },
        planHarness(ctx.top, ctx.instance),
        formalBounds(BUDGET_S * 1000),
      );
      // The time a search would keep for the stage's witnesses: one that proves only takes it.
      const witnessMs = 30_000;
      const running = stage.start(points, witnessMs, [], undefined, BUDGET_S * 1000);
      // Before Yosys has read anything, every stage is waited for.
      assert.equal(stage.awaited, true, `${name}: not waited for before its read`);
      await running;
      const during = seen.filter((s) => s.busy);
      assert.ok(during.length, `${name}: the stage reported nothing while it ran`);
      // From its read on (the message that names the clocks) a stage with several clocks is not waited for.
      if (several) assert.equal(during[during.length - 1].awaited, false, `${name}: still waited for after its read`);
      else
        assert.ok(
          during.every((s) => s.awaited),
          `${name}: a stage that may find witnesses is waited for`,
        );
      assert.equal(stage.awaited, false, `${name}: an ended stage is not waited for`);
      assert.ok(ctx.formal.runs > 0, `${name}: the stage recorded no run`);
      const moved = said.filter((l) => /^formal: proofs only: the run's bound moves from 30 s to \d+ s$/.test(l));
      if (several) assert.equal(moved.length, 1, `${name}: ${said.join(' | ')}`);
      else assert.equal(moved.length, 0, `${name}: a stage that may find witnesses keeps its bound`);
    }
  },
);
