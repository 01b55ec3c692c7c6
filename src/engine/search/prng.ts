/**
 * Plain random segments the emitted testbench regenerates instead of listing: xorshift32 draws, one per 32 bits of
 * each input per cycle in the harness's input order, the reset asserted when its draw falls below a threshold. The
 * search expands a segment into rows for the harness; the testbench replays the same stream in SystemVerilog, so a
 * 50,000-cycle random run is one line of the testbench, not 50,000 rows.
 */
import { driven, followResetLines, type DrivenInput, type HarnessPlan } from './harness';

export interface RandomSegment {
  /** xorshift32 state at the segment's first draw (never 0). */
  seed: number;
  /** The reset input is asserted on a cycle whose reset draw is below this (unsigned 32-bit); 0: never. */
  resetBelow: number;
  /** First cycle of the segment in its candidate (after the reset prologue). */
  start: number;
  cycles: number;
}

export function xorshift32(state: number): number {
  let s = state >>> 0;
  s = (s ^ (s << 13)) >>> 0;
  s = (s ^ (s >>> 17)) >>> 0;
  s = (s ^ (s << 5)) >>> 0;
  return s;
}

/** Draws per cycle for an input: one per 32 bits; the reset input draws one. */
export const drawsFor = (input: DrivenInput) => (input.reset ? 1 : Math.ceil(input.width / 32));

/** The segment's cycles, as the testbench's `chorus_play_random` generates them. */
export function expandSegment(seg: RandomSegment, inputs: DrivenInput[]): bigint[][] {
  let s = seg.seed >>> 0;
  const out: bigint[][] = new Array(seg.cycles);
  for (let c = 0; c < seg.cycles; c++) {
    const cycle: bigint[] = new Array(inputs.length);
    inputs.forEach((input, k) => {
      if (input.reset) {
        s = xorshift32(s);
        const asserted = s < seg.resetBelow;
        cycle[k] = asserted ? input.reset.active : input.reset.active ^ 1n;
        return;
      }
      let v = 0n;
      for (let d = drawsFor(input); d > 0; d--) {
        s = xorshift32(s);
        v = (v << 32n) | BigInt(s);
      }
      cycle[k] = v & ((1n << BigInt(input.width)) - 1n);
    });
    out[c] = cycle;
  }
  return out;
}

/** A reset rate as the threshold of its draw. */
export const resetThreshold = (rate: number) => Math.max(0, Math.min(0xffffffff, Math.floor(rate * 4294967296)));

/**
 * The testbench's generator: `chorus_play_random` steps the xorshift32 state once per 32 bits of each input and
 * drives every input from it, cycle by cycle, with the clock as the table rows do.
 */
export function randomPlayerLines(plan: HarnessPlan, clockLines: string[]): string[] {
  const inputs = plan.inputs;
  const widest = Math.max(32, ...inputs.map((i) => drawsFor(i) * 32));
  // Each draw steps the state in statements of its own and reads it after: no function call inside an
  // expression, whose evaluation a simulator may reorder or repeat.
  const draw =
    '      chorus_prng = chorus_prng ^ (chorus_prng << 13); chorus_prng = chorus_prng ^ (chorus_prng >> 17); chorus_prng = chorus_prng ^ (chorus_prng << 5);';
  const drive = inputs.flatMap((i) => {
    if (i.reset) {
      const on = i.width === 1 ? `1'b${i.reset.active}` : `${i.width}'d${i.reset.active}`;
      const off = i.width === 1 ? `1'b${i.reset.active ^ 1n}` : `${i.width}'d${i.reset.active ^ 1n}`;
      return [draw, `      ${driven(i)} = (chorus_prng < reset_below) ? ${on} : ${off};`];
    }
    if (drawsFor(i) === 1) return [draw, `      ${driven(i)} = chorus_prng[${i.width - 1}:0];`];
    return [
      `      chorus_wide = '0;`,
      `      repeat (${drawsFor(i)}) begin`,
      `  ${draw}`,
      `        chorus_wide = (chorus_wide << 32) | ${widest}'(chorus_prng);`,
      '      end',
      `      ${driven(i)} = chorus_wide[${i.width - 1}:0];`,
    ];
  });
  return [
    '  // Plain random segments: xorshift32 draws, one per 32 bits of each input per cycle, in port order.',
    '  logic [31:0] chorus_prng;',
    ...(widest > 32 ? [`  logic [${widest - 1}:0] chorus_wide;`] : []),
    '  task automatic chorus_play_random(input logic [31:0] seed, input logic [31:0] reset_below, input int cycles);',
    '    chorus_prng = seed;',
    '    repeat (cycles) begin',
    ...drive,
    ...followResetLines(plan, '      '),
    ...clockLines.map((l) => `      ${l.trim()}`),
    '    end',
    '  endtask',
  ];
}
