import './stub/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { GenerateResult, Hole, LineCoverage } from '../../src/protocol';
import { countSpecs, statementSpecs } from '../../src/extension/statements';
import { closureLines, CoverageTests, lineRange, toFileCoverage } from '../../src/extension/testCoverage';
import { stub, type RecordedRun } from './stub/vscode';

const F = '/w/rtl/alu.sv';
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
const LINES = [
  lc(2, 0, [], ['op[1] 0->1']),
  lc(6, 40),
  lc(7, 40, [
    ['if', 30],
    ['else', 10],
  ]),
  lc(9, 10, [
    ["case 2'b11", 0],
    ["case 2'b00", 10],
  ]),
  lc(12, 0),
];

function result(pass: boolean): GenerateResult {
  const k = (covered: number, total: number) => ({ covered, total, pct: Math.round((1000 * covered) / total) / 10 });
  return {
    top: 'alu',
    engine: 'random',
    pass,
    targets: { line: 100, branch: 100 },
    coverage: { line: k(3, 4), branch: k(3, 4), toggle: k(7, 8) },
    holes: [],
    rounds: [],
    testbench: 'module tb; endmodule',
    stopReason: pass ? 'targets met' : 'stalled',
    diagnostics: [],
    lines: LINES,
    // The engine's verdict: the editor shows it and never judges again.
    verdict: {
      counting: 'signoff',
      coverage: { line: k(3, 4), branch: k(3, 4), toggle: k(7, 8) },
      excluded: {},
      met: pass,
      unmet: pass
        ? []
        : [
            { metric: 'line', pct: 75, target: 100 },
            { metric: 'branch', pct: 75, target: 100 },
          ],
      closed: false,
      exitCode: pass ? 0 : 1,
    },
  };
}

test('report → statements with branch children; declarations are not statements', () => {
  const specs = statementSpecs(LINES);
  assert.deepEqual(
    specs.map((s) => s.line),
    [6, 7, 9, 12],
  );
  assert.deepEqual(specs[1].branches, [
    { label: 'if', executed: 30 },
    { label: 'else', executed: 10 },
  ]);
  assert.deepEqual(countSpecs(specs), { statements: { covered: 3, total: 4 }, branches: { covered: 3, total: 4 } });
});

test('report → FileCoverage.fromDetails with statement and branch counts and ranges on the line text', () => {
  const text = [
    'module alu(',
    '  input [1:0] op',
    '',
    '',
    '',
    '  assign y = a;',
    '  always_comb if (op[0]) y = a; else y = b;',
    '',
    '    case (op)',
    '',
    '',
    '  default: y = 0;',
  ];
  const { coverage, details } = toFileCoverage(vscode.Uri.file(F), { lines: LINES }, (l) => text[l - 1]);
  assert.equal(coverage.uri.fsPath, F);
  assert.deepEqual([coverage.statementCoverage.covered, coverage.statementCoverage.total], [3, 4]);
  assert.deepEqual([coverage.branchCoverage?.covered, coverage.branchCoverage?.total], [3, 4]);
  assert.equal(details.length, 4);
  const stmt = details[2];
  assert.equal(stmt.executed, 10);
  assert.deepEqual(
    stmt.branches.map((b) => [b.label, b.executed]),
    [
      ["case 2'b11", 0],
      ["case 2'b00", 10],
    ],
  );
  const r = stmt.location as vscode.Range;
  assert.deepEqual(
    [r.start.line, r.start.character, r.end.character],
    [8, 4, text[8].length],
    'from the first non-blank character',
  );
  const bare = lineRange(12);
  assert.deepEqual([bare.start.line, bare.start.character, bare.end.character], [11, 0, 0]);
});

test('a published run carries the coverage, serves its details, and passes or fails the DUT item', async () => {
  stub.reset();
  const tests = new CoverageTests(async () => {});
  const dut = vscode.Uri.file(F);
  const file = toFileCoverage(dut, { lines: LINES });

  const run = tests.startRun(dut, 'alu');
  tests.publish(run, dut, result(false), [file], 1234);
  run.end();
  const rec = stub.testRuns[0];
  assert.equal(rec.coverage.length, 1);
  assert.equal(rec.coverage[0], file.coverage);
  assert.equal(rec.failed.length, 1);
  assert.match(rec.failed[0].message.message, /branch 75% < 100%/);
  assert.match(rec.failed[0].message.message, /stalled/);
  assert.equal(rec.ended, true);

  const profile = tests.profile as unknown as {
    kind: number;
    loadDetailedCoverage: (r: unknown, fc: unknown, t: unknown) => Promise<unknown[]>;
  };
  assert.equal(profile.kind, vscode.TestRunProfileKind.Coverage);
  assert.equal(await profile.loadDetailedCoverage(run, file.coverage, undefined), file.details);
  assert.deepEqual(
    await profile.loadDetailedCoverage(run, toFileCoverage(dut, { lines: [] }).coverage, undefined),
    [],
    'unknown file: no details',
  );

  const run2 = tests.startRun(dut, 'alu');
  tests.publish(run2, dut, result(true), [file]);
  assert.equal(stub.testRuns[1].passed[0].label, 'alu');
  assert.equal(tests.controller.items.size, 1, 'one item per DUT document');

  // A run the engine ended early says why, beside the figures.
  const run3 = tests.startRun(dut, 'alu');
  tests.publish(
    run3,
    dut,
    { ...result(false), stopReason: 'error', stopDetail: 'the endpoint answered 503 in round 2' },
    [file],
  );
  assert.match(stub.testRuns[2].failed[0].message.message, /\(error: the endpoint answered 503 in round 2\)/);
});

