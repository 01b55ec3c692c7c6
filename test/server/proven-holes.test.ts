/**
 * Points proven unreachable against holes, in the language server's hover, hole diagnostics and lenses: the pure
 * renderers on results with every kind of verdict (k-induction, analysis, the formal engine's "could not decide"),
 * then the built server over stdio after a real run whose FSM `default` the analysis proves unreachable.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DiagnosticSeverity, DiagnosticTag, type CodeLens, type Diagnostic, type Hover } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { Requests, type GenerateResult, type Hole, type LineCoverage } from '../../src/protocol';
import { holeDiagnostics } from '../../src/server/diagnostics';
import { hoverAt } from '../../src/server/hover';
import { coverageTitle } from '../../src/server/lenses';
import { didOpen, request, startServer, type ServerUnderTest } from '../helpers/lsp';
import { fileReply, replayModel } from '../helpers/replay';

// A 3-state FSM on a 2-bit register (code 3 is never written: its `default` cannot run), and an output mux whose
// `else` the testbench below never takes (mode stays 1): a plain hole.
const dutText = `module ctl (
  input  logic clk,
  input  logic rst,
  input  logic go,
  input  logic mode,
  output logic [1:0] q
);
  logic [1:0] state;
  always_ff @(posedge clk) begin
    if (rst) state <= 2'd0;
    else begin
      case (state)
        2'd0: if (go) state <= 2'd1;
        2'd1: state <= 2'd2;
        2'd2: state <= 2'd0;
        default: state <= 2'd0;
      endcase
    end
  end
  always_comb begin
    if (mode) q = state;
    else q = 2'd3;
  end
endmodule
`;

const testbench = `module tb_ctl;
  logic clk = 0;
  logic rst = 1;
  logic go = 0;
  logic mode = 1;
  wire [1:0] q;
  ctl uut (.clk(clk), .rst(rst), .go(go), .mode(mode), .q(q));
  always #5 clk = ~clk;
  initial begin
    repeat (2) @(negedge clk);
    rst = 0;
    repeat (12) begin
      @(negedge clk);
      go = ~go;
    end
    $finish;
  end
endmodule`;

const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
const valueOf = (h: Hover | null | undefined): string => (h?.contents as { value: string } | undefined)?.value ?? '';

describe('renderers: proven points are no holes, undecided holes say why', () => {
  const file = '/w/rtl/ctl.sv';
  const doc = TextDocument.create(pathToFileURL(file).toString(), 'systemverilog', 1, dutText);
  const defaultLine = lineOf(dutText, 'default:');
  const ifLine = lineOf(dutText, 'if (mode)');
  const elseLine = lineOf(dutText, 'else q');
  const holes: Hole[] = [
    {
      kind: 'line',
      file,
      line: defaultLine,
      detail: 'case item never taken',
      unreachable: 'k-induction, depth 3',
      proof: { method: 'induction', depth: 3 },
    },
    {
      kind: 'branch',
      file,
      line: ifLine,
      detail: 'else arm never taken (condition never false here)',
      formal: 'timeout after 10 s',
    },
    {
      kind: 'line',
      file,
      line: elseLine,
      detail: 'else branch never taken',
      unreachable: 'the state register holds only 3 values',
      proof: { method: 'analysis' },
    },
  ];
  const lines: LineCoverage[] = [
    { file, line: defaultLine, hits: 0, branches: [] },
    {
      file,
      line: ifLine,
      hits: 9,
      branches: [
        { label: 'if', count: 9 },
        { label: 'else', count: 0 },
      ],
    },
  ].map((l) => ({ ...l, missingToggles: [] }));

  test('hover names the proof of a proven point, and the formal engine’s reason on a hole', () => {
    const onDefault = valueOf(hoverAt(doc, { line: defaultLine - 1, character: 4 }, lines, holes, file));
    assert.match(onDefault, /case item never taken: \*\*Proven unreachable by k-induction \(depth 3\)\*\*/);
    const onIf = valueOf(hoverAt(doc, { line: ifLine - 1, character: 4 }, lines, holes, file));
    assert.match(onIf, /- else: \*\*never taken\*\*/, 'an undecided arm is still a hole');
    assert.match(onIf, /formal engine: no proof and no confirmed witness \(timeout after 10 s\)/);
    assert.doesNotMatch(onIf, /Proven unreachable/);
    const onElse = valueOf(hoverAt(doc, { line: elseLine - 1, character: 4 }, lines, holes, file));
    assert.match(onElse, /Proven unreachable by analysis: the state register holds only 3 values/);
    // A proven arm on a line that ran reads as such among the arms.
    const armProven = hoverAt(
      doc,
      { line: ifLine - 1, character: 4 },
      lines,
      [
        {
          ...holes[1],
          formal: undefined,
          unreachable: 'k-induction, depth 2',
          proof: { method: 'induction', depth: 2 },
        },
      ],
      file,
    );
    assert.match(valueOf(armProven), /- else: never taken \(proven unreachable\)/);
  });

  test('diagnostics: a proven point is a faded Hint saying which proof, never a hole; a hole says why formal gave up', () => {
    const diags = holeDiagnostics(holes, file);
    const at = (line: number) => diags.find((d) => d.range.start.line === line - 1)!;
    assert.equal(at(defaultLine).severity, DiagnosticSeverity.Hint);
    assert.deepEqual(at(defaultLine).tags, [DiagnosticTag.Unnecessary]);
    assert.equal(at(defaultLine).message, 'Proven unreachable: case item never taken (k-induction (depth 3))');
    assert.equal(
      at(elseLine).message,
      'Proven unreachable: else branch never taken (analysis: the state register holds only 3 values)',
    );
    assert.equal(at(ifLine).severity, DiagnosticSeverity.Information);
    assert.equal(
      at(ifLine).message,
      'Not covered: else arm never taken (condition never false here) (formal: timeout after 10 s)',
    );
    assert.ok(diags.every((d) => !/likely unreachable/.test(d.message)));
  });

  test('the coverage lens counts proven points apart from holes, and says when a run is closed', () => {
    const k = (covered: number, total: number) => ({ covered, total, pct: Math.floor((1000 * covered) / total) / 10 });
    const r: GenerateResult = {
      top: 'ctl',
      engine: 'random',
      pass: false,
      targets: { line: 100, branch: 100 },
      coverage: { line: k(8, 10), branch: k(5, 6), toggle: k(3, 4) },
      holes,
      rounds: [],
      testbench: '',
      stopReason: 'stalled',
      diagnostics: [],
      closed: false,
    };
    assert.equal(coverageTitle(r), 'line 80% · branch 83% · 2 proven unreachable · 1 hole');
    assert.equal(
      coverageTitle({ ...r, holes: [holes[0], holes[2]], closed: true }),
      'line 80% · branch 83% · closed · 2 proven unreachable · 0 holes',
    );
  });
});

