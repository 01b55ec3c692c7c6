/**
 * `npm run corpus`: builds the corpus of real designs the tests and benches read (test/helpers/corpus.ts) for a
 * checkout that has no `../shared/corpus`. The item lists and filelists are the project's own (corpus/); the
 * sources are fetched from their public repositories at the commits corpus/sources.json pins, and only the files it
 * lists are kept; verilog-eval-ecov is rebuilt from NVlabs/verilog-eval's spec-to-rtl problems at its pinned commit.
 *
 *   npm run corpus [-- --out <folder>]     (build)
 *   npm run corpus -- --check              (say where the suite finds the corpus; exit 1 when nowhere)
 *
 * It needs git and network access to github.com. `CHORUS_CORPUS_GIT_BASE` (default `https://github.com/`) replaces
 * the start of every repository address, for a mirror. The corpus is built beside its destination and moved into
 * place only once complete (with `.complete` in it), so an interrupted build leaves no half corpus that is used.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BUILT_CORPUS, COMPLETE_MARKER, CORPORA, locateCorpus } from '../test/helpers/corpus';

const repoRoot = resolve(__dirname, '..');
/** The project's own corpus definition: sources.json, and per corpus its items.jsonl and items/*.f. */
export const CORPUS_DEFINITION = join(repoRoot, 'corpus');
export const GITHUB = 'https://github.com/';

export interface CorpusSource {
  corpus: string;
  /** Folder of the corpus the files go to (`.` for the corpus folder itself). */
  dir: string;
  repository: string;
  /** The full commit hash: the files are taken at exactly this commit. */
  commit: string;
  license: string;
  /** Paths in the repository, kept at the same paths under `dir`. */
  files: string[];
  /** A conversion of the repository into items (verilog-eval-ecov from verilog-eval's spec-to-rtl problems). */
  convert?: 'verilog-eval-spec-to-rtl';
}

export interface BuildOptions {
  out: string;
  /** Default corpus/ of this checkout. */
  definition?: string;
  /** Default corpus/sources.json of the definition. */
  sources?: CorpusSource[];
  /** Replaces `https://github.com/` in each repository address. */
  gitBase?: string;
  log?: (line: string) => void;
}

export class CorpusBuildError extends Error {}

function git(args: string[], cwd?: string): Buffer {
  try {
    return execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
  } catch (err) {
    const e = err as { code?: string; stderr?: Buffer };
    if (e.code === 'ENOENT') throw new CorpusBuildError('git was not found on PATH: install git, then run this again.');
    throw new CorpusBuildError(`git ${args.join(' ')} failed: ${e.stderr?.toString().trim() || String(err)}`);
  }
}

function sourceUrl(source: CorpusSource, gitBase: string): string {
  if (!source.repository.startsWith(GITHUB)) return source.repository;
  return gitBase + source.repository.slice(GITHUB.length);
}

/** A repository at one commit, fetched alone (a shallow fetch of that commit; the whole history only if refused). */
function fetchCommit(source: CorpusSource, url: string, into: string): void {
  if (!/^[0-9a-f]{40}$/.test(source.commit))
    throw new CorpusBuildError(`${source.corpus}/${source.dir}: commit ${source.commit} is not a full 40-digit hash.`);
  git(['init', '-q', into]);
  try {
    git(['fetch', '-q', '--depth', '1', url, source.commit], into);
  } catch (shallow) {
    // A server that refuses a fetch by commit hash: fetch its branches and find the commit among them.
    try {
      git(['fetch', '-q', url, '+refs/heads/*:refs/remotes/origin/*'], into);
    } catch {
      throw new CorpusBuildError(
        `Could not fetch ${url} at ${source.commit} (${(shallow as Error).message}). Building the corpus needs ` +
          'network access to github.com (or CHORUS_CORPUS_GIT_BASE naming a mirror); without it, set CHORUS_CORPUS ' +
          'to a copy of the corpus.',
      );
    }
  }
  try {
    git(['cat-file', '-e', `${source.commit}^{commit}`], into);
  } catch {
    throw new CorpusBuildError(`${url} has no commit ${source.commit} (${source.corpus}/${source.dir}).`);
  }
}

