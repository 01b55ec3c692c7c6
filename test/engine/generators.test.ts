/** The generator table and the composition hybrid is built from, with stand-in generators (no simulator needed). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generatorFor, runSettings, type Generator, type Outcome } from '../../src/engine/generators';
import { sequence } from '../../src/engine/generators/sequence';
import type { RunContext } from '../../src/engine/context';
import { FormalLedger } from '../../src/engine/closure/ledger';
import type { WaiverEntry } from '../../src/engine/waivers/file';
import {
  ChorusError,
  emptySummary,
  silentLogger,
  type CoveragePoint,
  type CoverageReport,
  type EngineName,
  type LoopEvent,
} from '../../src/protocol';

function outcome(engine: EngineName, pass: boolean, testbench: string): Outcome {
  return {
    result: {
      top: 'm',
      engine,
      pass,
      targets: { line: 100 },
      coverage: emptySummary(),
      holes: [],
      rounds: [],
      testbench,
      stopReason: pass ? 'targets met' : 'stalled',
      diagnostics: [],
    },
    report: null,
    points: [],
    filename: 'tb_m.sv',
  };
}

/** A generator that records the outcome it was handed and returns a fixed one. */
function standIn(name: EngineName, result: Outcome, seen: (Outcome | undefined)[], prior?: Outcome): Generator {
  return {
    name,
    async generate(_ctx, _services, emit) {
      seen.push(prior);
      emit({ type: 'roundStart', round: seen.length });
      return result;
    },
  };
}

const ctx = {} as RunContext;

async function runSequence(firstPasses: boolean, aborted = false) {
  const seen: (Outcome | undefined)[] = [];
  const first = outcome('random', firstPasses, 'search tb');
  const composed = sequence('hybrid', standIn('random', first, seen), (prior) =>
    standIn('llm', outcome('llm', true, 'model tb'), seen, prior),
  );
  const controller = new AbortController();
  if (aborted) controller.abort();
  const events: LoopEvent[] = [];
  const out = await composed.generate(ctx, { logger: silentLogger, signal: controller.signal }, (e) => events.push(e));
  return { out, seen, events, first };
}

test('a sequence hands the first outcome to the second generator and reports under its own name', async () => {
  const { out, seen, events, first } = await runSequence(false);
  assert.equal(seen.length, 2);
  assert.equal(seen[1], first, 'the second generator continues from the first outcome');
  assert.equal(out.result.testbench, 'model tb');
  assert.equal(out.result.engine, 'hybrid');
  assert.deepEqual(
    events.map((e) => e.type),
    ['roundStart', 'roundStart'],
  );
});

test('a sequence stops after the first generator when it met the targets or the run was cancelled', async () => {
  for (const [passes, aborted] of [
    [true, false],
    [false, true],
  ] as const) {
    const { out, seen } = await runSequence(passes, aborted);
    assert.equal(seen.length, 1);
    assert.equal(out.result.testbench, 'search tb');
    assert.equal(out.result.engine, 'hybrid');
  }
});

test('a sequence stops when all the first generator left is waived or proven, and goes on for a hole neither', async () => {
  const point = (line: number, kind: CoveragePoint['kind'], count: number): CoveragePoint => ({
    file: '/d/m.sv',
    line,
    column: 1,
    kind,
    comment: kind === 'branch' ? 'if' : 'block',
    hierarchy: 'TOP.tb.uut',
    module: 'm',
    count,
  });
  const waiver: WaiverEntry = {
    file: 'm.sv',
    line: 7,
    column: 1,
    kind: 'branch',
    point: 'if',
    instance: '',
    module: 'm',
    category: 'LOW_RISK',
    reason: 'debug only',
    who: 'Ana Reviewer',
    fingerprint: '',
  };
  const waivedCtx = {
    analysis: { modules: [] },
    targets: { line: 100, branch: 100 },
    formal: new FormalLedger('uut'),
    waiverOf: (p: CoveragePoint) => (p.line === 7 && p.count === 0 ? waiver : undefined),
  } as unknown as RunContext;
  for (const [points, continues] of [
    [[point(5, 'line', 3), point(7, 'branch', 0)], false],
    [[point(5, 'line', 3), point(7, 'branch', 0), point(9, 'branch', 0)], true],
  ] as const) {
    const seen: (Outcome | undefined)[] = [];
    const first: Outcome = {
      ...outcome('random', false, 'search tb'),
      report: {} as CoverageReport,
      points: [...points],
    };
    const composed = sequence('hybrid', standIn('random', first, seen), (prior) =>
      standIn('llm', outcome('llm', true, 'model tb'), seen, prior),
    );
    await composed.generate(waivedCtx, { logger: silentLogger, signal: new AbortController().signal }, () => {});
    assert.equal(seen.length, continues ? 2 : 1, `the model runs only for a hole neither waived nor proven`);
  }
});

test('the table knows random, llm and hybrid, and names the choices for anything else', () => {
  const settings = runSettings({ rtlFiles: ['m.sv'], engine: 'llm', targets: {} });
  assert.deepEqual(settings, {
    rounds: 3,
    stallRounds: 2,
    seed: 1,
    budgetMs: undefined,
    simTimeoutMs: 30_000,
    formal: true,
  });
  assert.equal(
    runSettings({ rtlFiles: ['m.sv'], engine: 'random', targets: {}, formal: false }).formal,
    false,
    '--no-formal reaches the generators',
  );
  for (const name of ['random', 'llm', 'hybrid'] as const) assert.equal(generatorFor(name, settings).name, name);
  assert.throws(
    () => generatorFor('bogus' as EngineName, settings),
    (e: unknown) => e instanceof ChorusError && /Unknown engine 'bogus': use random, llm or hybrid\./.test(e.message),
  );
  assert.throws(() => generatorFor('toString' as EngineName, settings), ChorusError, 'inherited names are not engines');
});