describe('the built server after a run', () => {
  let work: string;
  let file: string;
  let uri: string;
  let lsp: ServerUnderTest;
  let settings: Record<string, unknown> = {};
  const published = new Map<string, Diagnostic[]>();
  let result: GenerateResult;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'chorus-proven-'));
    file = join(work, 'ctl.sv');
    writeFileSync(file, dutText);
    uri = pathToFileURL(file).toString();
    lsp = await startServer(() => settings);
    lsp.conn.onNotification('textDocument/publishDiagnostics', (p: { uri: string; diagnostics: Diagnostic[] }) =>
      published.set(p.uri, p.diagnostics),
    );
    await didOpen(lsp.conn, uri, dutText);
    settings = {
      engine: 'llm',
      model: replayModel([fileReply(testbench, 'tb_ctl.sv')]),
      maxRounds: 1,
      showHolesAsDiagnostics: true,
    };
    result = await request(lsp.conn, Requests.generate, { uri, runId: 'proven', top: 'ctl' });
  });

  after(async () => {
    await lsp?.close();
    rmSync(work, { recursive: true, force: true });
  });

  test('hover, diagnostics and the lens show the proven default apart from the holes', async () => {
    const defaultLine = lineOf(dutText, 'default:');
    const proven = result.holes.filter((h) => h.unreachable);
    const open = result.holes.filter((h) => !h.unreachable && h.kind !== 'toggle');
    assert.ok(
      proven.some((h) => h.line === defaultLine),
      `the FSM's default is proven unreachable: ${JSON.stringify(result.holes.filter((h) => h.kind !== 'toggle'))}`,
    );
    // The untaken `else` of the mux is reachable: it stays a hole, unless a formal witness covered it.
    const muxLine = lineOf(dutText, 'if (mode)');
    const mux = open.find((h) => h.line === muxLine);
    assert.ok(
      mux || (result.formal?.witnesses ?? 0) > 0,
      `the mux else is a hole or a witness covered it: ${JSON.stringify(result.formal)}`,
    );

    const hover = await lsp.conn.sendRequest<Hover | null>('textDocument/hover', {
      textDocument: { uri },
      position: { line: defaultLine - 1, character: 8 },
    });
    assert.match(valueOf(hover), /\*\*Proven unreachable by (analysis: .+|k-induction \(depth \d+\))\*\*/);
    if (mux?.formal) {
      // The formal engine ran on the hole and gave neither proof nor a witness Verilator confirmed: the hover says why.
      const onMux = await lsp.conn.sendRequest<Hover | null>('textDocument/hover', {
        textDocument: { uri },
        position: { line: muxLine - 1, character: 4 },
      });
      assert.ok(
        valueOf(onMux).includes(`formal engine: no proof and no confirmed witness (${mux.formal})`),
        valueOf(onMux),
      );
      assert.doesNotMatch(valueOf(onMux), /Proven unreachable/);
    }

    // Diagnostics are published after the run; a change re-publishes them with the holes.
    await lsp.conn.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: dutText }],
    });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !published.get(uri)?.some((d) => d.source === 'chorus coverage'))
      await new Promise((r) => setTimeout(r, 100));
    const coverage = (published.get(uri) ?? []).filter((d) => d.source === 'chorus coverage');
    const onDefault = coverage.filter((d) => d.range.start.line === defaultLine - 1);
    assert.ok(
      onDefault.length > 0 &&
        onDefault.every((d) => d.severity === DiagnosticSeverity.Hint && /^Proven unreachable: /.test(d.message)),
      JSON.stringify(onDefault),
    );
    assert.equal(
      coverage.filter((d) => d.severity === DiagnosticSeverity.Information).length,
      open.length,
      'every hole with no proof, and only those, is Information',
    );
    assert.ok(coverage.every((d) => !/likely unreachable/.test(d.message)));

    const lenses = (await lsp.conn.sendRequest('textDocument/codeLens', { textDocument: { uri } })) as CodeLens[];
    const title = lenses.map((l) => l.command?.title ?? '').find((t) => /hole/.test(t)) ?? '';
    assert.match(
      title,
      new RegExp(` · ${proven.filter((h) => h.kind !== 'toggle').length} proven unreachable · ${open.length} holes?$`),
    );
  });
});
