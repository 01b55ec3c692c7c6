/**
 * FSM defaults that analysis proves unreachable, checked against simulation: the model-free engine searches
 * the fixture until only claimed points are left. Every default marked REACHABLE in the fixture gets covered
 * (so each was a real chance to be wrong), and no point on a claimed line is ever hit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { generateToEnd } from '../../src/engine';
import { analyzeSources, unreachableDefaults } from '../../src/hdl';
import { measureCoverage } from '../../src/sim';
import { silentLogger } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';

const file = join(repoRoot, 'test', 'fixtures', 'hdl', 'fsm_defaults.sv');

function marked(text: string, mark: string): number[] {
  return text.split('\n').flatMap((l, i) => (l.includes(mark) ? [i + 1] : []));
}

test('fsm_defaults: claimed defaults are never hit, every other default is', async () => {
  const text = readFileSync(file, 'utf8');
  const unreachable = marked(text, '// UNREACHABLE');
  const reachable = marked(text, '// REACHABLE');
  assert.equal(unreachable.length, 3);
  assert.equal(reachable.length, 5);

  const result = await generateToEnd(
    { rtlFiles: [file], engine: 'random', targets: { line: 100, branch: 100 }, seed: 3, budgetSeconds: 60 },
    { logger: silentLogger, signal: new AbortController().signal },
    () => {},
  );
  const structural = result.holes.filter((h) => h.kind === 'line' || h.kind === 'branch');
  for (const h of structural) {
    assert.ok(unreachable.includes(h.line), `hole at line ${h.line} (${h.detail}) is not one analysis claims`);
    assert.match(h.unreachable ?? '', /only ever holds/, `line ${h.line} is reported as unreachable`);
  }
  assert.deepEqual(
    [...new Set(structural.map((h) => h.line))].sort((a, b) => a - b),
    unreachable,
  );

  // The emitted testbench on its own: points on claimed lines stay at 0, every REACHABLE default is hit.
  const dir = mkdtempSync(join(tmpdir(), 'chorus-unreachable-'));
  const tb = join(dir, 'tb_fsm_defaults.sv');
  writeFileSync(tb, result.testbench);
  const own = await measureCoverage(
    { dutFiles: [file], testbench: tb, dutTop: 'fsm_defaults' },
    { logger: silentLogger, workspaceRoot: dir },
  );
  assert.equal(own.status, 'ok');
  const hits = (line: number) =>
    own.points.filter((p) => basename(p.file) === 'fsm_defaults.sv' && p.line === line && p.kind !== 'toggle');
  // Soundness, whatever the marks say: nothing analysis claims is ever hit.
  const claimed = unreachableDefaults(analyzeSources([{ name: file, content: text }])).map((u) => u.line);
  assert.deepEqual(claimed, unreachable);
  for (const line of claimed) {
    assert.ok(hits(line).length > 0, `line ${line} has coverage points`);
    assert.ok(
      hits(line).every((p) => p.count === 0),
      `claimed line ${line} was hit`,
    );
  }
  for (const line of reachable)
    assert.ok(
      hits(line).some((p) => p.count > 0),
      `REACHABLE default at line ${line} was not hit`,
    );
});
