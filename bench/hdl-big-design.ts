/** A large design made of renamed copies of the example DUTs, for the 10,000-line speed check and its test. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const EXAMPLES = ['counter', 'fifo', 'alu', 'vending', 'uart_tx'];

/** At least `minLines` lines of renamed copies of the given examples (all five by default), in turn. */
export function bigDesign(
  minLines: number,
  examples: readonly string[] = EXAMPLES,
): { text: string; copies: number; names: string[] } {
  const root = join(__dirname, '..');
  const sources = examples.map((n) => readFileSync(join(root, 'examples', n, `${n}.sv`), 'utf8'));
  const parts: string[] = [];
  let lines = 0;
  for (let round = 0; lines < minLines; round++) {
    for (const [i, n] of examples.entries()) {
      const copy = sources[i].replace(new RegExp(`\\bmodule ${n}\\b`), `module ${n}_${round}`);
      parts.push(copy);
      lines += copy.split('\n').length - 1;
    }
  }
  return { text: parts.join(''), copies: parts.length, names: [...examples] };
}
