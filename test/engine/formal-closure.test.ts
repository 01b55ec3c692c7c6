/**
 * Formal closure inside runs: the model-free search hands the holes it stalls on to Yosys; proofs end
 * the run closed with the points labelled, witnesses become stimulus that Verilator must hit in the emitted
 * testbench alone, and the model of a hybrid run is never handed a proven hole. Real Yosys, real Verilator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { generateToEnd, measure } from '../../src/engine';
import type { ChatBackend, ChatOptions, ChatResult } from '../../src/llm';
import { silentLogger, type ChatMessage } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';

const fixture = (name: string) => join(repoRoot, 'test', 'fixtures', 'formal', name);
const lineOf = (file: string, text: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text)) + 1;
const services = () => ({ logger: silentLogger, signal: new AbortController().signal });
// A budget past what the runs take: the formal stage's bound grows with it (half the budget, at most 60 s), so a
// loaded machine does not cut Yosys off. The runs below end long before it: closed, or every point covered.
const BUDGET = 120;

test(
  'a closure run on x compares ends closed, the arms proven unreachable by k-induction',
  { timeout: 600_000 },
  async () => {
    const file = fixture('xcompare.sv');
    const r = await generateToEnd(
      { rtlFiles: [file], engine: 'random', targets: { line: 100, branch: 100 }, seed: 1, budgetSeconds: BUDGET },
      services(),
    );
    assert.equal(r.stopReason, 'all reachable points covered');
    assert.equal(r.closed, true);
    const structural = r.holes.filter((h) => h.kind === 'line' || h.kind === 'branch');
    assert.deepEqual(
      structural.map((h) => h.line).sort((a, b) => a - b),
      [lineOf(file, "d === 1'bx"), lineOf(file, "sel !== 2'bxx")],
    );
    for (const h of structural) {
      assert.equal(h.proof?.method, 'induction', `line ${h.line} carries its proof`);
      assert.ok((h.proof?.depth ?? 0) >= 1);
      assert.match(h.unreachable ?? '', /^k-induction, depth \d+( \(the values its registers can hold\))?$/);
      assert.equal(h.formal, undefined);
    }
    assert.ok(r.formal, 'the formal summary is set');
    assert.equal(r.formal.proven, 2);
    assert.equal(r.formal.unknown, 0);
    assert.ok(r.formal.ms > 0);
  },
);

test(
  'an else behind an enable tied through the hierarchy: closed, and not without the formal engine',
  { timeout: 600_000 },
  async () => {
    const file = fixture('tied.sv');
    const withFormal = await generateToEnd(
      {
        rtlFiles: [file],
        top: 'tied',
        engine: 'random',
        targets: { line: 100, branch: 100 },
        seed: 2,
        budgetSeconds: BUDGET,
      },
      services(),
    );
    assert.equal(withFormal.closed, true);
    const proven = withFormal.holes.filter((h) => h.proof);
    assert.equal(proven.length, 1);
    assert.equal(proven[0].line, lineOf(file, 'else if (enable) digit'));
    assert.equal(proven[0].hierarchy?.endsWith('.u_ones'), true, 'the instance the proof is about');

    const without = await generateToEnd(
      {
        rtlFiles: [file],
        top: 'tied',
        engine: 'random',
        targets: { line: 100, branch: 100 },
        seed: 2,
        budgetSeconds: 10,
        formal: false,
      },
      services(),
    );
    assert.equal(without.formal, undefined);
    assert.equal(without.closed, false);
    assert.ok(without.holes.some((h) => h.kind === 'branch' && !h.proof && !h.unreachable));
  },
);

test(
  'witnesses: arms random stimulus misses are covered by the emitted testbench alone, in Verilator',
  { timeout: 600_000 },
  async () => {
    const file = fixture('deepmatch.sv');
    const r = await generateToEnd(
      { rtlFiles: [file], engine: 'random', targets: { line: 100, branch: 100 }, seed: 1, budgetSeconds: BUDGET },
      services(),
    );
    assert.ok(r.formal, 'the formal stage ran');
    assert.ok(r.formal.witnesses >= 2, `witness points hit: ${JSON.stringify(r.formal)}`);
    assert.equal(r.closed, true);
    assert.equal(r.coverage.line.covered, r.coverage.line.total);
    assert.match(r.testbench, /formal witness for deepmatch\.sv:\d+/);

    // The testbench on its own, built and run by Verilator: both arms are hit.
    const dir = mkdtempSync(join(tmpdir(), 'chorus-formal-closure-'));
    const tb = join(dir, 'tb_deepmatch.sv');
    writeFileSync(tb, r.testbench);
    const m = await measure({ rtlFiles: [file], testbench: tb, top: 'deepmatch' }, services());
    assert.equal(m.status, 'ok');
    for (const text of ["(a ^ 32'h5A5A1234) == (b + 32'h13579BDF)", "a[30:23] == 8'hFF"]) {
      const line = lineOf(file, text);
      const pts = m.points.filter((p) => basename(p.file) === 'deepmatch.sv' && p.line === line && p.kind === 'line');
      assert.ok(pts.length > 0, `a line point at ${line}`);
      assert.ok(
        pts.every((p) => p.count > 0),
        `line ${line} is hit by the emitted testbench`,
      );
    }
  },
);

/** Records what the model is asked; answers that nothing changes. */
class RecordingBackend implements ChatBackend {
  readonly label = 'recording';
  readonly kind = 'replay' as const;
  readonly calls: ChatMessage[][] = [];
  async chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult> {
    this.calls.push(messages);
    options?.onToken?.('NO_CHANGES');
    return {
      text: 'NO_CHANGES',
      finishReason: 'stop',
      usage: { promptTokens: 100, evaluatedPromptTokens: 100, completionTokens: 3, ms: 1 },
    };
  }
  async dispose(): Promise<void> {}
}

