// The verilog-eval-ecov items with an FSM (the corpus: test/helpers/corpus.ts), and a plain random testbench for each:
// shared by test/sim/fsm-ecov.test.ts and bench/fsm-coverage.ts (CHORUS's FSM points against Verilator's own).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeSources } from '../../src/hdl';
import { fsmModels } from '../../src/hdl/fsm';
import type { FsmModel, ModuleInfo } from '../../src/protocol';
import { corpusPath } from '../helpers/corpus';

/** The corpus file; throws, naming `npm run corpus`, when there is no corpus. */
export const ecovCorpus = () => corpusPath('verilog-eval-ecov', 'verilog-eval-ecov.jsonl');

export interface EcovFsmItem {
  id: string;
  /** The item's RTL (`ref.sv`, top `RefModule`). */
  rtl: string;
  fsms: FsmModel[];
}

interface CorpusItem {
  id: string;
  rtl_files: { name: string; content: string }[];
  dut_module_name: string;
}

/** Every item whose RTL has an FSM CHORUS's analysis finds (file name `ref.sv`, as the corpus names it). */
export function ecovFsmItems(): EcovFsmItem[] {
  const out: EcovFsmItem[] = [];
  for (const line of readFileSync(ecovCorpus(), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const item = JSON.parse(line) as CorpusItem;
    const rtl = item.rtl_files[0]?.content ?? '';
    const fsms = fsmModels([{ name: 'ref.sv', content: rtl }]);
    if (fsms.length) out.push({ id: item.id, rtl, fsms });
  }
  return out;
}

/**
 * Writes the item's RTL and a testbench driving every input with random values for `cycles` clock cycles (a
 * reset input held for the first two, then asserted 1 cycle in 16), and returns their paths.
 */
export function writeEcovBench(item: EcovFsmItem, dir: string, cycles = 300, seed = 1): { rtl: string; tb: string } {
  mkdirSync(dir, { recursive: true });
  const rtl = join(dir, 'ref.sv');
  writeFileSync(rtl, item.rtl);
  const top = analyzeSources([{ name: rtl, content: item.rtl }]).modules.find((m) => m.name === 'RefModule');
  if (!top) throw new Error(`${item.id}: no RefModule in its RTL`);
  const tb = join(dir, 'tb.sv');
  writeFileSync(tb, randomTestbench(top, cycles, seed));
  return { rtl, tb };
}

function randomTestbench(top: ModuleInfo, cycles: number, seed: number): string {
  const clock = top.ports.find((p) => p.direction === 'input' && /^clk$|^clock$/i.test(p.name));
  const reset = top.ports.find((p) => p.direction === 'input' && /reset|rst/i.test(p.name));
  const inputs = top.ports.filter((p) => p.direction === 'input' && p !== clock && p !== reset);
  const decl = (p: ModuleInfo['ports'][number]) => `  logic ${p.width > 1 ? `[${p.width - 1}:0] ` : ''}${p.name};`;
  const activeLow = reset && /_n$|n$/.test(reset.name) && !/^(a?reset|rst)$/.test(reset.name);
  const on = activeLow ? "1'b0" : "1'b1";
  const off = activeLow ? "1'b1" : "1'b0";
  return [
    'module tb;',
    ...top.ports.map(decl),
    '  RefModule uut (.*);',
    // xorshift32: the same values on every Verilator (5.006's seeded $urandom differs from later versions').
    `  logic [31:0] chorus_rng = 32'd${seed >>> 0 || 1};`,
    '  function automatic logic [31:0] chorus_next(input logic [31:0] v);',
    '    logic [31:0] r = v;',
    '    r ^= r << 13; r ^= r >> 17; r ^= r << 5;',
    '    return r;',
    '  endfunction',
    '  initial begin',
    ...(clock ? [`    ${clock.name} = 0;`] : []),
    ...(reset ? [`    ${reset.name} = ${on};`] : []),
    ...inputs.map((p) => `    ${p.name} = '0;`),
    `    repeat (${cycles}) begin`,
    `      #5 ${clock ? `${clock.name} = 1;` : ''}`,
    `      #5 ${clock ? `${clock.name} = 0;` : ''}`,
    ...inputs.map(
      (p) =>
        `      chorus_rng = chorus_next(chorus_rng); ${p.name} = ${p.width > 32 ? `{${Math.ceil(p.width / 32)}{chorus_rng}}` : 'chorus_rng'};`,
    ),
    ...(reset
      ? [`      chorus_rng = chorus_next(chorus_rng); ${reset.name} = (chorus_rng[7:4] == 4'd0) ? ${on} : ${off};`]
      : []),
    '    end',
    '    $finish;',
    '  end',
    'endmodule',
    '',
  ].join('\n');
}
