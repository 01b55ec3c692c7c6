/**
 * `generate --urg-el` and `--imc-tcl`: a person's toggle waivers (two bits of a vector, a whole vector, a scalar)
 * exported in the forms of OpenTitan's public examples, checked by grammars written from them (no URG or IMC here):
 * URG gets every excluded bit, IMC only whole signals; reasons and categories survive Tcl's quoting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';
import { parseImcExcludes, parseUrgToggles } from '../helpers/signoffGrammar';

const grammar = join(repoRoot, 'test', 'fixtures', 'signoff', 'grammar');
const design = join(repoRoot, 'test', 'fixtures', 'signoff', 'tieoff.sv');
const lineOf = (text: string) =>
  readFileSync(design, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text)) + 1;

test('the grammar checkers read the public examples’ forms and refuse others', () => {
  const el = parseUrgToggles(readFileSync(join(grammar, 'example.el'), 'utf8'));
  assert.deepEqual(
    el.map((t) => [t.instance, t.signal, t.bit]),
    [
      ['tb.dut', 'cfg_i.mode', undefined],
      ['tb.dut', 'cfg_i.spare', undefined],
      ['tb.dut', 'st_o.code', 1],
      ['tb.dut.u_sub', 'st_o.code', 2],
    ],
  );
  assert.equal(parseImcExcludes(readFileSync(join(grammar, 'example.tcl'), 'utf8')).length, 3);
  assert.throws(() => parseUrgToggles('Toggle q "logic q"\n'), /before any INSTANCE/);
  assert.throws(() => parseUrgToggles('INSTANCE: tb.dut\nToggle q [4] "logic q[3:0]"\n'), /out of range/);
  assert.throws(() => parseImcExcludes(`exclude -inst tb.dut -toggle 'q' -comment "[UNR] x"\n`), /not an IMC/);
});

const entry = (line: number, point: string, category: string, reason: string) => `
[[waiver]]
file = ${JSON.stringify(design)}
line = ${line}
kind = "toggle"
point = "${point}"
instance = ""
category = "${category}"
reason = ${JSON.stringify(reason)}
who = "ana"
`;

test('toggle waivers export to URG and IMC in their documented forms', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-signoff-'));
  const waivers = join(dir, 'tieoff.waivers.toml');
  const tied = 'tied to 0 by design';
  const spare = 'spare pin, "unused" [rev A] $0';
  writeFileSync(
    waivers,
    '# CHORUS waivers (docs/waivers.md)\nversion = 1\n' +
      entry(lineOf('logic [3:0] cfg'), 'cfg[2]', 'UNSUPPORTED', tied) +
      entry(lineOf('logic [3:0] cfg'), 'cfg[3]', 'UNSUPPORTED', tied) +
      entry(lineOf('logic [1:0] hi'), 'hi[0]', 'UNSUPPORTED', tied) +
      entry(lineOf('logic [1:0] hi'), 'hi[1]', 'UNSUPPORTED', tied) +
      entry(lineOf('output logic       spare_o'), 'spare_o', 'LOW_RISK', spare),
  );
  const el = join(dir, 'excl.el');
  const tcl = join(dir, 'excl.tcl');
  const r = await runCli(
    [
      'generate',
      design,
      '--engine',
      'random',
      '--seed',
      '1',
      '--out',
      join(dir, 'tb.sv'),
      '--waivers',
      waivers,
      '--urg-el',
      el,
      '--imc-tcl',
      tcl,
      '--dut-path',
      'top_tb.u_dut',
    ],
    { cwd: dir },
  );
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /5 applied/);

  const urg = readFileSync(el, 'utf8');
  assert.deepEqual(
    parseUrgToggles(urg).map((t) => [t.instance, t.signal, t.bit, t.decl]),
    [
      ['top_tb.u_dut', 'cfg', 2, 'logic cfg[3:0]'],
      ['top_tb.u_dut', 'cfg', 3, 'logic cfg[3:0]'],
      ['top_tb.u_dut', 'hi', undefined, 'logic hi[1:0]'],
      ['top_tb.u_dut', 'spare_o', undefined, 'logic spare_o'],
    ],
  );
  assert.match(urg, /^\/\/ \[LOW_RISK\] spare pin, "unused" \[rev A\] \$0 \(ana\)\nToggle spare_o /m);

  const imc = parseImcExcludes(readFileSync(tcl, 'utf8'));
  assert.deepEqual(
    imc.map((x) => [x.instance, x.pattern, x.category, x.comment]),
    [
      ['top_tb.u_dut', 'hi', 'UNSUPPORTED', `[UNSUPPORTED] ${tied} (ana)`],
      ['top_tb.u_dut', 'spare_o', 'LOW_RISK', `[LOW_RISK] ${spare} (ana)`],
    ],
  );
  assert.match(readFileSync(tcl, 'utf8'), /^# not exported: top_tb\.u_dut\.cfg bits 2, 3 only/m);
});