test('the Coverage profile runs the loop for each requested DUT within one test run', async () => {
  stub.reset();
  const ran: string[] = [];
  const tests = new CoverageTests(async (dut, _token, run) => {
    ran.push(dut.fsPath);
    run.addCoverage(toFileCoverage(dut, { lines: LINES }).coverage);
  });
  const a = tests.itemFor(vscode.Uri.file('/w/a.sv'), 'a');
  tests.itemFor(vscode.Uri.file('/w/b.sv'), 'b');
  const profile = tests.profile as unknown as {
    run: (r: vscode.TestRunRequest, t: vscode.CancellationToken) => Promise<void>;
  };
  const cts = new vscode.CancellationTokenSource();
  await profile.run(new vscode.TestRunRequest([a]), cts.token);
  assert.deepEqual(ran, ['/w/a.sv']);
  await profile.run(new vscode.TestRunRequest(), cts.token);
  assert.deepEqual(ran, ['/w/a.sv', '/w/a.sv', '/w/b.sv'], 'no include: every DUT');
  const runs: RecordedRun[] = stub.testRuns;
  assert.equal(runs.length, 2);
  assert.ok(runs.every((r) => r.ended));
  assert.equal(runs[1].coverage.length, 2);
});

test('points proven unreachable are left out of the Test Coverage totals and listed with their proofs', () => {
  stub.reset();
  const induction = { unreachable: 'k-induction, depth 2', proof: { method: 'induction', depth: 2 } } as const;
  const holes: Hole[] = [
    // Line 7's else arm never ran and is proven dead; line 12 never ran and is proven dead.
    { file: F, line: 7, kind: 'branch', detail: 'else arm never taken (condition never false here)', ...induction },
    { file: F, line: 12, kind: 'line', detail: 'block never executed', ...induction },
    // Line 9's case arm is a hole the formal engine could not decide: it stays.
    { file: F, line: 9, kind: 'branch', detail: 'case arm never taken', formal: 'timeout after 10 s' },
  ];
  const lines = [
    lc(6, 40),
    lc(7, 40, [
      ['if', 40],
      ['else', 0],
    ]),
    lc(9, 10, [
      ['case', 0],
      ['case', 10],
    ]),
    lc(12, 0),
  ];
  const { coverage, details } = toFileCoverage(vscode.Uri.file(F), { lines, holes });
  assert.deepEqual(
    details.map((d) => (d.location as vscode.Range).start.line + 1),
    [6, 7, 9],
    'the dead line 12 is no statement',
  );
  assert.deepEqual(
    details[1].branches.map((b) => b.label),
    ['if'],
    'the dead else arm is no branch',
  );
  assert.deepEqual([coverage.statementCoverage.covered, coverage.statementCoverage.total], [3, 3]);
  assert.deepEqual(
    [coverage.branchCoverage?.covered, coverage.branchCoverage?.total],
    [2, 3],
    'the undecided case arm still counts as missed',
  );
  // Without holes nothing is left out.
  assert.equal(toFileCoverage(vscode.Uri.file(F), { lines }).details.length, 4);

  const r: GenerateResult = {
    ...result(false),
    holes,
    closed: false,
    formal: { proven: 2, witnesses: 1, unknown: 1, ms: 1530 },
  };
  const text = closureLines(r);
  assert.equal(text[0], '1 line/branch point neither covered nor proven unreachable');
  assert.equal(text[1], 'formal: 2 proven unreachable · 1 witness · 1 unknown · 1.5 s in Yosys');
  assert.match(text[2], /left out of the Test Coverage totals/);
  assert.deepEqual(text.slice(3), [
    `  ${F}:7 else arm never taken (condition never false here) — k-induction (depth 2)`,
    `  ${F}:12 block never executed — k-induction (depth 2)`,
  ]);
  const tests = new CoverageTests(async () => {});
  const dut = vscode.Uri.file(F);
  const run = tests.startRun(dut, 'alu');
  tests.publish(run, dut, r, []);
  const rec = stub.testRuns[0];
  assert.match(rec.output.join(''), /alu\.sv:12 block never executed — k-induction \(depth 2\)\r\n/);
  assert.match(rec.failed[0].message.message, /1 line\/branch point neither covered nor proven unreachable/);

  const closed = closureLines({ holes: holes.slice(0, 2), closed: true });
  assert.equal(closed[0], 'Closed: every line and branch point covered or proven unreachable');
  assert.deepEqual(
    closureLines({ holes: [], closed: undefined }),
    [],
    'a result that says nothing of closure adds nothing',
  );
});