test('hybrid: the model is handed the holes nothing decided, never a proven one', { timeout: 600_000 }, async () => {
  const file = fixture('mixedholes.sv');
  const backend = new RecordingBackend();
  const r = await generateToEnd(
    {
      rtlFiles: [file],
      engine: 'hybrid',
      targets: { line: 100, branch: 100 },
      rounds: 1,
      seed: 1,
      budgetSeconds: BUDGET,
    },
    { ...services(), backend },
  );
  assert.ok(backend.calls.length >= 1, 'the model had a round (the deep count is neither covered nor proven)');
  const asked = backend.calls
    .flat()
    .map((m) => m.content)
    .join('\n');
  const proven = `mixedholes.sv:${lineOf(file, "d === 1'bx")}`;
  assert.ok(!asked.includes(proven), `the model is not pointed at ${proven}`);
  assert.ok(
    asked.includes(`mixedholes.sv:${lineOf(file, "count == 32'hFFFF_FFF0")}`),
    'the model is pointed at the deep count',
  );
  assert.match(asked, /proven unreachable/);
  assert.equal(r.closed, false);
  const xarm = r.holes.find((h) => h.kind === 'branch' && h.line === lineOf(file, "d === 1'bx"));
  assert.equal(xarm?.proof?.method, 'induction', 'the x-compare arm is proven by induction');
});

test('hybrid: no model round when all the search left is proven unreachable', { timeout: 600_000 }, async () => {
  const file = fixture('xcompare.sv');
  const backend = new RecordingBackend();
  const r = await generateToEnd(
    {
      rtlFiles: [file],
      engine: 'hybrid',
      targets: { line: 100, branch: 100 },
      rounds: 1,
      seed: 1,
      budgetSeconds: BUDGET,
    },
    { ...services(), backend },
  );
  assert.equal(backend.calls.length, 0, 'nothing left for the model to chase');
  assert.equal(r.closed, true);
  assert.ok(r.holes.filter((h) => h.kind === 'branch').every((h) => h.proof?.method === 'induction'));
});
