// The coverage model without Verilator: parsing coverage.dat, merging, totals, holes, lcov, diagnostics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  findHoles,
  findTestbenchTop,
  holesFeedback,
  lineCoverage,
  mergePoints,
  parseCoverageDat,
  parseRuntimeOutput,
  parseVerilatorOutput,
  pointLines,
  summarize,
  summarizeByInstance,
  toLcov,
} from '../../src/sim';
import { OutputCapture } from '../../src/sim/process/outputCapture';
import { parseStopLine } from '../../src/sim/verilator/simMain';
import { ChorusError, type CoveragePoint } from '../../src/protocol';

const DUT = '/w/rtl/fifo.sv';
const TB = '/w/tb/tb.sv';

function key(fields: [string, string][]): string {
  return fields.map(([k, v]) => `\x01${k}\x02${v}`).join('');
}

function datLine(
  file: string,
  line: number,
  col: number,
  page: string,
  comment: string,
  hier: string,
  count: number,
  span?: string,
): string {
  const fields: [string, string][] = [
    ['f', file],
    ['l', String(line)],
    ['n', String(col)],
    ['page', page],
    ['o', comment],
  ];
  if (span) fields.push(['S', span]);
  fields.push(['h', hier]);
  return `C '${key(fields)}' ${count}`;
}

const sample = [
  '# SystemC::Coverage-3',
  datLine(DUT, 10, 30, 'v_toggle/fifo', 'q[0]', 'TOP.tb.uut', 4),
  datLine(DUT, 10, 30, 'v_toggle/fifo', 'q[1]', 'TOP.tb.uut', 0),
  datLine(DUT, 16, 5, 'v_line/fifo', 'block', 'TOP.tb.uut', 11, '16'),
  datLine(DUT, 21, 18, 'v_branch/fifo', 'if', 'TOP.tb.uut', 10, '21-24'),
  datLine(DUT, 21, 19, 'v_branch/fifo', 'else', 'TOP.tb.uut', 0),
  datLine(DUT, 29, 22, 'v_line/fifo', 'case', 'TOP.tb.uut', 0, '29,31'),
  datLine(DUT, 29, 22, 'v_line/fifo', 'case', 'TOP.tb.uut.sub', 3, '29,31'),
  datLine(DUT, 40, 3, 'v_user/fifo', 'cover_full', 'TOP.tb.uut', 0),
  datLine(TB, 3, 1, 'v_line/tb', 'block', 'TOP.tb', 1, '3'),
  '',
].join('\n');

test('parseCoverageDat keeps only DUT points, with every field of the key', () => {
  const pts = parseCoverageDat(sample, [DUT], 'sample.dat');
  assert.equal(pts.length, 8);
  assert.ok(pts.every((p) => p.file === DUT));
  const branchElse = pts.find((p) => p.kind === 'branch' && p.comment === 'else');
  assert.deepEqual(branchElse, {
    file: DUT,
    line: 21,
    column: 19,
    kind: 'branch',
    comment: 'else',
    hierarchy: 'TOP.tb.uut',
    module: 'fifo',
    count: 0,
  });
  const ifArm = pts.find((p) => p.kind === 'branch' && p.comment === 'if');
  assert.equal(ifArm?.span, '21-24');
  assert.equal(pts.filter((p) => p.kind === 'toggle').length, 2);
  assert.equal(pts.filter((p) => p.kind === 'user').length, 1);
});

test('parseCoverageDat names points as the caller spelled the DUT file and accepts long key names', () => {
  const rel = 'rtl/x.sv';
  const abs = `${process.cwd()}/rtl/x.sv`;
  const long = `# SystemC::Coverage-3\nC '${key([
    ['filename', abs],
    ['lineno', '7'],
    ['column', '2'],
    ['page', 'v_line/x'],
    ['comment', 'block'],
    ['hier', 'TOP.t.u'],
  ])}' 5\n`;
  const pts = parseCoverageDat(long, [rel], 'long.dat');
  assert.equal(pts.length, 1);
  assert.equal(pts[0].file, rel);
  assert.equal(pts[0].line, 7);
  assert.equal(pts[0].column, 2);
  assert.equal(pts[0].count, 5);
  assert.equal(pts[0].hierarchy, 'TOP.t.u');
});

