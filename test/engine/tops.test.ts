/** findTops: the modules of one document and those a testbench could drive (what `chorus/tops` answers). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findTops, selectDut } from '../../src/engine';
import { ChorusError } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';

test('several uninstantiated modules: every module is offered, the uninstantiated first; comments do not count', async () => {
  const text = `module sub #(parameter W=4)(input clk); endmodule
module top(input clk);
  sub #(.W(8)) u_sub (.clk(clk));
  // other u_other (.clk(clk));   a comment is not an instance
endmodule
module other(input clk); endmodule`;
  assert.deepEqual(await findTops('/w/top.sv', text), {
    modules: ['sub', 'top', 'other'],
    tops: ['top', 'other', 'sub'],
    candidates: ['top', 'other', 'sub'],
  });
  assert.deepEqual(await findTops('/w/none.sv', '// nothing here\n'), { modules: [], tops: [], candidates: [] });
});

test('every module when each one is instantiated (a cycle), so the user can still pick', async () => {
  const text = 'module a(input clk); b u (.clk(clk)); endmodule\nmodule b(input clk); a u (.clk(clk)); endmodule\n';
  assert.deepEqual(await findTops('/w/ab.sv', text), { modules: ['a', 'b'], tops: ['a', 'b'], candidates: ['a', 'b'] });
});

test('without text the file is read; a missing file is an error naming it', async () => {
  assert.deepEqual(await findTops(join(repoRoot, 'examples', 'counter', 'counter.sv')), {
    modules: ['counter'],
    tops: ['counter'],
    candidates: ['counter'],
  });
  await assert.rejects(
    findTops('/no/such/dir/x.sv'),
    (err) => err instanceof ChorusError && err.kind === 'bad_input' && /No such file/.test(err.message),
  );
});

test('a core with several wrappers: the core is offered after them; under one wrapper the top stays clear', async () => {
  const core = 'module core(input clk, input [7:0] a, output [7:0] y); assign y = a; endmodule\n';
  const two = `${core}module wrap_a(input clk, input [7:0] a, output [7:0] y); core u (.clk(clk), .a(a), .y(y)); endmodule
module wrap_b(input clk, input [7:0] a, output [7:0] y); core u (.clk(clk), .a(~a), .y(y)); endmodule\n`;
  assert.deepEqual(await findTops('/w/two.sv', two), {
    modules: ['core', 'wrap_a', 'wrap_b'],
    tops: ['wrap_a', 'wrap_b', 'core'],
    candidates: ['wrap_a', 'wrap_b', 'core'],
  });
  const one = `${core}module wrap(input clk, input [7:0] a, output [7:0] y); core u (.clk(clk), .a(a), .y(y)); endmodule\n`;
  assert.deepEqual(await findTops('/w/one.sv', one), {
    modules: ['core', 'wrap'],
    tops: ['wrap'],
    candidates: ['wrap', 'core'],
  });
});

test('without --top the error lists the wrappers and the core they instantiate', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-tops-'));
  const file = join(dir, 'two.sv');
  writeFileSync(
    file,
    `module core(input clk, input [7:0] a, output reg [7:0] y); always @(posedge clk) y <= a; endmodule
module wrap_a(input clk, input [7:0] a, output [7:0] y); core u (.clk(clk), .a(a), .y(y)); endmodule
module wrap_b(input clk, input [7:0] a, output [7:0] y); core u (.clk(clk), .a(~a), .y(y)); endmodule\n`,
  );
  await assert.rejects(
    selectDut({ files: [file] }),
    (e: unknown) =>
      e instanceof ChorusError &&
      e.kind === 'bad_input' &&
      /Several top module candidates \(wrap_a, wrap_b\): pass --top <module>; a module they instantiate can be the top too: core\./.test(
        e.message,
      ),
  );
  const picked = await selectDut({ files: [file], top: 'core' });
  assert.equal(picked.top.name, 'core');
});
