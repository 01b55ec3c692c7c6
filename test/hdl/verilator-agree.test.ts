// The analysis against real Verilator (`--xml-only`): for every example and fixture top, the port names,
// order, directions and packed widths must be the ones Verilator elaborates.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verilatorPorts } from '../../bench/hdl-verilator-xml';
import { analyzeSources, moduleByName } from '../../src/hdl';

const root = join(__dirname, '..', '..');
const cases: [file: string, top: string][] = [
  ['examples/counter/counter.sv', 'counter'],
  ['examples/fifo/fifo.sv', 'fifo'],
  ['examples/alu/alu.sv', 'alu'],
  ['examples/vending/vending.sv', 'vending'],
  ['examples/uart_tx/uart_tx.sv', 'uart_tx'],
  ['test/fixtures/hdl/nonansi.v', 'nonansi'],
  ['test/fixtures/hdl/params.sv', 'params'],
  ['test/fixtures/hdl/pkg_struct.sv', 'pkg_struct'],
  ['test/fixtures/hdl/multi.sv', 'chip'],
  ['test/fixtures/hdl/multi.sv', 'core'],
  ['test/fixtures/hdl/no_clock.sv', 'no_clock'],
  ['test/fixtures/hdl/casez_full.sv', 'casez_full'],
  ['test/fixtures/hdl/ifdefs.sv', 'ifdefs'],
  ['test/fixtures/hdl/fsm_defaults.sv', 'fsm_defaults'],
];

let work: string;
before(() => {
  work = mkdtempSync(join(tmpdir(), 'chorus-hdl-vlt-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

for (const [file, top] of cases) {
  test(`${file} (${top}): ports agree with verilator --xml-only`, () => {
    const path = join(root, file);
    const analysis = analyzeSources([{ name: path, content: readFileSync(path, 'utf8') }], { top });
    const mine = moduleByName(analysis, top);
    assert.ok(mine);
    const dir = mkdtempSync(join(work, `${top}-`));
    const theirs = verilatorPorts(dir, [path], top);
    assert.notEqual(typeof theirs, 'string', String(theirs));
    assert.deepEqual(
      mine.ports.map((p) => ({ name: p.name, direction: p.direction, width: p.width })),
      theirs,
    );
  });
}
