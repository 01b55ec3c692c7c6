// The FSM and expression kinds in the coverage math, summaries, targets, holes, lcov and line view:
// a design without FSM points reads exactly as before; FSM points count where they exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  coveredGain,
  emptySummary,
  metricPct,
  overallPct,
  sanitizeTargets,
  shownKinds,
  type CoveragePoint,
  type CoverageSummary,
} from '../../src/protocol';
import { formatSummary, parseTargets } from '../../src/engine/targets';
import { findHoles, holesFeedback, lineCoverage, parseCoverageDat, summarize, toLcov } from '../../src/sim';

const point = (kind: CoveragePoint['kind'], line: number, comment: string, count: number): CoveragePoint => ({
  file: '/d/fsm.sv',
  line,
  column: 0,
  kind,
  comment,
  hierarchy: 'TOP.tb.dut',
  module: 'fsm',
  count,
});
const base: CoveragePoint[] = [
  point('line', 3, 'block', 4),
  point('branch', 4, 'if', 1),
  point('branch', 4, 'else', 0),
  point('toggle', 1, 'q', 1),
];
const fsm: CoveragePoint[] = [
  point('fsm_state', 5, 'state_q::RUN', 2),
  point('fsm_state', 6, 'state_q::ERR', 0),
  point('fsm_arc', 5, 'state_q::IDLE->RUN', 2),
  point('fsm_arc', 5, 'state_q::IDLE->IDLE', 0),
  point('fsm_arc', 9, 'state_q::ANY->IDLE[reset]', 0),
];

test('without FSM or expression points a summary has line, branch and toggle only, and overall is their mean', () => {
  const s = summarize(base);
  assert.deepEqual(Object.keys(s), ['line', 'branch', 'toggle']);
  assert.equal(overallPct(s), Math.round(((100 + 50 + 100) / 3) * 10) / 10);
  assert.deepEqual(shownKinds(s), ['line', 'branch', 'toggle']);
  assert.equal(formatSummary(s), 'line 100% (1/1), branch 50% (1/2), toggle 100% (1/1)');
  // An FSM target on a design without FSMs: nothing to reach, met; on a failed run (nothing measured), unmet.
  assert.equal(metricPct(s, 'fsm_arc'), 100);
  assert.equal(metricPct(emptySummary(), 'fsm_arc'), 0);
});

test('FSM points are their own kinds, in overall and in progress; expression points are neither', () => {
  const s = summarize([...base, ...fsm, point('expr', 4, '(a==1) => 1', 0)]);
  assert.deepEqual(s.fsm_state, { covered: 1, total: 2, pct: 50 });
  assert.deepEqual(s.fsm_arc, { covered: 1, total: 3, pct: 33.3 });
  assert.deepEqual(s.expr, { covered: 0, total: 1, pct: 0 });
  assert.equal(overallPct(s), Math.round(((100 + 50 + 100 + 50 + 33.3) / 5) * 10) / 10);
  const before: CoverageSummary = summarize([...base, ...fsm.map((p) => ({ ...p, count: 0 }))]);
  assert.equal(coveredGain(before, s), 2, 'a state and an arc reached are progress');
});

test('targets: `fsm` stands for both FSM kinds, in --target and in the settings', () => {
  assert.deepEqual(parseTargets('line=100,fsm=90'), { line: 100, fsm_state: 90, fsm_arc: 90 });
  assert.deepEqual(parseTargets('fsm_arc=80,expr=50'), { fsm_arc: 80, expr: 50 });
  assert.throws(() => parseTargets('fsms=100'), /Unknown coverage kind 'fsms'.*fsm/);
  assert.deepEqual(sanitizeTargets({ fsm: 100, branch: 90 }), { fsm_state: 100, fsm_arc: 100, branch: 90 });
});

test('FSM holes name the state or arc, on the case item or the assignment, and reach the model', () => {
  const holes = findHoles(
    [...base, ...fsm],
    new Map([
      ['/d/fsm.sv', 'a\nb\nc\nd\nIDLE: if (go) state_d = RUN;\nERR: state_d = IDLE;\n\n\nif (rst) state_q <= IDLE;\n'],
    ]),
  );
  const fsmHoles = holes.filter((h) => h.kind.startsWith('fsm'));
  assert.deepEqual(
    fsmHoles.map((h) => [h.line, h.detail]),
    [
      [5, 'arc IDLE->IDLE never taken'],
      [6, 'state ERR never visited'],
      [9, 'reset to IDLE never taken'],
    ],
  );
  const text = holesFeedback(holes);
  assert.match(text, /fsm\.sv:5 fsm arc: arc IDLE->IDLE never taken \| IDLE: if \(go\) state_d = RUN;/);
  assert.match(text, /fsm\.sv:6 fsm state: state ERR never visited/);
});

test('line view and lcov: FSM points listed on their lines, branch records of their own blocks', () => {
  const lines = lineCoverage([...base, ...fsm]);
  const item = lines.find((l) => l.line === 5);
  assert.deepEqual(item?.fsm, [
    { kind: 'fsm_state', label: 'RUN', count: 2 },
    { kind: 'fsm_arc', label: 'IDLE->RUN', count: 2 },
    { kind: 'fsm_arc', label: 'IDLE->IDLE', count: 0 },
  ]);
  assert.equal(lines.find((l) => l.line === 6)?.hits, 0, 'a line with only an unvisited state reads 0');
  const lcov = toLcov([...base, ...fsm]);
  assert.match(lcov, /BRDA:5,1,0,2\nBRDA:5,2,1,2\nBRDA:5,2,2,0\n/);
  assert.match(lcov, /BRDA:6,1,0,0/);
  assert.match(lcov, /BRF:7\nBRH:3/);
});

test("Verilator's native FSM points get the instance path of the other points and CHORUS's comment form", () => {
  const key = (fields: Record<string, string>) =>
    Object.entries(fields)
      .map(([k, v]) => `\x01${k}\x02${v}`)
      .join('');
  const arc = {
    f: '/d/fsm.sv',
    l: '7',
    n: '5',
    t: 'fsm_arc',
    page: 'v_fsm_arc/$root',
    Fv: 'tb.u_fsm.state_q',
    Ff: 'RUN',
    Ft: 'FIN',
  };
  const text = [
    '# SystemC::Coverage-3',
    `C '${key({ ...arc, o: 'tb.u_fsm.state_q::RUN->FIN', h: 'TOP.TOP' })}' 3`,
    `C '${key({ ...arc, o: 'tb.u_fsm.state_q::ANY->IDLE[reset_include]', Ff: 'ANY', Ft: 'IDLE', h: 'TOP.TOP' })}' 1`,
    `C '${key({ f: '/d/fsm.sv', l: '7', n: '5', t: 'fsm_state', page: 'v_fsm_state/$root', o: 'tb.u_fsm.state_q::RUN', Fv: 'tb.u_fsm.state_q', h: 'TOP' })}' 2`,
    '',
  ].join('\n');
  const points = parseCoverageDat(text, ['/d/fsm.sv'], 'coverage.dat');
  assert.deepEqual(
    points.map((p) => [p.kind, p.hierarchy, p.comment, p.count]),
    [
      ['fsm_arc', 'TOP.tb.u_fsm', 'state_q::RUN->FIN', 3],
      ['fsm_arc', 'TOP.tb.u_fsm', 'state_q::ANY->IDLE[reset]', 1],
      ['fsm_state', 'tb.u_fsm', 'state_q::RUN', 2],
    ],
  );
});
