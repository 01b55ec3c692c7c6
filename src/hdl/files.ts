/**
 * Reads RTL files for analysis, refusing what cannot be Verilog: missing, empty, binary or huge files, devices and pipes.
 * Messages leave the path to the error's location (ChorusError.describe() prints `file: message`).
 */
import { ChorusError, type DesignAnalysis, type SourceFile } from '../protocol';
import { readUserFile, readUserText } from '../protocol/userFile';
import { analyzeSources, type AnalysisOptions } from './design';

/** Larger than any hand-written RTL file; generated netlists this size are not what CHORUS is for. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

async function readSource(path: string): Promise<SourceFile> {
  // Only a regular file within the bound (a device or FIFO is refused before it is opened).
  const bytes = await readUserFile(path, { maxBytes: MAX_FILE_BYTES, what: 'source file' });
  const content = bytes.toString('utf8');
  if (!content.trim())
    throw new ChorusError('bad_input', 'The file is empty: pass a Verilog/SystemVerilog source file.', { file: path });
  if (bytes.subarray(0, 8192).includes(0) || content.includes('\uFFFD\uFFFD\uFFFD')) {
    throw new ChorusError(
      'bad_input',
      'The file looks binary, not Verilog/SystemVerilog text: pass the RTL source files.',
      { file: path },
    );
  }
  return { name: path, content };
}

/** A source file's text for readers that check it their own way (module indexes, prompts): a regular file within MAX_FILE_BYTES. */
export function readSourceText(path: string): Promise<string> {
  return readUserText(path, { maxBytes: MAX_FILE_BYTES, what: 'source file' });
}

/** Reads and analyses RTL files; files are named in the result exactly as given. */
export async function analyzeFiles(paths: string[], opts: AnalysisOptions = {}): Promise<DesignAnalysis> {
  const files = await Promise.all(paths.map(readSource));
  return analyzeSources(files, opts);
}
