// The DUT-analysis properties, run as a child process by random-input.test.ts: the parser is native code, and an
// input that makes it loop forever must fail that test (the parent's time bound), not stall the whole suite.
// Each input is written to the file named on the command line before it is analysed, so that file holds the
// input that hung. The second argument is a time span in milliseconds: each property stops drawing new inputs
// after half of it, so a busy machine runs fewer inputs instead of failing the parent's time bound (an input the
// parser gives up on costs its whole parse budget, and draws of the same mutation come in bursts). Exit 0: every
// property held; the inputs run are printed.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  analyzeSources,
  echoInputs,
  findSite,
  handshakePairs,
  inputDictionary,
  literalsOf,
  unreachableDefaults,
} from '../../src/hdl';
import { applyEdit, example, textEdit } from './support';

const log = process.argv[2];
const spanMs = Number(process.argv[3]);
assert.ok(log && spanMs > 0, 'usage: hdl-fuzz.ts <log file> <time span ms>');

/** Runs a property for at most `numRuns` inputs or half the span, whichever ends first; says how many ran. */
function check<Ts>(name: string, property: fc.IProperty<Ts>, numRuns: number): void {
  const details = fc.check(property, { numRuns, interruptAfterTimeLimit: spanMs / 2, markInterruptAsFailure: false });
  if (details.failed) throw new Error(fc.defaultReportMessage(details));
  process.stdout.write(
    `${name}: ${details.numRuns} inputs${details.interrupted ? ' (stopped at the time span)' : ''}\n`,
  );
}

const exampleNames = ['counter', 'fifo', 'alu', 'vending', 'uart_tx'];
const exampleTexts = exampleNames.map((n) => readFileSync(example(n), 'utf8'));

/** Verilog-ish tokens: keywords, operators, literals and directives that stress the grammar and the resolvers. */
const hdlTokens = [
  'module',
  'endmodule',
  'input',
  'output',
  'inout',
  'logic',
  'wire',
  'reg',
  '[',
  ']',
  '(',
  ')',
  '{',
  '}',
  ';',
  ',',
  ':',
  'parameter',
  'localparam',
  '#(',
  '=',
  '<=',
  '==',
  '?',
  'always_ff',
  'always_comb',
  '@(posedge clk)',
  'begin',
  'end',
  'case',
  'endcase',
  'default',
  'if',
  'else',
  "8'hFF",
  "'1",
  "4'b1x0?",
  '32',
  '-1',
  'W-1:0',
  '$clog2(W)',
  'typedef enum',
  'package',
  'endpackage',
  'import p::*;',
  '`define W 8',
  '`W',
  '`ifdef X',
  '`endif',
  '`include "x.svh"',
  'generate',
  'for (genvar i = 0; i < W; i++)',
  'function',
  'endfunction',
  'struct packed',
  'x',
  'clk',
  'rst_n',
  '\n',
  ' ',
  '//',
  '/*',
  '*/',
  '"',
];

function checkAnalysis(files: { name: string; content: string }[], top?: string): void {
  writeFileSync(log, JSON.stringify({ files, top }));
  const analysis = analyzeSources(files, top === undefined ? {} : { top });
  const byName = new Map(files.map((f) => [f.name, f.content.split('\n')]));
  for (const e of analysis.errors) {
    const lines = byName.get(e.file);
    assert.ok(lines, `error in an unknown file ${e.file}`);
    assert.ok(
      Number.isInteger(e.line) && e.line >= 1 && e.line <= lines.length,
      `${e.file}:${e.line} of ${lines.length} lines`,
    );
    assert.ok(
      Number.isInteger(e.column) && e.column >= 1 && e.column <= lines[e.line - 1].length + 1,
      `${e.file}:${e.line}:${e.column}`,
    );
    // A syntax error, or the parser's time bound (wall time: on a loaded machine a large mutated file reaches it).
    assert.match(e.message, /^(syntax error|The SystemVerilog parser gave up after [\d.]+ s on this text)/);
  }
  for (const m of analysis.modules) {
    assert.ok(byName.has(m.file), m.file);
    assert.ok(m.line >= 1 && m.line <= byName.get(m.file)!.length, `${m.name} at line ${m.line}`);
    for (const p of m.ports)
      assert.ok(Number.isInteger(p.width) && p.width >= 0, `${m.name}.${p.name} width ${p.width}`);
  }
  assert.ok(analysis.top === null || analysis.modules.some((m) => m.name === analysis.top));
  for (const f of files) findSite(analysis, f.name, 1);
  literalsOf(analysis);
  unreachableDefaults(analysis);
  const sources = new Map(files.map((f) => [f.name, f.content]));
  for (const m of analysis.modules) {
    const inputs = new Map(m.ports.filter((p) => p.direction === 'input').map((p) => [p.name, p.width]));
    for (const f of inputDictionary(analysis, m.name, sources)) {
      const width = inputs.get(f.input);
      assert.ok(width !== undefined, `${m.name}: field on ${f.input}, not an input`);
      assert.ok(f.lsb >= 0 && f.width >= 1 && f.lsb + f.width <= width, `${m.name}.${f.input}[${f.lsb}+:${f.width}]`);
      for (const v of f.values) assert.ok(v >= 0n && v < 1n << BigInt(f.width), `${m.name}.${f.input} value ${v}`);
    }
    handshakePairs(analysis, m.name);
    echoInputs(analysis, m.name);
  }
}

/** Random text and token soup never throw; errors point inside the text. */
function randomText(): void {
  check(
    'random text',
    fc.property(
      fc.oneof(
        fc.string({ maxLength: 300, unit: 'binary' }),
        fc.array(fc.constantFrom(...hdlTokens), { maxLength: 60 }).map((t) => t.join(' ')),
      ),
      (text) => checkAnalysis([{ name: 'soup.sv', content: text }]),
    ),
    200,
  );
}

/** Mutated examples, alone or as a two-file design, never throw; errors point inside their file. */
function mutatedExamples(): void {
  check(
    'mutated examples',
    fc.property(
      fc.integer({ min: 0, max: exampleTexts.length - 1 }),
      fc.integer({ min: 0, max: exampleTexts.length - 1 }),
      fc.array(textEdit, { minLength: 1, maxLength: 4 }),
      fc.array(fc.tuple(fc.nat(), fc.constantFrom(...hdlTokens)), { maxLength: 3 }),
      fc.option(fc.constantFrom(...exampleNames, 'nope'), { nil: undefined }),
      (k, k2, edits, tokens, top) => {
        let text = edits.reduce(applyEdit, exampleTexts[k]);
        for (const [at, tok] of tokens) {
          const i = text.length ? at % text.length : 0;
          text = `${text.slice(0, i)} ${tok} ${text.slice(i)}`;
        }
        checkAnalysis([{ name: `${exampleNames[k]}.sv`, content: text }], top);
        if (k2 !== k)
          checkAnalysis(
            [
              { name: `${exampleNames[k]}.sv`, content: text },
              { name: `${exampleNames[k2]}.sv`, content: exampleTexts[k2] },
            ],
            top,
          );
      },
    ),
    200,
  );
}

randomText();
mutatedExamples();
