// Half-typed code must never break the analysis: the language server re-analyses on every keystroke.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { analyzeSources, findSite, literalsOf, unreachableDefaults } from '../../src/hdl';

const root = join(__dirname, '..', '..');
const sources = ['counter', 'fifo', 'alu', 'vending', 'uart_tx'].map((n) =>
  readFileSync(join(root, 'examples', n, `${n}.sv`), 'utf8'),
);

test('property: cut, spliced or truncated examples analyse without throwing, errors point inside the text', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: sources.length - 1 }),
      fc.nat(),
      fc.nat(),
      fc.string({ maxLength: 12 }),
      (k, a, b, insert) => {
        const src = sources[k];
        const from = a % src.length;
        const to = Math.min(src.length, from + (b % 200));
        const text = src.slice(0, from) + insert + src.slice(to);
        const lines = text.split('\n').length;
        const analysis = analyzeSources([{ name: 'edit.sv', content: text }]);
        for (const e of analysis.errors) {
          assert.ok(e.line >= 1 && e.line <= lines, `error line ${e.line} of ${lines}`);
          assert.ok(e.column >= 1);
          assert.match(e.message, /^syntax error/);
        }
        for (const m of analysis.modules) for (const p of m.ports) assert.ok(Number.isInteger(p.width) && p.width >= 0);
        findSite(analysis, 'edit.sv', 1 + (a % lines));
        literalsOf(analysis);
        unreachableDefaults(analysis);
      },
    ),
    { numRuns: 300 },
  );
});

test('an empty file, a lone keyword and unbalanced blocks give empty or partial results, not exceptions', () => {
  for (const text of [
    '',
    'module',
    'module m(',
    'endmodule',
    'always @(posedge clk) begin',
    'package p; typedef enum {',
    'module m #(parameter W = W) (input [W-1:0] a); endmodule',
  ]) {
    const a = analyzeSources([{ name: 'x.sv', content: text }]);
    assert.ok(Array.isArray(a.modules));
  }
  // a parameter defined through itself resolves to nothing instead of looping
  const selfRef = analyzeSources([
    { name: 'x.sv', content: 'module m #(parameter W = W + 1) (input [W-1:0] a); endmodule' },
  ]);
  assert.equal(selfRef.modules[0].ports[0].width, 0);
  assert.equal(selfRef.modules[0].params[0].value, undefined);
});
