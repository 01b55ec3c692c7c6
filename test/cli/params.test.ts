// -G name=value through the built CLI: a parameter that changes a port's width and one that makes dead code live.
// The emitted testbench carries the overrides and, re-simulated alone with `chorus coverage`, reaches the figures
// generate reported.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureFreshCli, repoRoot, runCli } from '../helpers/cli';

const DUT = join(repoRoot, 'test', 'fixtures', 'params', 'param_dut.sv');
const work = mkdtempSync(join(tmpdir(), 'chorus-params-'));
const env = { CHORUS_TEST: '1' };

before(ensureFreshCli);
after(() => rmSync(work, { recursive: true, force: true }));

interface Figures {
  line: { covered: number; total: number };
  branch: { covered: number; total: number };
  toggle: { covered: number; total: number };
}

async function generate(out: string, params: string[]): Promise<Figures> {
  const r = await runCli(
    ['generate', DUT, ...params, '--engine', 'random', '--budget-seconds', '5', '--seed', '1', '--out', out, '--json'],
    { cwd: work, env },
  );
  // Exit 1: targets not met (a branch stays dead whatever the parameters); 0 when met; anything else failed.
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  return (JSON.parse(r.stdout) as { coverage: Figures }).coverage;
}

test('inspect -G shows the overridden width; an unknown parameter exits 2 naming the ones there are', async () => {
  const r = await runCli(['inspect', DUT, '-G', 'W=8'], { cwd: work, env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /input\s+a\s+8 bits/);
  const bad = await runCli(['inspect', DUT, '-G', 'DEPTH=3'], { cwd: work, env });
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /-G DEPTH: param_dut has no parameter 'DEPTH' \(its parameters: W, EXTRA\)/);
  const malformed = await runCli(['inspect', DUT, '-G', 'W'], { cwd: work, env });
  assert.equal(malformed.code, 2, malformed.stderr);
  assert.match(malformed.stderr, /-G takes NAME=VALUE/);
});

test('-G values are Verilog constants: a name or a value that would break out of the harness exits 2 saying what to write', async () => {
  for (const value of ['abc', '8)) uut(); initial $system("id"); //']) {
    for (const command of ['inspect', 'generate']) {
      const r = await runCli(
        [command, DUT, '-G', `W=${value}`, '--engine', 'random'].slice(0, command === 'inspect' ? 4 : 6),
        { cwd: work, env },
      );
      assert.equal(r.code, 2, `${command} -G W=${value}: ${r.stderr}`);
      assert.match(r.stderr, /-G W: ".*" is not a constant expression: .*Write a constant/);
    }
  }
});

test('generate -G: the DUT is built and instantiated with the overrides, and the testbench alone reaches the reported coverage', async () => {
  const tb = join(work, 'tb_over.sv');
  const over = await generate(tb, ['-G', 'W=8', '-G', 'EXTRA=1']);
  const text = readFileSync(tb, 'utf8');
  assert.match(text, /param_dut #\(\.W\(8\), \.EXTRA\(1\)\) uut \(/);
  assert.match(text, /logic \[7:0\] a;/);

  const m = await runCli(['coverage', DUT, '--tb', tb, '--top', 'param_dut', '--json'], { cwd: work, env });
  assert.equal(m.code, 0, m.stderr);
  const alone = (JSON.parse(m.stdout) as { coverage: Figures }).coverage;
  for (const k of ['line', 'branch', 'toggle'] as const) assert.deepEqual({ k, ...alone[k] }, { k, ...over[k] });

  // With the defaults the data is 4 bits wide (fewer toggle points) and the EXTRA code is dead (fewer branches hit).
  const plain = await generate(join(work, 'tb_plain.sv'), []);
  assert.ok(
    over.toggle.total > plain.toggle.total,
    `toggle points: ${over.toggle.total} with W=8, ${plain.toggle.total} with W=4`,
  );
  assert.ok(
    over.branch.covered > plain.branch.covered,
    `branches hit: ${over.branch.covered} with EXTRA=1, ${plain.branch.covered} with the defaults`,
  );
});

test("coverage -G: the user's testbench measures the overridden DUT, from a copy; its file is left as it was", async () => {
  const tb = join(work, 'tb_user.sv');
  const text = [
    'module tb_user;',
    '  logic clk = 0, rst = 1;',
    '  logic [7:0] a = 0;',
    '  wire [7:0] q;',
    '  wire flag;',
    '  param_dut uut (.clk(clk), .rst(rst), .a(a), .q(q), .flag(flag));',
    '  always #5 clk = ~clk;',
    '  initial begin',
    '    repeat (2) @(posedge clk);',
    '    rst = 0;',
    "    a = 8'h80; @(posedge clk);",
    "    a = 8'h01; @(posedge clk);",
    "    a = 8'hff; @(posedge clk);",
    '    $finish;',
    '  end',
    'endmodule',
    '',
  ].join('\n');
  writeFileSync(tb, text);
  const measured = async (params: string[]) => {
    const r = await runCli(['coverage', DUT, '--tb', tb, '--top', 'param_dut', ...params, '--json'], {
      cwd: work,
      env,
    });
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { coverage: Figures }).coverage;
  };
  const over = await measured(['-G', 'W=8', '-G', 'EXTRA=1']);
  const plain = await measured([]);
  assert.ok(
    over.branch.covered > plain.branch.covered,
    `branches hit: ${over.branch.covered} with EXTRA=1, ${plain.branch.covered} with the defaults`,
  );
  assert.ok(
    over.toggle.total > plain.toggle.total,
    `toggle points: ${over.toggle.total} with W=8, ${plain.toggle.total} with W=4`,
  );
  assert.equal(readFileSync(tb, 'utf8'), text, "the user's testbench is not changed");

  const none = join(work, 'tb_none.sv');
  writeFileSync(none, 'module tb_none;\n  initial $finish;\nendmodule\n');
  const bad = await runCli(['coverage', DUT, '--tb', none, '--top', 'param_dut', '-G', 'W=8'], { cwd: work, env });
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /tb_none\.sv.*instantiates no param_dut/);
});
