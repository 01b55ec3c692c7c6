/**
 * The formal engine on designs of the shapes random search and syntactic analysis miss: holes come from a real
 * Verilator run of plain random stimulus, verdicts from Yosys, and every witness is replayed in Verilator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { provePoints, type TargetVerdict } from '../../src/engine';
import { prove } from '../../src/formal';
import { repoRoot } from '../helpers/cli';
import { measureTestbench, randomTestbench, replayTestbench, samePoint, services, topOf } from './support';

const fixture = (name: string) => join(repoRoot, 'test', 'fixtures', 'formal', name);
const lineOf = (file: string, text: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text)) + 1;

async function holesAndVerdicts(name: string, top: string, cycles: number) {
  const file = fixture(name);
  const mod = topOf([{ file, content: readFileSync(file, 'utf8') }], top);
  const points = await measureTestbench([file], top, randomTestbench(mod, cycles, 7));
  const result = await provePoints(points, { rtlFiles: [file], top }, { timeoutSeconds: 300 }, services());
  return { file, mod, points, result };
}

const verdictsAt = (verdicts: TargetVerdict[], line: number) => verdicts.filter((v) => v.target.line === line);

test('a 5-state FSM: both defaults proven unreachable, nothing else is a hole', { timeout: 240_000 }, async () => {
  const { file, result } = await holesAndVerdicts('fsm5.sv', 'fsm5', 300);
  const defaults = [lineOf(file, "default: state <= 3'd0;"), lineOf(file, "default: err = 1'b1;")];
  assert.deepEqual(
    [...new Set(result.verdicts.map((v) => v.target.line))].sort((a, b) => a - b),
    defaults,
  );
  for (const v of result.verdicts)
    assert.equal(v.verdict.status, 'unreachable', `${v.target.line}: ${JSON.stringify(v.verdict)}`);
});

test(
  "an `=== 1'bx` arm and a `!== 2'bxx` else: decided as two-state Verilator decides them",
  { timeout: 240_000 },
  async () => {
    const { file, result } = await holesAndVerdicts('xcompare.sv', 'xcompare', 50);
    const xArm = verdictsAt(result.verdicts, lineOf(file, "if (d === 1'bx)"));
    const xElse = verdictsAt(result.verdicts, lineOf(file, "if (sel !== 2'bxx)"));
    assert.ok(xArm.length && xElse.length, JSON.stringify(result.verdicts.map((v) => v.target)));
    for (const v of [...xArm, ...xElse]) assert.equal(v.verdict.status, 'unreachable', JSON.stringify(v));
  },
);

test(
  'an else behind an enable tied to 1 through the hierarchy is proven unreachable',
  { timeout: 240_000 },
  async () => {
    const { file, result } = await holesAndVerdicts('tied.sv', 'tied', 200);
    const line = lineOf(file, 'else if (enable) digit');
    const v = verdictsAt(result.verdicts, line);
    assert.equal(v.length, 1, JSON.stringify(result.verdicts));
    assert.equal(v[0].target.instance, 'u_ones');
    assert.equal(v[0].verdict.status, 'unreachable');
  },
);

async function witnessReplays(name: string, top: string, arms: string[]) {
  const { file, mod, result } = await holesAndVerdicts(name, top, 200);
  for (const arm of arms) {
    const line = lineOf(file, arm);
    const vs = verdictsAt(result.verdicts, line);
    assert.ok(vs.length, `random stimulus left no hole at line ${line} (${arm})`);
    for (const v of vs) {
      assert.equal(v.verdict.status, 'witness', `${arm}: ${JSON.stringify(v.verdict)}`);
      if (v.verdict.status !== 'witness') continue;
      const w = v.verdict.witness;
      assert.ok(w.rows.length >= w.resetCycles && w.hitAt < w.rows.length, JSON.stringify(w));
      // The witness starts with the reset pulse a testbench applies.
      if (mod.reset)
        for (const row of w.rows.slice(0, w.resetCycles))
          assert.equal(row[mod.reset.name], mod.reset.activeLow ? '0' : '1');
      const replay = await measureTestbench([file], top, replayTestbench(mod, w));
      const hit = replay.filter((p) => samePoint(v.target, p));
      assert.ok(
        hit.length && hit.some((p) => p.count > 0),
        `the witness for line ${line} (${arm}) does not hit it in Verilator`,
      );
    }
  }
}

test(
  'a fixed-point adder: `if (res == 0)` after a 31-bit subtraction gets a witness that Verilator replays',
  { timeout: 300_000 },
  async () => {
    await witnessReplays('fixadd.sv', 'fixadd', ["if (res == 0) sign = 1'b0;"]);
  },
);

test(
  'a float multiplier: the all-ones and all-zeros exponent cases get witnesses that Verilator replays',
  { timeout: 300_000 },
  async () => {
    await witnessReplays('fmul.sv', 'fmul', [
      "end else if (ex == 8'hFF || ey == 8'hFF) begin",
      "end else if (ex == 8'h00 && ey == 8'h00) begin",
    ]);
  },
);

test(
  'an initializer is the start state: a default reached only from it is not proven unreachable',
  { timeout: 240_000 },
  async () => {
    const file = fixture('initval.sv');
    const content = readFileSync(file, 'utf8');
    const mod = topOf([{ file, content }], 'initval');
    const points = await measureTestbench([file], 'initval', randomTestbench(mod, 200, 3));
    const line = lineOf(file, "default: odd = 1'b1;");
    const at = points.filter((p) => p.line === line && p.kind === 'line');
    assert.ok(at.length && at.every((p) => p.count > 0), 'Verilator runs the default at time zero');
    const target = { file, line, column: at[0].column, kind: 'line' as const, comment: at[0].comment };
    const r = await prove({ sources: [{ file, content }], top: 'initval', targets: [target] }, services());
    assert.equal(r.verdicts[0].verdict.status, 'witness', JSON.stringify(r.verdicts[0].verdict));
    // Without the initializer the register starts at 0 and the default is unreachable.
    const zero = content.replace("logic [2:0] st = 3'd5;", 'logic [2:0] st;');
    const z = await prove({ sources: [{ file, content: zero }], top: 'initval', targets: [target] }, services());
    assert.equal(z.verdicts[0].verdict.status, 'unreachable', JSON.stringify(z.verdicts[0].verdict));
  },
);

test(
  'dozens of arms, most unreachable, a few reachable but missed: groups prove the unreachable ones, none else',
  { timeout: 240_000 },
  async () => {
    // Four random cycles leave reachable arms as holes beside the unreachable ones, so groups hold both kinds.
    const { file, mod, result } = await holesAndVerdicts('many_arms.sv', 'many_arms', 4);
    const armOf = (line: number) => /6'd(\d+):/.exec(readFileSync(file, 'utf8').split('\n')[line - 1])?.[1];
    const unreachableArm = (line: number) => {
      const arm = armOf(line);
      return arm === undefined ? line === lineOf(file, "default: q <= 8'd0;") : Number(arm) >= 16;
    };
    const holes = result.verdicts.filter((v) => v.target.kind === 'line');
    assert.ok(
      holes.some((v) => !unreachableArm(v.target.line)),
      'some reachable arm is a hole after four cycles',
    );
    assert.equal(
      holes.filter((v) => unreachableArm(v.target.line)).length,
      25,
      'arms 16..39 and the default are holes',
    );
    for (const v of holes) {
      assert.equal(
        v.verdict.status,
        unreachableArm(v.target.line) ? 'unreachable' : 'witness',
        `line ${v.target.line}: ${JSON.stringify(v.verdict)}`,
      );
    }
    // Soundness: a long random run hits no point the engine proved.
    const long = await measureTestbench([file], 'many_arms', randomTestbench(mod, 3000, 11));
    for (const v of result.verdicts.filter((x) => x.verdict.status === 'unreachable')) {
      assert.ok(
        !long.some((p) => samePoint(v.target, p) && p.count > 0),
        `line ${v.target.line} is proven unreachable but random stimulus hits it`,
      );
    }
  },
);
