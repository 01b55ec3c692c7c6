/**
 * Two DUT files with one base name (rtl/a/fifo.sv, rtl/b/fifo.sv) through the built language server over stdio:
 * holes, per-file line coverage, hovers and hole diagnostics each land on the file they belong to.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic, Hover } from 'vscode-languageserver';
import { Requests, type GenerateResult } from '../../src/protocol';
import { didOpen, request, startServer, type ServerUnderTest } from '../helpers/lsp';
import { fileReply, replayModel } from '../helpers/replay';

// The top in a/: its `else` arm is never taken (mode stays 1).
const topText = `module top_fifo (
  input  logic clk,
  input  logic mode,
  input  logic [3:0] din,
  output logic [3:0] q,
  output logic [3:0] r_b
);
  always_ff @(posedge clk) begin
    if (mode) q <= din;
    else q <= 4'd0;
  end
  inner_fifo u_inner (.clk(clk), .sel(din[0]), .r_b(r_b));
endmodule
`;

// The instantiated module in b/, same base name, different module; its branch sits on another line than a's.
const innerText = `// Inner block of the design.
// Its branch sits two lines later than the top's,
// so a hole read against the wrong file would show
// the wrong line.
module inner_fifo (
  input  logic clk,
  input  logic sel,
  output logic [3:0] r_b
);
  always_ff @(posedge clk) begin
    if (sel)
      r_b <= 4'd1;
    else
      r_b <= 4'd2;
  end
endmodule
`;

// Drives mode = 1 and din[0] = 1 throughout: one else arm never taken in each file.
const testbench = `module tb_top_fifo;
  logic clk = 0;
  logic mode = 1;
  logic [3:0] din = 4'd1;
  wire [3:0] q, r_b;
  top_fifo uut (.clk(clk), .mode(mode), .din(din), .q(q), .r_b(r_b));
  always #5 clk = ~clk;
  initial begin
    repeat (4) begin
      @(negedge clk);
      din = din ^ 4'b0110;
    end
    $finish;
  end
endmodule`;

let work: string;
let fileA: string;
let fileB: string;
let uriA: string;
let uriB: string;
let lsp: ServerUnderTest;
let settings: Record<string, unknown> = {};
const published = new Map<string, Diagnostic[]>();
let result: GenerateResult;

const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'chorus-same-base-'));
  mkdirSync(join(work, 'rtl', 'a'), { recursive: true });
  mkdirSync(join(work, 'rtl', 'b'), { recursive: true });
  fileA = join(work, 'rtl', 'a', 'fifo.sv');
  fileB = join(work, 'rtl', 'b', 'fifo.sv');
  writeFileSync(fileA, topText);
  writeFileSync(fileB, innerText);
  uriA = pathToFileURL(fileA).toString();
  uriB = pathToFileURL(fileB).toString();
  lsp = await startServer(() => settings);
  lsp.conn.onNotification('textDocument/publishDiagnostics', (p: { uri: string; diagnostics: Diagnostic[] }) =>
    published.set(p.uri, p.diagnostics),
  );
  await didOpen(lsp.conn, uriA, topText);
  await didOpen(lsp.conn, uriB, innerText);
  settings = {
    engine: 'llm',
    model: replayModel([fileReply(testbench, 'tb_top_fifo.sv')]),
    maxRounds: 1,
    showHolesAsDiagnostics: true,
  };
  result = await request(lsp.conn, Requests.generate, {
    uri: uriA,
    runId: 'same-base',
    files: [uriA, uriB],
    top: 'top_fifo',
  });
});

after(async () => {
  await lsp?.close();
  rmSync(work, { recursive: true, force: true });
});

test('holes carry the absolute path of the file they are in', () => {
  const ifA = lineOf(topText, 'if (mode)');
  const ifB = lineOf(innerText, 'if (sel)');
  assert.notEqual(ifA, ifB, 'the two branches sit on different lines');
  // Each never-taken else arm is a branch hole on its own file's `if` line.
  const branches = result.holes.filter((h) => h.kind === 'branch');
  assert.deepEqual(
    branches.map((h) => [h.file, h.line]).sort(),
    [
      [fileA, ifA],
      [fileB, ifB],
    ].sort(),
    JSON.stringify(branches),
  );
  for (const h of result.holes) {
    assert.ok(h.file === fileA || h.file === fileB, `hole in ${h.file}`);
    const text = (h.file === fileA ? topText : innerText).split('\n')[h.line - 1]?.trim();
    if (h.source !== undefined) assert.equal(h.source, text, `${h.file}:${h.line} shows its own file's line`);
  }
  assert.ok(
    result.holes.some((h) => h.kind === 'toggle' && h.file === fileB && /r_b\[/.test(h.detail)),
    'r_b toggles are holes of b',
  );
});

test('per-file line coverage: each document gets only its own lines', async () => {
  const covA = await request(lsp.conn, Requests.coverage, { uri: uriA });
  const covB = await request(lsp.conn, Requests.coverage, { uri: uriB });
  assert.ok(covA.lines.length > 0 && covB.lines.length > 0);
  assert.ok(covA.lines.every((l) => l.file === fileA));
  assert.ok(covB.lines.every((l) => l.file === fileB));
  // b's `if (sel)` line has a branch record; a has no statement on that line number.
  const ifB = lineOf(innerText, 'if (sel)');
  assert.ok(
    covB.lines.some((l) => l.line === ifB && l.branches.length > 0),
    JSON.stringify(covB.lines),
  );
  assert.ok(!covA.lines.some((l) => l.line === ifB && l.branches.length > 0), 'a has no branch on that line');
});

test('hovers read the hovered file: a toggle hole of b shows on b only', async () => {
  const line = lineOf(innerText, 'output logic [3:0] r_b') - 1;
  const character = innerText.split('\n')[line].indexOf('r_b') + 1;
  const onB = await lsp.conn.sendRequest<Hover | null>('textDocument/hover', {
    textDocument: { uri: uriB },
    position: { line, character },
  });
  assert.ok(onB, 'hover on r_b in b');
  assert.match((onB.contents as { value: string }).value, /\*\*r_b\*\*: \d+ toggle bits? never seen/);

  const lineA = lineOf(topText, 'output logic [3:0] r_b') - 1;
  const charA = topText.split('\n')[lineA].indexOf('r_b') + 1;
  const onA = await lsp.conn.sendRequest<Hover | null>('textDocument/hover', {
    textDocument: { uri: uriA },
    position: { line: lineA, character: charA },
  });
  // a's r_b is a port wired to b's: its own toggle points are a's, never b's holes.
  const bitsOfB = result.holes.filter((h) => h.kind === 'toggle' && h.file === fileB && /^r_b\[/.test(h.detail)).length;
  const bitsOfA = result.holes.filter((h) => h.kind === 'toggle' && h.file === fileA && /^r_b\[/.test(h.detail)).length;
  const shown = /\*\*r_b\*\*: (\d+) toggle/.exec((onA?.contents as { value: string } | undefined)?.value ?? '')?.[1];
  assert.equal(Number(shown ?? 0), bitsOfA, `a's hover counts a's own bits (${bitsOfA}), not b's (${bitsOfB})`);

  // The statement line: b's `r_b <= 4'd1;` was hit; the same line number in a is another statement.
  const hitB = lineOf(innerText, "r_b <= 4'd1;") - 1;
  const hover = await lsp.conn.sendRequest<Hover | null>('textDocument/hover', {
    textDocument: { uri: uriB },
    position: { line: hitB, character: 2 },
  });
  assert.match((hover?.contents as { value: string } | undefined)?.value ?? '', /line hit \*\*\d+\*\* time/);
});

test('hole diagnostics land on their own document', async () => {
  // Diagnostics are published after the run; a change re-publishes them with the holes.
  await lsp.conn.sendNotification('textDocument/didChange', {
    textDocument: { uri: uriA, version: 2 },
    contentChanges: [{ text: topText }],
  });
  await lsp.conn.sendNotification('textDocument/didChange', {
    textDocument: { uri: uriB, version: 2 },
    contentChanges: [{ text: innerText }],
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && (!published.get(uriA)?.length || !published.get(uriB)?.length))
    await new Promise((r) => setTimeout(r, 100));
  const holeLines = (file: string) =>
    result.holes
      .filter((h) => h.file === file && h.kind !== 'toggle')
      .map((h) => h.line - 1)
      .sort();
  const diagLines = (uri: string) =>
    (published.get(uri) ?? [])
      .filter((d) => d.source === 'chorus coverage')
      .map((d) => d.range.start.line)
      .sort();
  assert.deepEqual(diagLines(uriA), holeLines(fileA));
  assert.deepEqual(diagLines(uriB), holeLines(fileB));
  assert.ok(diagLines(uriA).length > 0 && diagLines(uriB).length > 0);
});