function show(repo: string, commit: string, path: string, what: string): Buffer {
  try {
    return git(['cat-file', 'blob', `${commit}:${path}`], repo);
  } catch {
    throw new CorpusBuildError(`${what}: ${path} is not in the repository at ${commit}.`);
  }
}

/** JSON as Python's `json.dumps` writes it (`", "`, `": "`, non-ASCII escaped): the form the ECov items are in. */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`)
      .join(', ')}}`;
  if (typeof value === 'string')
    return JSON.stringify(value).replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  return JSON.stringify(value);
}

const ECOV_INSTRUCTION = (top: string, instance: string) =>
  `Write a SystemVerilog testbench for the RTL design. The top module is '${top}' and it must be instantiated as ` +
  `'${instance}'. Drive stimulus only (no checks or assertions) to reach the highest line, branch and toggle coverage.`;

/**
 * verilog-eval's spec-to-rtl problems as CVDP-ECov items: per problem `ProbNNN_name` the reference solution
 * (`_ref.sv`, top `RefModule`) as the RTL and the problem statement (`_prompt.txt`) as the spec, with targets of
 * line and branch 100% on the instance `uut`.
 */
function verilogEvalItems(repo: string, commit: string): string {
  const folder = 'dataset_spec-to-rtl';
  const names = git(['ls-tree', '--name-only', `${commit}:${folder}`], repo)
    .toString()
    .split('\n');
  const problems = names
    .map((n) => /^(Prob\d{3}_\w+)_ref\.sv$/.exec(n)?.[1])
    .filter((p): p is string => p !== undefined && names.includes(`${p}_prompt.txt`))
    .sort();
  if (!problems.length) throw new CorpusBuildError(`${folder} at ${commit} has no ProbNNN_<name>_ref.sv problems.`);
  const what = `verilog-eval ${folder}`;
  return problems
    .map((p) => {
      const item = {
        id: `verilog_eval_${p}`,
        rtl_files: [{ name: 'ref.sv', content: show(repo, commit, `${folder}/${p}_ref.sv`, what).toString('utf8') }],
        spec_files: [
          { name: 'spec.txt', content: show(repo, commit, `${folder}/${p}_prompt.txt`, what).toString('utf8') },
        ],
        dut_module_name: 'RefModule',
        dut_instance_name: 'uut',
        instruction: ECOV_INSTRUCTION('RefModule', 'uut'),
        targets: ['line', 'branch'].map((metric) => ({ inst_name: 'uut', metric, target_percentage: 100 })),
        difficulty: 'easy',
        is_agentic: false,
      };
      return pythonJson(item) + '\n';
    })
    .join('');
}

/** Every filelist entry that names a source must be a file of the built corpus. */
function checkFilelists(corpusDir: string): void {
  const items = join(corpusDir, 'items');
  if (!existsSync(items)) return;
  for (const list of readdirSync(items).filter((n) => n.endsWith('.f'))) {
    const entries = readFileSync(join(items, list), 'utf8').split('\n');
    entries.forEach((raw, i) => {
      const entry = raw.trim();
      if (!entry || entry.startsWith('//') || entry.startsWith('#')) return;
      const path = entry.startsWith('+incdir+') ? entry.slice('+incdir+'.length) : entry.startsWith('+') ? '' : entry;
      if (path && !existsSync(join(corpusDir, path)))
        throw new CorpusBuildError(
          `corpus/${corpusDir.split('/').pop()}/items/${list}:${i + 1} names ${path}, which no source in ` +
            'corpus/sources.json provides: add it to that source\'s "files".',
        );
    });
  }
}