test('a damaged coverage file is a located ChorusError', () => {
  const cases = [
    'not coverage\n',
    sample.slice(0, sample.length - 5), // truncated mid-line
    '# SystemC::Coverage-3\nC broken line\n',
    `# SystemC::Coverage-3\nC '${key([
      ['f', DUT],
      ['page', 'v_line/x'],
    ])}' 1\n`,
  ];
  for (const text of cases) {
    assert.throws(
      () => parseCoverageDat(text, [DUT], 'bad.dat'),
      (err: unknown) => err instanceof ChorusError && err.kind === 'failed' && err.location?.file === 'bad.dat',
    );
  }
});

test('summarize counts points per kind; pct rounds down so only full coverage reads 100', () => {
  const pts = parseCoverageDat(sample, [DUT], 'sample.dat');
  const s = summarize(pts);
  assert.deepEqual(s.line, { covered: 2, total: 3, pct: 66.6 });
  assert.deepEqual(s.branch, { covered: 1, total: 2, pct: 50 });
  assert.deepEqual(s.toggle, { covered: 1, total: 2, pct: 50 });
  const almost: CoveragePoint[] = Array.from({ length: 1000 }, (_, i) => ({
    ...pts[2],
    line: i + 1,
    count: i === 0 ? 0 : 1,
  }));
  assert.equal(summarize(almost).line.pct, 99.9);
  assert.equal(summarize([]).line.pct, 100);
});

test('summarizeByInstance is cumulative over sub-instances', () => {
  const pts = parseCoverageDat(sample, [DUT], 'sample.dat');
  const byInst = summarizeByInstance(pts);
  assert.deepEqual(Object.keys(byInst).sort(), ['TOP.tb.uut', 'TOP.tb.uut.sub']);
  assert.deepEqual(byInst['TOP.tb.uut.sub'].line, { covered: 1, total: 1, pct: 100 });
  assert.deepEqual(byInst['TOP.tb.uut'].line, { covered: 2, total: 3, pct: 66.6 });
});

test('mergePoints adds counts of the same point and keeps distinct points apart (property)', () => {
  const point = fc.record({
    file: fc.constantFrom('a.sv', 'b.sv'),
    line: fc.integer({ min: 1, max: 5 }),
    column: fc.integer({ min: 0, max: 2 }),
    kind: fc.constantFrom('line' as const, 'branch' as const, 'toggle' as const),
    comment: fc.constantFrom('if', 'else', 'q[0]'),
    hierarchy: fc.constantFrom('TOP.t.u', 'TOP.t.v'),
    module: fc.constant('m'),
    count: fc.nat({ max: 50 }),
  });
  fc.assert(
    fc.property(fc.array(point, { maxLength: 30 }), fc.array(point, { maxLength: 30 }), (a, b) => {
      const merged = mergePoints(a, b);
      const total = (list: CoveragePoint[]) => list.reduce((n, p) => n + p.count, 0);
      assert.equal(total(merged), total(a) + total(b));
      const ids = new Set(merged.map((p) => [p.file, p.line, p.column, p.kind, p.comment, p.hierarchy].join('|')));
      assert.equal(ids.size, merged.length);
      // Merging is order-independent.
      assert.deepEqual(mergePoints(b, a), merged);
    }),
  );
});

test('findHoles orders by file and line and carries the source line', () => {
  const pts = parseCoverageDat(sample, [DUT], 'sample.dat');
  const src = Array.from({ length: 45 }, (_, i) => `    line ${i + 1};`).join('\n');
  const holes = findHoles(pts, new Map([[DUT, src]]));
  // A hole names its file by the path the points carry: one identity, no display names in data.
  assert.deepEqual(
    holes.map((h) => [h.file, h.line, h.kind]),
    [
      [DUT, 10, 'toggle'],
      [DUT, 21, 'branch'],
      [DUT, 29, 'line'],
      [DUT, 40, 'user'],
    ],
  );
  // Text for the model names files by base name unless told otherwise.
  assert.match(holesFeedback(holes), /^- fifo\.sv:21 branch:/m);
  assert.match(
    holesFeedback(holes, 40, (f) => `rtl/${f.split('/').pop()}`),
    /^- rtl\/fifo\.sv:21 branch:/m,
  );
  assert.equal(holes[1].source, 'line 21;');
  assert.match(holes[1].detail, /else/);
  assert.match(holes[0].detail, /q\[1\]/);
  assert.equal(holes[2].hierarchy, 'TOP.tb.uut');
});

