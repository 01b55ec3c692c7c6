/**
 * A small run with every kind of exclusion, made by the engine's own code without Verilator: hand-written points
 * of one module, their holes (`findHoles`), a proof on one as the formal engine gives it, a waiver file's entries
 * applied by `checkWaivers` (a person's LOW_RISK on a branch arm and on a line, a kept UNR proof on another), and
 * the verdict by `judge`. The extension and server tests read the same run.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { judge } from '../../src/engine/verdict';
import { checkWaivers } from '../../src/engine/waivers/check';
import type { WaiverEntry } from '../../src/engine/waivers/file';
import type { CoveragePoint, GenerateResult, Hole, WaiverReport } from '../../src/protocol';
import { findHoles, lineCoverage, summarize } from '../../src/sim';

export const SOURCE = `module m(input clk, input sel, input [1:0] op, output reg q);
  always @(posedge clk) begin
    if (sel) q <= 1'b1; else q <= 1'b0;
    q <= ~q;
  end
  always @(posedge clk) begin
    if (op == 2'b11) q <= 1'b0;
  end
  always @(posedge clk) case (op) default: q <= q; endcase
  always @(posedge clk) begin
    if (op == 2'b10) q <= 1'b1;
  end
  always @(posedge clk) if (op == 2'b01) q <= 1'b0;
endmodule
`;

export interface WaivedRun {
  dir: string;
  /** The DUT file (absolute). */
  file: string;
  waiverFile: string;
  points: CoveragePoint[];
  holes: Hole[];
  report: WaiverReport;
  result: GenerateResult;
}

const HIER = 'TOP.tb_m.uut';

export async function waivedRun(): Promise<WaivedRun> {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-waived-'));
  mkdirSync(join(dir, 'rtl'));
  mkdirSync(join(dir, 'signoff'));
  const file = join(dir, 'rtl', 'm.sv');
  writeFileSync(file, SOURCE);
  const p = (line: number, kind: CoveragePoint['kind'], comment: string, count: number): CoveragePoint => ({
    file,
    line,
    column: 5,
    kind,
    comment,
    hierarchy: HIER,
    module: 'm',
    count,
  });
  const points = [
    // Line 3: ran; its else arm never taken, waived LOW_RISK by a person.
    p(3, 'line', 'block', 5),
    p(3, 'branch', 'if', 5),
    p(3, 'branch', 'else', 0),
    p(4, 'line', 'block', 5),
    // Line 7: never ran, waived LOW_RISK by a person.
    p(7, 'line', 'if', 0),
    // Line 9: never ran, proven unreachable in this run.
    p(9, 'line', 'case', 0),
    // Line 11: never ran, an open hole.
    p(11, 'line', 'if', 0),
    // Line 13: never ran, a kept UNR entry (proven by an earlier run; no formal engine this time).
    p(13, 'line', 'if', 0),
  ];
  const found = findHoles(points, new Map([[file, SOURCE]]));
  const holes = found.map((h) =>
    h.line === 9 ? { ...h, unreachable: 'k-induction, depth 3', proof: { method: 'induction' as const, depth: 3 } } : h,
  );
  const entry = (line: number, kind: WaiverEntry['kind'], point: string, rest: Partial<WaiverEntry>): WaiverEntry => ({
    file: '../rtl/m.sv',
    line,
    column: 5,
    kind,
    point,
    instance: '',
    module: 'm',
    category: 'LOW_RISK',
    reason: 'tied off in this SoC',
    who: 'ana',
    fingerprint: '',
    ...rest,
  });
  const waiverFile = join(dir, 'signoff', 'm.waivers.toml');
  const checked = await checkWaivers({
    file: waiverFile,
    entries: [
      entry(3, 'branch', 'else', {}),
      entry(7, 'line', 'if', { reason: 'debug opcode, never used' }),
      entry(13, 'line', 'if', {
        category: 'UNR',
        reason: 'k-induction, depth 2',
        who: 'chorus',
        proofMethod: 'induction',
        proofDepth: 2,
        proofTool: 'yosys 0.55 (@yowasp/yosys)',
      }),
    ],
    points,
    holes,
    dutInstance: 'uut',
    source: async (f) => (f === file ? SOURCE : undefined),
    proverVersion: 'yosys 0.55 (@yowasp/yosys)',
  });
  const targets = { line: 100, branch: 100 };
  const coverage = summarize(points);
  const verdict = judge({ coverage, holes: checked.holes, targets, ran: true, cancelled: false });
  const result: GenerateResult = {
    top: 'm',
    engine: 'random',
    pass: verdict.met,
    targets,
    coverage,
    holes: checked.holes,
    rounds: [],
    testbench: 'module tb_m; endmodule',
    stopReason: 'stalled',
    diagnostics: [],
    lines: lineCoverage(points),
    closed: verdict.closed,
    verdict,
    waivers: checked.report,
  };
  return { dir, file, waiverFile, points, holes: checked.holes, report: checked.report, result };
}
