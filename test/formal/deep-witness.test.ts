/**
 * Witnesses from deep states: a point past every bounded search from reset (link_train's accept arm, 300 cycles of
 * training deep) is found from a state the simulation reached, the trace holding that state's inputs and then its
 * own, and Verilator replays it whole.
 * Real Yosys, real Verilator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { provePoints } from '../../src/engine';
import { MAX_START_CYCLES } from '../../src/formal';
import { repoRoot } from '../helpers/cli';
import { measureTestbench, randomTestbench, replayTestbench, samePoint, services, topOf } from './support';

const file = join(repoRoot, 'test', 'fixtures', 'formal', 'link_train.sv');
const lineOf = (text: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text)) + 1;

test(
  'a point 300 cycles past reset: unknown from reset, a witness from a reached state that Verilator replays',
  { timeout: 300_000 },
  async () => {
    const top = 'link_train';
    const mod = topOf([{ file, content: readFileSync(file, 'utf8') }], top);
    // Random stimulus resets 1 cycle in 64 and trains half the time: the link never comes up.
    const points = await measureTestbench([file], top, randomTestbench(mod, 400, 3));
    const accept = lineOf("if ((word_a ^ 32'h5A5A1234)");
    const isAccept = (p: { line: number; comment: string }) => p.line === accept && p.comment === 'if';
    assert.ok(
      points.some((p) => isAccept(p) && p.count === 0),
      'random stimulus leaves the accept arm uncovered',
    );
    const opts = { timeoutSeconds: 120, maxDepth: 8 };
    const fromReset = await provePoints(points, { rtlFiles: [file], top }, opts, services());
    const before = fromReset.verdicts.find((v) => isAccept(v.target));
    assert.ok(before, JSON.stringify(fromReset.verdicts.map((v) => v.target)));
    assert.equal(before.verdict.status, 'unknown', JSON.stringify(before.verdict));

    // A sequence the simulation ran: the reset pulse, then training held for 320 cycles (the link comes up).
    const row = (rst: string) => ({ rst, train: '1', valid: '0', word_a: '0', word_b: '0' });
    const prefix = [row('1'), row('1'), ...Array.from({ length: 320 }, () => row('0'))];
    const reached = [lineOf('if (trained == 9'), lineOf("up <= 1'b1")].map((line) => ({ file, line }));
    const deep = await provePoints(
      points,
      { rtlFiles: [file], top },
      { ...opts, starts: [{ rows: prefix, reached }] },
      services(),
    );
    const after = deep.verdicts.find((v) => isAccept(v.target));
    assert.ok(after);
    assert.equal(after.verdict.status, 'witness', JSON.stringify(after.verdict));
    if (after.verdict.status !== 'witness') return;
    const w = after.verdict.witness;
    assert.ok(w.hitAt >= prefix.length && w.hitAt < prefix.length + 10, `hit at ${w.hitAt}`);
    assert.deepEqual(
      w.rows.slice(0, prefix.length).map((r) => [r.rst, r.train]),
      prefix.map((r) => [r.rst, r.train]),
      'the trace starts with the reached state',
    );
    const replay = await measureTestbench([file], top, replayTestbench(mod, w));
    assert.ok(
      replay.some((p) => samePoint(after.target, p) && p.count > 0),
      'Verilator hits the accept arm replaying the trace',
    );
    // Proofs stay from reset: nothing the start made reachable is claimed unreachable either way.
    for (const v of deep.verdicts.filter((x) => x.verdict.status === 'unreachable'))
      assert.ok(
        !replay.some((p) => samePoint(v.target, p) && p.count > 0),
        `line ${v.target.line} is proven but the replay hits it`,
      );
    assert.ok(MAX_START_CYCLES >= prefix.length);
  },
);
