/**
 * Waivers in the editor: a waived point's own gutter mark and hover (who, why, the category, a kept proof), the
 * Test Coverage totals that leave excluded points out as the engine's verdict counts them, and the run's output
 * that lists them. The run is made by the engine's own waiver check and verdict (test/helpers/waivedRun.ts).
 */
import './stub/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import * as vscode from 'vscode';
import { excluded, lineMarks } from '../../src/extension/coverageModel';
import { CoverageGutter, decorationPlan } from '../../src/extension/gutter';
import { countSpecs, statementSpecs, waivedPoints } from '../../src/extension/statements';
import { CoverageStore } from '../../src/extension/store';
import { closureLines, CoverageTests, toFileCoverage, verdictLine } from '../../src/extension/testCoverage';
import { closureText, isExcluded, type LineCoverage } from '../../src/protocol';
import { SOURCE, waivedRun, type WaivedRun } from '../helpers/waivedRun';
import { makeDocument, makeEditor, stub } from './stub/vscode';

let run: WaivedRun;
let lines: LineCoverage[];

before(async () => {
  run = await waivedRun();
  lines = run.result.lines ?? [];
});
after(() => rmSync(run.dir, { recursive: true, force: true }));

const markAt = (line: number) => {
  const m = lineMarks({ lines, holes: run.holes }).find((x) => x.line === line);
  assert.ok(m, `a mark on line ${line}`);
  return m;
};

test('waived lines get the waived mark, proven ones the proven mark, open holes stay holes', () => {
  const plan = decorationPlan({ lines, holes: run.holes }, 20);
  assert.deepEqual(
    plan.waived.map((m) => m.line),
    [3, 7, 13],
  );
  assert.deepEqual(
    plan.proven.map((m) => m.line),
    [9],
  );
  assert.deepEqual(
    plan.uncovered.map((m) => m.line),
    [11],
  );
  assert.deepEqual(
    plan.covered.map((m) => m.line),
    [4],
  );
});

test('the hover of a waived point says who waived it, why, and its category', () => {
  const line7 = markAt(7).hover;
  assert.match(line7, /\*\*CHORUS: waived\*\* — excluded from the totals by the waiver file/);
  assert.match(line7, /if branch never taken — \*\*waived\*\* \(LOW_RISK\) by ana: debug opcode, never used/);
  assert.doesNotMatch(line7, /Generate high-coverage stimulus/, 'a waived point is not chased');
  // A line that ran, with one arm waived: covered, the arm named as waived.
  const line3 = markAt(3).hover;
  assert.match(line3, /\*\*CHORUS: covered\*\* — what never ran here is waived/);
  assert.match(line3, /Branch arms: if ×5, else waived \(LOW_RISK\)/);
  assert.match(line3, /else arm never taken .* — \*\*waived\*\* \(LOW_RISK\) by ana: tied off in this SoC/);
});

test('a kept UNR entry shows its proof: method, depth and the prover with its version', () => {
  assert.match(
    markAt(13).hover,
    /\*\*waived\*\* \(UNR, proven unreachable\) by chorus: k-induction, depth 2 — proof: k-induction, depth 2, yosys 0\.55 \(@yowasp\/yosys\)/,
  );
  // A proof of this run is the proven mark's, with its own words.
  assert.match(markAt(9).hover, /proven unreachable\*\* by k-induction \(depth 3\)/);
});

