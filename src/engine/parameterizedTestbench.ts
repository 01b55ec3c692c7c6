/**
 * `-G` with a user's own testbench (`chorus coverage`): Verilator applies `-G` to the top module only, which is
 * the testbench, so the overrides go on the testbench's instantiations of the DUT instead — in a copy: the
 * user's file is never changed. The copy keeps the original's line numbers, so messages map back line for line.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { ChorusError } from '../protocol';
import { readUserText } from '../protocol/userFile';
import { withDutParameters } from './llm/dutParameters';

export interface ParameterizedTestbench {
  /** The copy to build (absolute). */
  path: string;
  /** Removes the copy's folder. */
  dispose(): Promise<void>;
}

/** A copy of `testbench` whose every `top` instantiation carries `parameters`; an error when it has none. */
export async function parameterizedTestbench(
  testbench: string,
  top: string,
  parameters: Record<string, string>,
): Promise<ParameterizedTestbench> {
  const text = await readUserText(testbench, { what: 'testbench' });
  const patched = withDutParameters(text, top, parameters);
  if (!patched.instances) {
    throw new ChorusError(
      'bad_input',
      `-G ${Object.keys(parameters).join(', ')}: ${testbench} instantiates no ${top}, so there is nothing to apply the top parameters to: instantiate ${top} in the testbench, or give --top the DUT's module.`,
      { file: testbench },
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'chorus-tb-'));
  const path = join(dir, basename(testbench));
  await writeFile(path, patched.testbench);
  return { path: resolve(path), dispose: () => rm(dir, { recursive: true, force: true }) };
}
