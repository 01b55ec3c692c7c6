/**
 * Soundness cross-check on verilog-eval-ecov items: every line and branch point (covered or not) is handed to the
 * formal engine; a point claimed unreachable must never be hit by a long uniform-random simulation, and a witness
 * replayed in Verilator must hit its point.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { prove, type FormalTarget } from '../../src/formal';
import type { CoveragePoint } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { corpusPath } from '../helpers/corpus';
import { measureTestbench, randomTestbench, replayTestbench, samePoint, services, topOf } from './support';
import { checkItem, corpusItems } from '../../bench/formal-soundness';

const corpus = () => corpusPath('verilog-eval-ecov', 'verilog-eval-ecov.jsonl');
// An FSM with a default (140), x compares (151, 156), a constant enable (141). The whole corpus, in runs:
// bench/formal-soundness.ts (docs/benchmarks.md); combinational and sequential cases: the examples' test below.
const SAMPLE = ['Prob140_fsm_hdlc', 'Prob141_count_clock', 'Prob151_review2015_fsm', 'Prob156_review2015_fancytimer'];

interface Item {
  id: string;
  rtl_files: { name: string; content: string }[];
  dut_module_name: string;
}

function targetsOf(points: CoveragePoint[], top: string): { target: FormalTarget; points: CoveragePoint[] }[] {
  const root = points.find((p) => p.module === top)?.hierarchy ?? '';
  const groups = new Map<string, { target: FormalTarget; points: CoveragePoint[] }>();
  for (const p of points) {
    if (p.kind !== 'line' && p.kind !== 'branch') continue;
    const key = `${p.file}:${p.line}:${p.column}:${p.kind}:${p.comment}:${p.hierarchy}`;
    const g = groups.get(key) ?? {
      target: {
        file: resolve(p.file),
        line: p.line,
        column: p.column,
        kind: p.kind,
        comment: p.comment,
        instance: p.hierarchy === root ? '' : p.hierarchy.slice(root.length + 1),
      },
      points: [],
    };
    g.points.push(p);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/** Every line/branch point of one design to the formal engine, checked against 3,000 random cycles; one witness replayed. */
async function crossCheck(
  t: TestContext,
  id: string,
  sources: { file: string; content: string }[],
  top: string,
): Promise<{ proven: number; witnessed: number }> {
  const mod = topOf(sources, top);
  const points = await measureTestbench(
    sources.map((s) => s.file),
    top,
    randomTestbench(mod, 3000, 11),
  );
  const groups = targetsOf(points, top);
  // The bounds runs use (depth 8, 5 s a point): Prob141's roll-overs are thousands of cycles deep, and at the
  // default depth each would spend its whole bound.
  const result = await prove(
    { sources, top, targets: groups.map((g) => g.target), runTimeoutSeconds: 300, maxDepth: 8, pointTimeoutSeconds: 5 },
    services(),
  );
  const counts = { unreachable: 0, witness: 0, unknown: 0 };
  let witnessed = 0;
  for (const [i, v] of result.verdicts.entries()) {
    counts[v.verdict.status]++;
    const hits = groups[i].points.reduce((n, p) => n + p.count, 0);
    if (v.verdict.status === 'unreachable')
      assert.equal(hits, 0, `${id}: ${v.target.line} ${v.target.comment} claimed unreachable, hit ${hits} times`);
    if (v.verdict.status === 'witness' && !witnessed) {
      // One witness per design in Verilator (each replay is a build): it must reach its point.
      witnessed = 1;
      const replay = await measureTestbench(
        sources.map((s) => s.file),
        top,
        replayTestbench(mod, v.verdict.witness),
      );
      assert.ok(
        replay.some((p) => samePoint(v.target, p) && p.count > 0),
        `${id}: the witness for line ${v.target.line} ${v.target.comment} does not hit it`,
      );
    }
  }
  t.diagnostic(
    `${id}: ${groups.length} points, ${counts.unreachable} proven, ${counts.witness} witnesses, ${counts.unknown} unknown, Yosys ${result.yosysMs} ms`,
  );
  return { proven: counts.unreachable, witnessed };
}

test(
  'verilog-eval-ecov sample: no point claimed unreachable is ever hit; witnesses replay',
  { timeout: 900_000 },
  async (t) => {
    const items = readFileSync(corpus(), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Item)
      .filter((i) => SAMPLE.some((s) => i.id.endsWith(s)));
    assert.equal(items.length, SAMPLE.length);
    let proven = 0;
    let witnessed = 0;
    for (const item of items) {
      const dir = mkdtempSync(join(tmpdir(), 'chorus-formal-corpus-'));
      const sources = item.rtl_files.map((f) => ({ file: join(dir, f.name), content: f.content }));
      for (const s of sources) writeFileSync(s.file, s.content);
      const r = await crossCheck(t, item.id, sources, item.dut_module_name);
      proven += r.proven;
      witnessed += r.witnessed;
    }
    // The sample holds points the engine must prove (Prob141's tied enable, Prob151's x compare, FSM defaults).
    assert.ok(proven >= 3, `only ${proven} points proven`);
    assert.ok(witnessed >= 3, `only ${witnessed} witnesses replayed`);
  },
);

test(
  "the project's examples: no point claimed unreachable is ever hit; witnesses replay",
  { timeout: 900_000 },
  async (t) => {
    const root = join(repoRoot, 'examples');
    const names = readdirSync(root).filter((d) => existsSync(join(root, d, `${d}.sv`)));
    assert.ok(names.length >= 5, `examples found: ${names.join(', ')}`);
    let witnessed = 0;
    for (const name of names) {
      const file = join(root, name, `${name}.sv`);
      witnessed += (await crossCheck(t, name, [{ file, content: readFileSync(file, 'utf8') }], name)).witnessed;
    }
    assert.equal(witnessed, names.length, 'every example replays a witness');
  },
);

// In runs: the holes a model-free run with the formal stage labels proven unreachable (by k-induction or analysis)
// are never hit by a long random simulation. The whole corpus: bench/formal-soundness.ts (docs/benchmarks.md).
test(
  'verilog-eval-ecov sample in runs: no hole labelled proven unreachable is hit by 20,000 random cycles',
  { timeout: 900_000 },
  async (t) => {
    const items = corpusItems(corpus()).filter((i) =>
      ['Prob151_review2015_fsm', 'Prob156_review2015_fancytimer'].some((s) => i.id.endsWith(s)),
    );
    assert.equal(items.length, 2);
    let induction = 0;
    for (const item of items) {
      // A budget past what the runs take (they end closed): the formal stage's bound grows with it.
      const r = await checkItem(item, { budgetSeconds: 120, cycles: 20_000, seed: 5 });
      t.diagnostic(
        `${item.id}: ${r.induction} by induction, ${r.analysis} by analysis, closed ${r.closed}, ${(r.ms / 1000).toFixed(1)} s`,
      );
      assert.deepEqual(r.violations, [], `${item.id}: proven holes hit by random simulation`);
      induction += r.induction;
    }
    // Both items have an `=== 1'bx` arm that only k-induction labels.
    assert.ok(induction >= 2, `only ${induction} points proven by induction`);
  },
);
