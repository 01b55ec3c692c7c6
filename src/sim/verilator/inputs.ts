/** Reads the user's DUT and testbench files up front: a missing file is bad input, reported before any tool runs. */
import { resolve } from 'node:path';
import { ChorusError } from '../../protocol';
import { readUserFile, UserFileError } from '../../protocol/userFile';

/** The same limit as DUT analysis (src/hdl/files.ts): Verilator would spend minutes on a larger file. */
export const MAX_DUT_FILE_BYTES = 16 * 1024 * 1024;

export interface SourceFile {
  /** As the caller gave it. */
  given: string;
  absolute: string;
  text: string;
}

/**
 * An empty or binary DUT file is a user mistake (a wrong path, a netlist, a log): say so instead of
 * letting Verilator report a missing module or spend minutes on it. Testbenches are left to Verilator, whose
 * located error is the better message for code (so a model's reply is never refused here).
 */
function dutFileProblem(bytes: Buffer): string | undefined {
  if (!bytes.toString('utf8').trim())
    return 'The DUT file is empty: pass the Verilog/SystemVerilog files that define the design.';
  if (bytes.subarray(0, 8192).includes(0))
    return 'The DUT file looks binary, not Verilog/SystemVerilog text: pass the RTL source files.';
  return undefined;
}

export async function readSource(given: string, role: 'DUT file' | 'testbench'): Promise<SourceFile> {
  const absolute = resolve(given);
  const isDut = role === 'DUT file';
  let bytes: Buffer;
  try {
    // Only a regular file within the bound: a device or FIFO is refused before it is opened.
    bytes = await readUserFile(absolute, {
      maxBytes: isDut ? MAX_DUT_FILE_BYTES : undefined,
      what: role,
      shownAs: given,
    });
  } catch (err) {
    if (err instanceof UserFileError && err.problem === 'missing') {
      throw new ChorusError(
        'bad_input',
        `${isDut ? 'DUT file' : 'Testbench'} not found: ${given}. Check the path (relative paths start at ${process.cwd()}).`,
        { file: given },
      );
    }
    throw err;
  }
  const notRtl = isDut ? dutFileProblem(bytes) : undefined;
  if (notRtl) throw new ChorusError('bad_input', notRtl, { file: given });
  return { given, absolute, text: bytes.toString('utf8') };
}

export async function readInputs(
  dutFiles: string[],
  testbench: string,
): Promise<{ dut: SourceFile[]; tb: SourceFile }> {
  if (!dutFiles.length)
    throw new ChorusError('bad_input', 'No DUT files given: pass the RTL files of the design under test.');
  const dut = await Promise.all(dutFiles.map((f) => readSource(f, 'DUT file')));
  const tb = await readSource(testbench, 'testbench');
  if (dut.some((d) => d.absolute === tb.absolute)) {
    throw new ChorusError(
      'bad_input',
      `The testbench ${testbench} is also listed as a DUT file: pass it only with --tb.`,
      { file: testbench },
    );
  }
  return { dut, tb };
}