test('the Test Coverage totals leave waived and proven points out, as the engine’s verdict counts them', () => {
  const verdict = run.result.verdict;
  assert.ok(verdict);
  const counts = countSpecs(statementSpecs(lines, run.holes));
  // The view's counts are the verdict's signoff totals (the raw ones are 2 of 6 lines, 1 of 2 arms).
  assert.equal(run.result.coverage.line.total, 6);
  assert.deepEqual(counts.statements, { covered: verdict.coverage.line.covered, total: verdict.coverage.line.total });
  assert.deepEqual(counts.branches, {
    covered: verdict.coverage.branch.covered,
    total: verdict.coverage.branch.total,
  });
  // The editor's reading of "excluded" is the verdict's: the same holes.
  assert.deepEqual(
    run.holes.filter((h) => excluded(h)),
    run.holes.filter(isExcluded),
  );
  const fc = toFileCoverage(vscode.Uri.file(run.file), { lines, holes: run.holes }).coverage as unknown as {
    statementCoverage: { covered: number; total: number };
  };
  assert.deepEqual({ ...fc.statementCoverage }, { covered: 2, total: 3 });
});

test('the run’s output gives the verdict’s counting and lists each waived point with its waiver', () => {
  const verdict = run.result.verdict;
  assert.equal(
    verdictLine(verdict),
    'Signoff coverage, proven and waived points excluded as URG and IMC count them: line 66.6% · branch 100%; excluded: line 1 proven, 2 waived; branch 1 waived',
  );
  const text = closureLines(run.result);
  assert.ok(text.includes('Waived (chorus.waiverFile), left out of the Test Coverage totals:'), text.join('\n'));
  assert.ok(
    text.some((l) => /m\.sv:7 if branch never taken — LOW_RISK waiver by ana: debug opcode, never used$/.test(l)),
    text.join('\n'),
  );
  assert.ok(
    text.some((l) =>
      /m\.sv:13 .* UNR waiver by chorus: k-induction, depth 2 \(proof: induction, depth 2, yosys/.test(l),
    ),
    text.join('\n'),
  );
  assert.equal(waivedPoints(run.holes).length, 3);
  // Not closed: line 11 is open, and the count of open points leaves the waived ones out.
  assert.equal(closureText(run.result), '1 line/branch point neither covered nor excluded (proven or waived)');
  assert.equal(
    closureText({ holes: run.holes.filter((h) => h.line !== 11), closed: true }),
    'Closed: every line and branch point covered, proven unreachable or waived',
  );
});

test('a failed DUT’s test message shows the verdict’s signoff totals, not the raw ones', () => {
  stub.reset();
  const tests = new CoverageTests(async () => {});
  const dut = vscode.Uri.file(run.file);
  const testRun = tests.startRun(dut, 'm');
  tests.publish(testRun, dut, run.result, [toFileCoverage(dut, { lines, holes: run.holes })]);
  const rec = stub.testRuns.at(-1);
  assert.ok(rec);
  const message = rec.failed[0]?.message.message;
  assert.match(String(message), /^line 66\.6% · branch 100% — below target: line 66\.6% < 100%/);
  tests.dispose();
});

test('the gutter paints waived lines with the waived decoration, its hover attached', () => {
  stub.reset();
  const editor = makeEditor(makeDocument(vscode.Uri.file(run.file), SOURCE));
  stub.visibleTextEditors = [editor];
  const store = new CoverageStore();
  const context = {
    asAbsolutePath: (p: string) => `/ext/${p}`,
    workspaceState: { get: () => undefined, update: async () => undefined },
  } as unknown as vscode.ExtensionContext;
  const gutter = new CoverageGutter(context, store);
  store.update(vscode.Uri.file(run.file), { top: 'm', holes: run.holes, lines, result: run.result });
  const painted = [...editor.decorations.entries()].map(([type, options]) => ({
    icon: (type as { options: { gutterIconPath: string } }).options.gutterIconPath,
    lines: options.map((o) => o.range.start.line + 1),
    hovers: options.map((o) => o.hoverMessage?.value ?? ''),
  }));
  const waived = painted.find((p) => p.icon === '/ext/media/waived.svg');
  assert.ok(waived, JSON.stringify(painted.map((p) => p.icon)));
  assert.deepEqual(waived.lines, [3, 7, 13]);
  assert.match(waived.hovers[1], /by ana: debug opcode/);
  gutter.dispose();
  store.dispose();
});