test('holesFeedback puts control flow first, groups toggle bits and stays within maxLines', () => {
  const holes = [
    ...Array.from({ length: 8 }, (_, i) => ({
      kind: 'toggle' as const,
      file: 'f.sv',
      line: 3,
      detail: `data[${i}] never toggled`,
      hierarchy: 'TOP.t.u',
    })),
    { kind: 'branch' as const, file: 'f.sv', line: 20, detail: 'else arm never taken', source: 'if (a) b <= 1;' },
    ...Array.from({ length: 30 }, (_, i) => ({
      kind: 'line' as const,
      file: 'f.sv',
      line: 100 + i,
      detail: 'block never executed',
    })),
  ];
  const text = holesFeedback(holes, 10);
  const lines = text.split('\n');
  assert.ok(lines.length <= 10, text);
  assert.match(lines[1], /f\.sv:20 branch: else arm never taken \| if \(a\) b <= 1;/);
  assert.match(lines[lines.length - 1], /^\.\.\. and \d+ more$/);
  const shown = Number(/(\d+) more/.exec(lines[lines.length - 1])?.[1]);
  // 39 holes: the shown lines are single branch/line holes; the count covers the rest, toggle bits included.
  assert.equal(shown + (lines.length - 2), 39);
  const all = holesFeedback(holes, 100);
  assert.match(all, /f\.sv:3 toggle: data\[0\], data\[1\].*data\[7\] never toggled/);
  assert.doesNotMatch(all, /more$/);
  assert.match(holesFeedback([]), /No coverage holes/);
});

test('lineCoverage spreads block and arm counts over their span, and shows misses as 0', () => {
  const pts = parseCoverageDat(sample, [DUT], 'sample.dat');
  const lines = lineCoverage(pts);
  const at = (n: number) => lines.find((l) => l.line === n);
  assert.deepEqual(pointLines({ line: 29, span: '29,31' }), [29, 31]);
  assert.deepEqual(pointLines({ line: 3, span: '3-5,9' }), [3, 4, 5, 9]);
  // line 21: if arm 10, else arm 0 -> the line reads 0, both arms listed
  assert.equal(at(21)?.hits, 0);
  assert.deepEqual(at(21)?.branches, [
    { label: 'if', count: 10 },
    { label: 'else', count: 0 },
  ]);
  // lines 22..24 are the if arm's body
  assert.equal(at(23)?.hits, 10);
  // the case item at 29 is summed over both instances (0 + 3); 31 is in its span
  assert.equal(at(29)?.hits, 3);
  assert.equal(at(31)?.hits, 3);
  assert.deepEqual(at(10)?.missingToggles, ['q[1]']);
  assert.equal(at(10)?.hits, 0);
  assert.deepEqual(at(10)?.kinds, ['toggle']);
  assert.deepEqual(at(21)?.kinds, ['branch']);
  assert.deepEqual(at(16)?.kinds, ['line']);
});

test('toLcov writes DA, BRDA and totals per file', () => {
  const pts = parseCoverageDat(sample, [DUT], 'sample.dat');
  const lcov = toLcov(pts, () => 'rtl/fifo.sv');
  const lines = lcov.trim().split('\n');
  assert.equal(lines[0], 'TN:chorus');
  assert.equal(lines[1], 'SF:rtl/fifo.sv');
  assert.ok(lines.includes('BRDA:21,0,0,10'));
  assert.ok(lines.includes('BRDA:21,0,1,0'));
  assert.ok(lines.includes('BRF:2'));
  assert.ok(lines.includes('BRH:1'));
  assert.ok(lines.includes('DA:23,10'));
  assert.ok(lines.includes('DA:21,0'));
  const da = lines.filter((l) => l.startsWith('DA:'));
  assert.ok(lines.includes(`LF:${da.length}`));
  assert.ok(lines.includes(`LH:${da.filter((l) => !l.endsWith(',0')).length}`));
  assert.equal(lines[lines.length - 1], 'end_of_record');
});

