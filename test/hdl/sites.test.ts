// Source sites that explain coverage holes: always blocks, if/else arms and case items, with their ranges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeSources, findSite } from '../../src/hdl';

const root = join(__dirname, '..', '..');
const load = (file: string) =>
  analyzeSources([{ name: join(root, file), content: readFileSync(join(root, file), 'utf8') }]);

test('fifo: the innermost site at a line names the arm or item, with the case subject', () => {
  const file = join(root, 'examples/fifo/fifo.sv');
  const a = load('examples/fifo/fifo.sv');
  const at = (line: number) => findSite(a, file, line);
  assert.equal(at(28)?.label, 'always_ff @(posedge clk or negedge rst_n)');
  assert.equal(at(28)?.kind, 'always');
  assert.equal(at(30)?.label, 'if (!rst_n)');
  assert.equal(at(37)?.label, 'else of if (!rst_n)');
  assert.equal(at(37)?.kind, 'else');
  assert.equal(at(39)?.label, 'if (!full)', 'an if on the same line as its item is the inner site');
  const item = at(48);
  assert.equal(item?.label, "case item 2'b11 of case ({push, pop})");
  assert.equal(item?.kind, 'case_item');
  assert.equal(item?.subject, '{push, pop}');
  assert.deepEqual([item?.range.startLine, item?.range.endLine, item?.range.startColumn], [48, 58, 17]);
  assert.equal(at(50)?.label, 'if (empty)');
  assert.equal(at(55)?.label, 'else of if (empty)');
  assert.equal(at(59)?.kind, 'case_default');
  assert.equal(at(59)?.label, 'default item of case ({push, pop})');
  assert.equal(at(5), undefined, 'a header line has no site');
  assert.equal(at(500), undefined);
  // a relative or differently rooted path to the same file still matches
  assert.equal(findSite(a, 'examples/fifo/fifo.sv', 48)?.kind, 'case_item');
  assert.equal(findSite(a, 'other/file.sv', 48), undefined);
});

test('counter: else-if arms, one-line ifs inside case items, the site of every Verilator branch line', () => {
  const file = join(root, 'examples/counter/counter.sv');
  const a = load('examples/counter/counter.sv');
  const sites = a.modules[0].sites.map((s) => `${s.kind} ${s.range.startLine}-${s.range.endLine} ${s.label}`);
  assert.deepEqual(sites, [
    'always 16-37 always_ff @(posedge clk)',
    'if 17-21 if (!rst_n)',
    'if 21-36 else if (en)',
    "case_item 25-28 case item 2'b01 of case (mode)",
    'if 26-26 if (count == MAX)',
    "case_item 29-32 case item 2'b10 of case (mode)",
    "if 30-30 if (count == '0)",
    "case_item 33-33 case item 2'b11 of case (mode)",
    'case_default 34-34 default item of case (mode)',
  ]);
  assert.equal(findSite(a, file, 30)?.label, "if (count == '0)");
  assert.equal(findSite(a, file, 24)?.label, 'else if (en)');
});

test('vending: a multi-label case item and the sites inside an always_comb', () => {
  const a = load('examples/vending/vending.sv');
  const labels = a.modules[0].sites.filter((s) => s.kind === 'case_item').map((s) => s.label);
  assert.ok(labels.includes('case item IDLE, C5, C10, C15, C20, C25 of case (state)'), labels.join('\n'));
  assert.ok(a.modules[0].sites.some((s) => s.kind === 'always' && s.label === 'always_comb'));
});
