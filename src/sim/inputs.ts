/** Reads the user's DUT and testbench files up front: a missing file is bad input, reported before any tool runs. */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ChorusError } from '../protocol';

export interface SourceFile {
  /** As the caller gave it. */
  given: string;
  absolute: string;
  text: string;
}

export async function readSource(given: string, role: 'DUT file' | 'testbench'): Promise<SourceFile> {
  const absolute = resolve(given);
  const s = await stat(absolute).catch(() => undefined);
  if (!s || !s.isFile()) {
    throw new ChorusError('bad_input', `${role === 'testbench' ? 'Testbench' : 'DUT file'} not found: ${given}. Check the path (relative paths start at ${process.cwd()}).`, { file: given });
  }
  return { given, absolute, text: await readFile(absolute, 'utf8') };
}

export async function readInputs(dutFiles: string[], testbench: string): Promise<{ dut: SourceFile[]; tb: SourceFile }> {
  if (!dutFiles.length) throw new ChorusError('bad_input', 'No DUT files given: pass the RTL files of the design under test.');
  const dut = await Promise.all(dutFiles.map((f) => readSource(f, 'DUT file')));
  const tb = await readSource(testbench, 'testbench');
  if (dut.some((d) => d.absolute === tb.absolute)) {
    throw new ChorusError('bad_input', `The testbench ${testbench} is also listed as a DUT file: pass it only with --tb.`, { file: testbench });
  }
  return { dut, tb };
}