test('Verilator compile messages become diagnostics on the user files', () => {
  const out = [
    "%Warning-PINMISSING: /w/tb/tb.sv:4:11: Cell has missing pin: 'rst_n'",
    '    4 |   counter uut(.clk(clk));',
    '      |           ^~~',
    "%Error: /w/tb/tb.sv:6:5: syntax error, unexpected $finish, expecting ';'",
    "%Error: Specified --top-module 'x' was not found in design.",
    '%Error: Exiting due to 2 error(s)',
  ].join('\n');
  const diags = parseVerilatorOutput(out, (p) => (p === TB ? 'tb.sv' : p), 'tb.sv');
  assert.deepEqual(diags, [
    { file: 'tb.sv', line: 4, column: 11, severity: 'warning', message: "Cell has missing pin: 'rst_n' [PINMISSING]" },
    {
      file: 'tb.sv',
      line: 6,
      column: 5,
      severity: 'error',
      message: "syntax error, unexpected $finish, expecting ';'",
    },
    {
      file: 'tb.sv',
      line: 0,
      column: 0,
      severity: 'error',
      message: "Specified --top-module 'x' was not found in design.",
    },
  ]);
});

test('runtime $fatal and its $stop line become one diagnostic', () => {
  const out = [
    '[15] %Warning: tb.sv:11: Assertion failed in TOP.tb: just a warning 3',
    'hello',
    '[65] %Error: tb.sv:16: Assertion failed in TOP.tb: fatal thing',
    '%Error: /w/tb/tb.sv:16: Verilog $stop',
  ].join('\n');
  const diags = parseRuntimeOutput(out, (p) => (p === TB || p === 'tb.sv' ? 'tb/tb.sv' : p), 'tb/tb.sv');
  assert.equal(diags.length, 2);
  assert.deepEqual(diags[0], {
    file: 'tb/tb.sv',
    line: 11,
    column: 0,
    severity: 'warning',
    message: 'Warning at time 15: just a warning 3',
  });
  assert.deepEqual(diags[1], {
    file: 'tb/tb.sv',
    line: 16,
    column: 0,
    severity: 'error',
    message: 'Error at time 65: fatal thing',
  });
  const stopOnly = parseRuntimeOutput('%Error: /w/tb/tb.sv:17: Verilog $stop\n', (p) => p, 'x');
  assert.equal(stopOnly.length, 1);
  assert.equal(stopOnly[0].line, 17);
});

test('the simulator stop line is parsed and removed; a look-alike printed earlier is ignored', () => {
  const out = 'hi\n%chorus-sim: stop=finish time=1 coverage=0\nmore\n%chorus-sim: stop=simtime time=1000 coverage=1\n';
  const { stop, output } = parseStopLine(out);
  assert.deepEqual(stop, { stop: 'simtime', time: 1000, coverage: true });
  assert.equal(output, 'hi\n%chorus-sim: stop=finish time=1 coverage=0\nmore\n');
  assert.equal(parseStopLine('nothing').stop, undefined);
  // With checkpoints it also says at which checkpoints a point was new, the last apart.
  assert.deepEqual(parseStopLine('%chorus-sim: stop=finish time=9000 coverage=1 grew=42 fresh=2,10,42\n').stop, {
    stop: 'finish',
    time: 9000,
    coverage: true,
    grew: 42,
    fresh: [2, 10, 42],
  });
  assert.deepEqual(parseStopLine('%chorus-sim: stop=idle time=9 coverage=1 grew=0 fresh=\n').stop?.fresh, []);
});

test('findTestbenchTop picks the module no other module instantiates', () => {
  assert.equal(findTestbenchTop('module tb; counter uut(.*); endmodule'), 'tb');
  assert.equal(
    findTestbenchTop('module drv #(parameter N=1)(); endmodule\nmodule top_x; drv #(.N(2)) d(); endmodule : top_x\n'),
    'top_x',
  );
  assert.equal(findTestbenchTop('// module fake;\n/* module fake2; */ module real_tb; endmodule'), 'real_tb');
  assert.equal(findTestbenchTop('nothing here'), undefined);
});

test('OutputCapture keeps the head and the tail of a flood', () => {
  const cap = new OutputCapture(100);
  cap.add(Buffer.from('START'));
  for (let i = 0; i < 1000; i++) cap.add(Buffer.from(`line ${i}\n`));
  cap.add(Buffer.from('%Error: the end'));
  const text = cap.text();
  assert.ok(text.startsWith('START'));
  assert.ok(text.endsWith('%Error: the end'));
  assert.match(text, /bytes of output omitted/);
  assert.ok(text.length < 200);
});
