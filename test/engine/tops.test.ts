/** findTops: the modules of one document and those a testbench could drive (what `chorus/tops` answers). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { findTops } from '../../src/engine';
import { ChorusError } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';

test('the modules no other module of the text instantiates; instances in comments do not count', async () => {
  const text = `module sub #(parameter W=4)(input clk); endmodule
module top(input clk);
  sub #(.W(8)) u_sub (.clk(clk));
  // other u_other (.clk(clk));   a comment is not an instance
endmodule
module other(input clk); endmodule`;
  assert.deepEqual(await findTops('/w/top.sv', text), { modules: ['sub', 'top', 'other'], tops: ['top', 'other'] });
  assert.deepEqual(await findTops('/w/none.sv', '// nothing here\n'), { modules: [], tops: [] });
});

test('every module when each one is instantiated (a cycle), so the user can still pick', async () => {
  const text = 'module a(input clk); b u (.clk(clk)); endmodule\nmodule b(input clk); a u (.clk(clk)); endmodule\n';
  assert.deepEqual(await findTops('/w/ab.sv', text), { modules: ['a', 'b'], tops: ['a', 'b'] });
});

test('without text the file is read; a missing file is an error naming it', async () => {
  assert.deepEqual(await findTops(join(repoRoot, 'examples', 'counter', 'counter.sv')), {
    modules: ['counter'],
    tops: ['counter'],
  });
  await assert.rejects(
    findTops('/no/such/dir/x.sv'),
    (err) => err instanceof ChorusError && err.kind === 'bad_input' && /No such file/.test(err.message),
  );
});
