// Top parameter values (-G, chorus.topParameters, bench items): one validator, strict, used by every adapter and
// by the engine before a harness or testbench is made from them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseItems } from '../../src/cli/bench/schema';
import { parameterArg } from '../../src/cli/design';
import { planRun } from '../../src/engine';
import { ChorusError, parameterValueError, parameterValueProblem, parseDesignSettings } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';

const DUT = join(repoRoot, 'test', 'fixtures', 'params', 'param_dut.sv');
const INJECTION = '8)) uut(); initial $system("id"); //';

test('constants are accepted: numbers, based and sized literals, reals, strings, operators, parentheses, concatenations', () => {
  const good = [
    '8',
    '0',
    "32'hFF",
    "4'b10x1",
    "8 'hff",
    "'hA",
    "12'o17",
    "16'sd5",
    "'1",
    "'z",
    '1.5',
    '1e3',
    '2.5E-3',
    '"text"',
    '"a \\"quoted\\" b"',
    '-3',
    '~0',
    '(8+1)*2',
    '2**4',
    '1 << 3',
    '8 > 4 ? 16 : 32',
    "{2{4'hA}}",
    "{4'h1, 4'h2}",
    '  8  ',
  ];
  for (const v of good) assert.equal(parameterValueProblem(v), undefined, v);
});

test('anything else is refused, with the reason', () => {
  const bad: [string, RegExp][] = [
    ['abc', /`abc` is a name/],
    ['W * 2', /`W` is a name/],
    ['pkg::N', /`pkg` is a name/],
    [INJECTION, /`;` ends a statement/],
    ['8 // x', /comments/],
    ['8 /* x */', /comments/],
    ['$clog2(8)', /`\$`/],
    ['`WIDTH', /backtick/],
    ['"a;b"', /`;`/],
    ['8))', /unmatched `\)`/],
    ['((8)', /closing `\)` expected/],
    ['{8', /closing `\}` expected/],
    ['8 9', /cannot follow/],
    ['8, 9', /`,` cannot follow/],
    ['8 +', /constant expected at the end/],
    ['[1]', /not part of a constant/],
    ["'{1, 2}", /not part of a constant/],
    ["8'hFG", /not part of a constant/],
    ['10ns', /not part of a constant/],
    ['', /empty/],
    ['1\n)', /line break/],
    ['1'.repeat(5000), /longer than/],
  ];
  for (const [v, why] of bad) assert.match(parameterValueProblem(v) ?? 'accepted', why, JSON.stringify(v.slice(0, 40)));
});

test('the message names the parameter as its adapter does and says what to write', () => {
  const m = parameterValueError('-G W', 'abc') ?? '';
  assert.match(m, /^-G W: "abc" is not a constant expression: `abc` is a name/);
  assert.match(m, /Write a constant: a number \(8, 32'hFF/);
});

test('CLI -G (every command, bench too): a bad value is an invalid argument', () => {
  assert.deepEqual(parameterArg("W=8'hF"), ["W=8'hF"]);
  assert.throws(() => parameterArg('W=abc'), /-G W: "abc" is not a constant expression/);
  assert.throws(() => parameterArg(`W=${INJECTION}`), /-G W: .*`;` ends a statement/);
});

test('chorus.topParameters: a bad value is a setting error naming the setting and the parameter', () => {
  const cfg = (topParameters: unknown) => ({ get: (k: string) => (k === 'topParameters' ? topParameters : undefined) });
  assert.deepEqual(parseDesignSettings(cfg({ W: 8, EXTRA: "1'b1" })).topParameters, { W: '8', EXTRA: "1'b1" });
  assert.throws(
    () => parseDesignSettings(cfg({ W: INJECTION })),
    /^ChorusError: chorus\.topParameters: W: .*`;` ends a statement.*: fix it in the workspace settings/,
  );
});

test('bench: a real-IP item with a bad parameter value is a bad line, not a run', () => {
  const [line] = parseItems(JSON.stringify({ id: 'ip', top: 'param_dut', filelist: 'x.f', parameters: { W: 'abc' } }));
  assert.equal(line.ok, false);
  assert.match(line.ok ? '' : line.error, /^parameters\.W: "abc" is not a constant expression/);
  const [fine] = parseItems(
    JSON.stringify({ id: 'ip', top: 'param_dut', filelist: 'x.f', parameters: { W: 8, EXTRA: true } }),
  );
  assert.equal(fine.ok, true);
});

test('the engine refuses one too, before planning a run (any adapter, the engine API)', async () => {
  await assert.rejects(
    planRun(
      { files: [DUT], engine: 'random', targets: {}, parameters: { W: INJECTION } },
      { configured: () => undefined, open: () => Promise.reject(new Error('no model')) },
    ),
    (err: unknown) =>
      err instanceof ChorusError && err.kind === 'bad_input' && /^-G W: .*`;` ends a statement/.test(err.message),
  );
});
