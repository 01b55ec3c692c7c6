import './stub/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Hole, LineCoverage } from '../../src/protocol';
import { groupByFile, lineMarks, lineState } from '../../src/extension/coverageModel';
import { decorationPlan } from '../../src/extension/gutter';
import { statementSpecs } from '../../src/extension/statements';

const F = '/w/rtl/fifo.sv';
const lc = (
  line: number,
  hits: number,
  branches: [string, number][] = [],
  missingToggles: string[] = [],
): LineCoverage => ({
  file: F,
  line,
  hits,
  branches: branches.map(([label, count]) => ({ label, count })),
  missingToggles,
});
const hole = (line: number, kind: Hole['kind'], detail: string, extra: Partial<Hole> = {}): Hole => ({
  file: '/w/rtl/fifo.sv',
  line,
  kind,
  detail,
  ...extra,
});

test('a line is covered, uncovered or partly covered', () => {
  assert.equal(lineState(lc(3, 12), []), 'covered');
  assert.equal(lineState(lc(4, 0), [hole(4, 'line', 'block')]), 'uncovered');
  assert.equal(
    lineState(
      lc(5, 7, [
        ['if', 7],
        ['else', 0],
      ]),
      [hole(5, 'branch', 'else arm of if')],
    ),
    'partial',
  );
  assert.equal(
    lineState(
      lc(6, 0, [
        ['if', 0],
        ['else', 0],
      ]),
      [],
    ),
    'uncovered',
    'no arm taken: never ran',
  );
  assert.equal(
    lineState(
      lc(7, 0, [
        ['if', 0],
        ['else', 3],
      ]),
      [],
    ),
    'partial',
    'an arm ran, so the line ran',
  );
  assert.equal(
    lineState(lc(8, 0, [], ['q[3] 0->1']), [hole(8, 'toggle', 'q[3] 0->1')]),
    'partial',
    'a declaration with missing bits',
  );
  assert.equal(lineState(undefined, [hole(9, 'branch', 'else')]), 'partial', 'only a branch hole known');
  assert.equal(lineState(undefined, [hole(9, 'line', 'block')]), 'uncovered');
});

test('events → gutter decorations: one mark per line, split by state, with hover text for each hole', () => {
  const lines = [
    lc(3, 12),
    lc(5, 7, [
      ['if', 7],
      ['else', 0],
    ]),
    lc(9, 0),
    lc(12, 4, [], ['count[2] 1->0']),
  ];
  const holes = [
    hole(5, 'branch', 'else arm of if (full)'),
    hole(9, 'line', 'block'),
    hole(12, 'toggle', 'count[2] 1->0'),
  ];
  const plan = decorationPlan({ lines, holes }, 10);
  assert.deepEqual(
    plan.covered.map((m) => m.line),
    [3],
  );
  assert.deepEqual(
    plan.partial.map((m) => m.line),
    [5],
    'line 12 is past the end of a 10-line document',
  );
  assert.deepEqual(
    plan.uncovered.map((m) => m.line),
    [9],
  );
  assert.deepEqual(plan.proven, []);
  const partial = plan.partial[0].hover;
  assert.match(partial, /partly covered/);
  assert.match(partial, /\*\*else never taken\*\*/);
  assert.match(partial, /else arm of if \(full\)/);
  assert.match(plan.uncovered[0].hover, /not covered/);
  assert.match(plan.uncovered[0].hover, /Generate high-coverage stimulus/, 'a hole with no proof is worth another run');
  const all = decorationPlan({ lines, holes }, 20);
  assert.match(all.partial.find((m) => m.line === 12)!.hover, /Toggle bits never seen: `count\[2\] 1->0`/);
  assert.match(all.covered[0].hover, /12 hits/);
});

test('records of one line from several instances add up', () => {
  const marks = lineMarks({
    lines: [
      lc(5, 2, [
        ['if', 2],
        ['else', 0],
      ]),
      lc(5, 3, [
        ['if', 0],
        ['else', 3],
      ]),
    ],
    holes: [],
  });
  assert.equal(marks.length, 1);
  assert.equal(marks[0].state, 'covered', 'each arm was taken in some instance');
  assert.match(marks[0].hover, /5 hits/);
});

