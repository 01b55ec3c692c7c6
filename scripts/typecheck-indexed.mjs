// Type-checks the program of tsconfig.json with `noUncheckedIndexedAccess` on and reports only the errors in the
// folders below; exit 1 if there are any. tsc cannot scope a compiler option to some folders of one program, so
// this runs the compiler API with the flag added and filters its diagnostics by file.
// Usage: node scripts/typecheck-indexed.mjs
import ts from 'typescript';
import { fileURLToPath } from 'node:url';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

// The wire (src/protocol) and the adapters' own code: what arrives from a client, a model, a user or the command
// line is indexed there, so a missing element must be handled, not assumed. The analysis and search folders (hdl,
// engine, sim, formal) index arrays they built themselves and are left out.
export const CHECKED_FOLDERS = [
  'src/protocol',
  'src/server',
  'src/serve',
  'src/cli',
  'src/llm',
  'src/webview',
  'src/extension',
];

function isChecked(root, fileName) {
  const rel = relative(root, fileName).split(sep).join('/');
  return CHECKED_FOLDERS.some((f) => rel.startsWith(`${f}/`));
}

/**
 * The pre-emit diagnostics, with `noUncheckedIndexedAccess` on, of the files under CHECKED_FOLDERS (and any
 * diagnostic that belongs to no file, such as a broken tsconfig.json).
 * `files` (path relative to `root` → text) replaces the program's root files with those texts, read from memory:
 * a test checks what the check finds without writing into the tree.
 */
export function indexedAccessDiagnostics({ root = process.cwd(), files } = {}) {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  if (config.error) return [config.error];
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root, undefined, configPath);
  if (parsed.errors.length) return parsed.errors;
  const options = { ...parsed.options, noUncheckedIndexedAccess: true };
  const host = ts.createCompilerHost(options, true);
  let rootNames = parsed.fileNames;
  if (files) {
    const inMemory = new Map(Object.entries(files).map(([p, text]) => [resolve(root, p), text]));
    const { getSourceFile, fileExists, readFile } = host;
    host.getSourceFile = (fileName, languageVersion, ...rest) => {
      const text = inMemory.get(resolve(fileName));
      return text === undefined
        ? getSourceFile.call(host, fileName, languageVersion, ...rest)
        : ts.createSourceFile(fileName, text, languageVersion, true);
    };
    host.fileExists = (fileName) => inMemory.has(resolve(fileName)) || fileExists.call(host, fileName);
    host.readFile = (fileName) => inMemory.get(resolve(fileName)) ?? readFile.call(host, fileName);
    rootNames = [...inMemory.keys()];
  }
  const program = ts.createProgram({ rootNames, options, host });
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  const inFolders = program
    .getSourceFiles()
    .filter((sf) => !sf.isDeclarationFile && !program.isSourceFileFromExternalLibrary(sf))
    .filter((sf) => isChecked(root, isAbsolute(sf.fileName) ? sf.fileName : resolve(root, sf.fileName)))
    .flatMap((sf) => [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]);
  return [...global, ...inFolders];
}

/** tsc's plain format: file(line,col): error TSxxxx: message, paths relative to `root`. */
export function formatDiagnostics(diagnostics, root = process.cwd()) {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const diagnostics = indexedAccessDiagnostics();
  if (diagnostics.length) {
    process.stdout.write(formatDiagnostics(diagnostics));
    process.stderr.write(
      `${diagnostics.length} error(s) under noUncheckedIndexedAccess in ${CHECKED_FOLDERS.join(', ')}: ` +
        'narrow the indexed value (a check, ?. or ??, a default) or iterate without an index.\n',
    );
    process.exit(1);
  }
}
