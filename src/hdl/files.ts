/**
 * Reads RTL files for analysis, refusing what cannot be Verilog: missing, empty, binary or huge files.
 * Messages leave the path to the error's location (ChorusError.describe() prints `file: message`).
 */
import { readFile, stat } from 'node:fs/promises';
import { ChorusError, type DesignAnalysis, type SourceFile } from '../protocol';
import { analyzeSources, type AnalysisOptions } from './design';

/** Larger than any hand-written RTL file; generated netlists this size are not what CHORUS is for. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

async function readSource(path: string): Promise<SourceFile> {
  let size: number;
  try {
    const s = await stat(path);
    if (s.isDirectory()) throw new ChorusError('bad_input', 'This is a folder: pass the RTL files themselves.', { file: path });
    size = s.size;
  } catch (err) {
    if (err instanceof ChorusError) throw err;
    throw new ChorusError('bad_input', 'No such file: check the path.', { file: path }, { cause: err });
  }
  if (size > MAX_FILE_BYTES) {
    throw new ChorusError(
      'bad_input',
      `File of ${(size / 1048576).toFixed(1)} MB, over the ${MAX_FILE_BYTES / 1048576} MB limit for an RTL file: pass the design's source files, not a netlist or a log.`,
      { file: path },
    );
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new ChorusError('bad_input', `Cannot read the file (${(err as Error).message}): check its permissions.`, { file: path }, { cause: err });
  }
  const content = bytes.toString('utf8');
  if (!content.trim()) throw new ChorusError('bad_input', 'The file is empty: pass a Verilog/SystemVerilog source file.', { file: path });
  if (bytes.subarray(0, 8192).includes(0) || content.includes('\uFFFD\uFFFD\uFFFD')) {
    throw new ChorusError('bad_input', 'The file looks binary, not Verilog/SystemVerilog text: pass the RTL source files.', { file: path });
  }
  return { name: path, content };
}

/** Reads and analyses RTL files; files are named in the result exactly as given. */
export async function analyzeFiles(paths: string[], opts: AnalysisOptions = {}): Promise<DesignAnalysis> {
  const files = await Promise.all(paths.map(readSource));
  return analyzeSources(files, opts);
}