test('lines and holes group by their absolute file, also when two files share a base name', () => {
  const a = '/w/rtl/a/fifo.sv';
  const b = '/w/rtl/b/fifo.sv';
  const grouped = groupByFile(
    [
      { ...lc(3, 1), file: a },
      { ...lc(4, 0), file: b },
    ],
    [{ ...hole(4, 'line', 'block'), file: b }],
  );
  assert.deepEqual([...grouped.keys()].sort(), [a, b]);
  assert.equal(grouped.get(a)!.holes.length, 0);
  assert.equal(grouped.get(b)!.holes.length, 1);
  assert.equal(grouped.get(b)!.lines[0].line, 4);
});

test('signal declarations (toggle points only) are never "not executed" and are not statements', () => {
  const decl = (hits: number, missing: string[], kinds?: LineCoverage['kinds']): LineCoverage => ({
    ...lc(10, hits, [], missing),
    kinds,
  });
  // The producer's `kinds` decides when present.
  assert.equal(lineState(decl(3, [], ['toggle']), []), 'covered');
  assert.equal(lineState(decl(0, ['count[7] 1->0'], ['toggle']), [hole(10, 'toggle', 'count[7] 1->0')]), 'partial');
  assert.equal(lineState(decl(0, [], ['line']), [hole(10, 'line', 'block')]), 'uncovered');
  assert.equal(lineState(decl(0, ['x[0] 0->1'], ['line', 'toggle']), []), 'uncovered', 'a statement that never ran');
  // Without `kinds`: missing bits and only toggle holes mean a declaration.
  assert.equal(lineState(decl(0, ['q[1] 0->1']), [hole(10, 'toggle', 'q[1] 0->1')]), 'partial');
  const [mark] = lineMarks({ lines: [decl(5, [], ['toggle'])], holes: [] });
  assert.match(mark.hover, /every bit of these signals toggled/);
  assert.doesNotMatch(mark.hover, /5 hits/, 'toggle counts are not shown as executions');
  assert.deepEqual(
    statementSpecs([
      decl(5, [], ['toggle']),
      decl(0, ['a[0] 0->1'], ['toggle']),
      { ...lc(12, 4), kinds: ['line', 'toggle'] },
    ]).map((s) => s.line),
    [12],
  );
});

