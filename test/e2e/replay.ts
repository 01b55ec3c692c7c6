/**
 * `replay:` model files for the fifo example: the replies a model would write, in the model's answer format
 * (prose, a `filename:` line, one fenced systemverilog block). The testbenches are real and hand-checked
 * (test/e2e/fixtures/fifo-*.sv): round 1 fills and drains; round 2 adds underrun, overrun and data patterns but
 * never pushes and pops in one cycle, so the `2'b11` case item stays a hole; the hanging one waits in zero time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

function reply(prose: string, testbench: string): string {
  return `${prose}\n\nfilename: tb_fifo.sv\n\`\`\`systemverilog\n${testbench}\`\`\`\n`;
}

/** Prose of the second reply: the chat panel must show it. */
export const ROUND2_PROSE =
  'The holes are the overrun and underrun paths and most toggle bits. This version drives them on purpose, then walks data patterns through the FIFO.';
/** Prose of the hanging reply. */
export const HANG_PROSE = 'This testbench fills the FIFO and waits until it reports the expected level.';
/** A line only the second testbench has: the file on disk holds it once round 2 has been written. */
export const ROUND2_LINE = '// data patterns for the toggle points';
/** fifo.sv's `2'b11: begin` line: push and pop in one cycle, never driven by the replies. */
export const FIFO_PUSH_POP_LINE = 48;

/** Two rounds of improving testbenches (and a spare, should the loop ask for a third). */
export function fifoReplay(): string {
  const first = reply(
    'Here is a first testbench: it resets the FIFO, fills it to full and drains it to empty.',
    fixture('fifo-round1.sv'),
  );
  const second = reply(ROUND2_PROSE, fixture('fifo-round2.sv'));
  return JSON.stringify({ responses: [first, second, second] }, null, 2);
}

/** A testbench that hangs the simulation, as model-written ones sometimes do: Stop must end it. */
export function hangReplay(): string {
  const r = reply(HANG_PROSE, fixture('fifo-hang.sv'));
  return JSON.stringify({ responses: [r, r, r] }, null, 2);
}