export function readSources(definition = CORPUS_DEFINITION): CorpusSource[] {
  return JSON.parse(readFileSync(join(definition, 'sources.json'), 'utf8')) as CorpusSource[];
}

/** Builds the whole corpus into `opts.out`, replacing what is there only once the new one is complete. */
export function buildCorpus(opts: BuildOptions): void {
  const definition = opts.definition ?? CORPUS_DEFINITION;
  const sources = opts.sources ?? readSources(definition);
  const gitBase = opts.gitBase ?? GITHUB;
  const log = opts.log ?? (() => {});
  const out = resolve(opts.out);
  mkdirSync(dirname(out), { recursive: true });
  const staging = `${out}.partial-${process.pid}`;
  const repos = `${out}.repos-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  rmSync(repos, { recursive: true, force: true });
  try {
    for (const corpus of CORPORA) {
      const dir = join(staging, corpus);
      mkdirSync(dir, { recursive: true });
      // The project's own item lists and filelists.
      for (const name of ['items.jsonl', 'items'])
        if (existsSync(join(definition, corpus, name)))
          cpSync(join(definition, corpus, name), join(dir, name), { recursive: true });
    }
    sources.forEach((source, n) => {
      const url = sourceUrl(source, gitBase);
      const what = `${source.corpus}/${source.dir}`;
      log(`fetching ${url} at ${source.commit} (${what})`);
      const repo = join(repos, String(n));
      fetchCommit(source, url, repo);
      const to = join(staging, source.corpus, source.dir);
      for (const file of source.files) {
        mkdirSync(dirname(join(to, file)), { recursive: true });
        writeFileSync(join(to, file), show(repo, source.commit, file, `${what} (${url})`));
      }
      if (source.convert === 'verilog-eval-spec-to-rtl')
        writeFileSync(join(to, `${source.corpus}.jsonl`), verilogEvalItems(repo, source.commit));
    });
    for (const corpus of CORPORA) {
      checkFilelists(join(staging, corpus));
      const from = sources.filter((s) => s.corpus === corpus);
      writeFileSync(
        join(staging, corpus, 'README.md'),
        `# ${corpus}\n\nBuilt by \`npm run corpus\` from the project's corpus/ (see corpus/README.md):\n\n` +
          from.map((s) => `- \`${s.dir}\`: ${s.repository} at ${s.commit} (${s.license})\n`).join(''),
      );
    }
    writeFileSync(join(staging, COMPLETE_MARKER), `${new Date().toISOString()}\n`);
    rmSync(out, { recursive: true, force: true });
    renameSync(staging, out);
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(repos, { recursive: true, force: true });
  }
}

function main(): void {
  const args = process.argv.slice(2);
  // `--check`: where the suite will find the corpus, or (exit 1) the locator's message naming this command.
  if (args.length === 1 && args[0] === '--check') {
    try {
      const at = locateCorpus();
      console.error(`The corpus: ${at.root} (${at.from}).`);
    } catch (err) {
      console.error((err as Error).message);
      process.exit(1);
    }
    return;
  }
  const i = args.indexOf('--out');
  if (args.some((a, k) => a !== '--out' && k !== i + 1) || (i >= 0 && !args[i + 1])) {
    console.error('usage: npm run corpus [-- --out <folder> | --check]');
    process.exit(2);
  }
  const out = i >= 0 ? resolve(args[i + 1]) : BUILT_CORPUS;
  try {
    buildCorpus({
      out,
      gitBase: process.env.CHORUS_CORPUS_GIT_BASE || GITHUB,
      log: (l) => console.error(l),
    });
  } catch (err) {
    if (!(err instanceof CorpusBuildError)) throw err;
    console.error(`npm run corpus: ${err.message}`);
    process.exit(1);
  }
  console.error(
    out === BUILT_CORPUS
      ? `The corpus is in ${out}.`
      : `The corpus is in ${out}; set CHORUS_CORPUS=${out} for the tests to read it.`,
  );
}

if (require.main === module) main();