test('points proven unreachable get their own gutter mark, not the hole mark; formal-unknown holes stay holes', () => {
  const induction = { unreachable: 'k-induction, depth 3', proof: { method: 'induction', depth: 3 } } as const;
  const lines = [
    lc(4, 0),
    lc(5, 7, [
      ['if', 7],
      ['else', 0],
    ]),
    lc(6, 0),
    lc(7, 0),
    lc(8, 3, [
      ['if', 3],
      ['else', 0],
    ]),
  ];
  const holes = [
    hole(4, 'line', 'block never executed', induction),
    hole(5, 'branch', 'else arm never taken (condition never false here)', induction),
    hole(6, 'line', 'block never executed', {
      unreachable: 'the state register holds only 5 values',
      proof: { method: 'analysis' },
    }),
    hole(7, 'line', 'block never executed', { formal: 'timeout after 10 s' }),
    hole(8, 'branch', 'else arm never taken (condition never false here)', {
      formal: 'unsupported construct: $random',
    }),
  ];
  const plan = decorationPlan({ lines, holes }, 20);
  assert.deepEqual(
    plan.proven.map((m) => m.line),
    [4, 5, 6],
    'a dead line, a dead arm of a line that ran, an analysis proof',
  );
  assert.deepEqual(
    plan.uncovered.map((m) => m.line),
    [7],
  );
  assert.deepEqual(
    plan.partial.map((m) => m.line),
    [8],
  );
  const [dead, deadArm, byAnalysis] = plan.proven;
  assert.match(dead.hover, /\*\*CHORUS: proven unreachable\*\* — no stimulus can reach this line/);
  assert.match(dead.hover, /proven unreachable\*\* by k-induction \(depth 3\)/);
  assert.doesNotMatch(dead.hover, /Generate high-coverage stimulus/, 'a proven point is not chased');
  assert.match(deadArm.hover, /\*\*CHORUS: covered\*\* — 7 hits; what never ran here is proven unreachable/);
  assert.match(deadArm.hover, /else proven unreachable/);
  assert.doesNotMatch(deadArm.hover, /else never taken\*\*/);
  assert.match(byAnalysis.hover, /by analysis: the state register holds only 5 values/);
  assert.match(plan.uncovered[0].hover, /formal engine: no proof and no confirmed witness \(timeout after 10 s\)/);
  assert.match(plan.partial[0].hover, /unsupported construct: \$random/);
  // A line with a proven arm and a hole is still partly covered.
  assert.equal(
    lineState(
      lc(9, 2, [
        ['if', 2],
        ['else', 0],
        ['case', 0],
      ]),
      [hole(9, 'branch', 'else arm never taken', induction), hole(9, 'branch', 'case arm never taken')],
    ),
    'partial',
  );
  // Only holes known (a live round): all proven → proven, else the hole decides.
  assert.equal(lineState(undefined, [hole(10, 'line', 'block', induction)]), 'proven');
  assert.equal(lineState(undefined, [hole(10, 'line', 'block', induction), hole(10, 'line', 'block')]), 'uncovered');
});

test('the statements of a block proven unreachable share its mark; a line that may be an open hole’s does not', () => {
  const proof = { unreachable: 'k-induction, depth 2', proof: { method: 'induction', depth: 2 } } as const;
  const lines = [lc(16, 0), lc(17, 0), lc(18, 0), lc(20, 0), lc(21, 0), lc(22, 0), lc(23, 5)];
  const holes = [
    hole(16, 'line', 'case item never taken', { ...proof, span: '16-18' }),
    // An unproven block whose span overlaps a proven one's: line 21 may be its statement, so it stays a hole.
    hole(20, 'line', 'block never executed', { span: '20-21' }),
    hole(22, 'line', 'block never executed', { ...proof, span: '21-22' }),
  ];
  const marks = lineMarks({ lines, holes });
  const state = (line: number) => marks.find((m) => m.line === line)?.state;
  assert.deepEqual([16, 17, 18, 20, 21, 22, 23].map(state), [
    'proven',
    'proven',
    'proven',
    'uncovered',
    'uncovered',
    'proven',
    'covered',
  ]);
  assert.match(
    marks.find((m) => m.line === 17)!.hover,
    /in the block of line 16 \(case item never taken\), proven by k-induction \(depth 2\)/,
  );
  assert.deepEqual(
    statementSpecs(lines, holes).map((s) => s.line),
    [20, 21, 23],
    'dead statements are no statements',
  );
  assert.deepEqual(
    statementSpecs(lines).map((s) => s.line),
    [16, 17, 18, 20, 21, 22, 23],
  );
});

test('FSM states and arcs are branches of their line in the Test Coverage shape, added up over instances', () => {
  const a: LineCoverage = {
    ...lc(14, 3),
    fsm: [
      { kind: 'fsm_state', label: 'RUN', count: 2 },
      { kind: 'fsm_arc', label: 'IDLE->RUN', count: 0 },
    ],
  };
  const b: LineCoverage = {
    ...lc(14, 1),
    fsm: [
      { kind: 'fsm_state', label: 'RUN', count: 1 },
      { kind: 'fsm_arc', label: 'IDLE->RUN', count: 0 },
    ],
  };
  const [spec] = statementSpecs([a, b]);
  assert.deepEqual(spec.branches, [
    { label: 'FSM state RUN', executed: 3 },
    { label: 'FSM arc IDLE->RUN', executed: 0 },
  ]);
});
