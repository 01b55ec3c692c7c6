// A 10,000-line file is analysed correctly (its speed is measured by bench/hdl-speed.ts, never asserted),
// and analyses are cached per content.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeSources, moduleByName } from '../../src/hdl';
import { bigDesign } from '../../bench/hdl-big-design';

const root = join(__dirname, '..', '..');

test('10,000 lines of the example designs: every copy has the original ports, clock, reset, FSMs and sites', () => {
  const { text, copies, names } = bigDesign(10_000);
  assert.ok(text.split('\n').length >= 10_000);
  const a = analyzeSources([{ name: 'big.sv', content: text }]);
  assert.deepEqual(a.errors, []);
  assert.equal(a.modules.length, copies);
  assert.deepEqual(a.topCandidates.length, copies, 'no copy instantiates another');
  for (const example of names) {
    const original = analyzeSources([
      { name: example, content: readFileSync(join(root, 'examples', example, `${example}.sv`), 'utf8') },
    ]).modules[0];
    for (const suffix of [0, Math.floor(copies / names.length) - 1]) {
      const m = moduleByName(a, `${example}_${suffix}`);
      assert.ok(m, `${example}_${suffix}`);
      assert.deepEqual(
        m.ports.map((p) => [p.name, p.direction, p.width]),
        original.ports.map((p) => [p.name, p.direction, p.width]),
      );
      assert.equal(m.clock, original.clock);
      assert.deepEqual(m.reset, original.reset);
      assert.deepEqual(
        m.fsms.map((f) => f.states),
        original.fsms.map((f) => f.states),
      );
      assert.equal(m.sites.length, original.sites.length);
      // the copy's sites sit at the original's lines, shifted by where the copy starts
      const shift = m.line - original.line;
      assert.deepEqual(
        m.sites.map((s) => [s.label, s.range.startLine - shift]),
        original.sites.map((s) => [s.label, s.range.startLine]),
      );
    }
  }
});

test('analyses are cached per content: the same texts give the same object, an edit gives a new one', () => {
  const content = readFileSync(join(root, 'examples', 'counter', 'counter.sv'), 'utf8');
  const first = analyzeSources([{ name: 'counter.sv', content }]);
  assert.equal(analyzeSources([{ name: 'counter.sv', content }]), first);
  const edited = analyzeSources([{ name: 'counter.sv', content: content.replace('WIDTH = 8', 'WIDTH = 12') }]);
  assert.notEqual(edited, first);
  assert.equal(edited.modules[0].ports.find((p) => p.name === 'count')?.width, 12);
  assert.equal(first.modules[0].ports.find((p) => p.name === 'count')?.width, 8, 'the cached analysis is unchanged');
  // the requested top is part of the key
  assert.equal(analyzeSources([{ name: 'counter.sv', content }], { top: 'counter' }).top, 'counter');
  assert.equal(analyzeSources([{ name: 'counter.sv', content }], { top: 'other' }).top, null);
});
