// The corpus for anyone who clones: where the suite finds it (test/helpers/corpus.ts), and `npm run corpus`
// (scripts/corpus.ts) building it from the project's item lists and sources fetched at pinned commits. The fetch is
// exercised on local git repositories (CHORUS_CORPUS_GIT_BASE's job), so it runs with no network.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CORPUS_COMMAND, corpusPath, locateCorpus } from '../helpers/corpus';
import { repoRoot } from '../helpers/cli';
import { buildCorpus, CorpusBuildError, readSources, type CorpusSource } from '../../scripts/corpus';
import { parseItems } from '../../src/cli/bench/schema';

/** This process's environment for a child test run: without NODE_TEST_CONTEXT, which would make the child report
 * to this runner instead of exiting with its own result. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

const made: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-corpus-'));
  made.push(dir);
  return dir;
};
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A checkout folder `<tmp>/clone` with nothing beside it: no ../shared/corpus. */
function clone(): string {
  const dir = join(tmp(), 'clone');
  mkdirSync(dir);
  return dir;
}

const failure = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  assert.fail('expected an error');
};

test('a clone with no ../shared and no built corpus fails naming the command to run', () => {
  const err = failure(() => locateCorpus({ env: {}, checkout: clone() }));
  assert.match(err.message, /No corpus of real designs/);
  assert.ok(err.message.includes(`Run \`${CORPUS_COMMAND}\``), err.message);
  assert.match(err.message, /CHORUS_CORPUS/);
});

test('the corpus is CHORUS_CORPUS when set, else ../shared/corpus, else the finished `npm run corpus` build', () => {
  const checkout = clone();
  const built = join(checkout, '.cache', 'corpus');
  mkdirSync(built, { recursive: true });
  const partial = failure(() => locateCorpus({ env: {}, checkout }));
  assert.match(partial.message, /build did not finish/, 'a build without .complete is not used');
  writeFileSync(join(built, '.complete'), '');
  assert.deepEqual(locateCorpus({ env: {}, checkout }), { root: built, from: 'npm run corpus' });

  const shared = join(dirname(checkout), 'shared', 'corpus');
  mkdirSync(shared, { recursive: true });
  assert.deepEqual(locateCorpus({ env: {}, checkout }), { root: shared, from: '../shared/corpus' });

  const elsewhere = tmp();
  assert.deepEqual(locateCorpus({ env: { CHORUS_CORPUS: elsewhere }, checkout }), {
    root: elsewhere,
    from: 'CHORUS_CORPUS',
  });
  // A CHORUS_CORPUS that names nothing is an error, never passed over for another corpus.
  const wrong = failure(() => locateCorpus({ env: { CHORUS_CORPUS: join(elsewhere, 'nope') }, checkout }));
  assert.match(wrong.message, /CHORUS_CORPUS names .*nope, which does not exist/);
  assert.ok(wrong.message.includes(CORPUS_COMMAND));
});

test('a corpus test run against no corpus fails, and its output names the command', () => {
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--test-name-pattern=every real-ip filelist',
      join('test', 'hdl', 'filelist.test.ts'),
    ],
    { cwd: repoRoot, encoding: 'utf8', env: childEnv({ CHORUS_CORPUS: join(tmp(), 'none') }) },
  );
  assert.notEqual(r.status, 0);
  assert.ok(r.stdout.includes(CORPUS_COMMAND), r.stdout + r.stderr);
});

test("the project's corpus definition: items read as bench items, every filelist entry comes from a pinned source", () => {
  const sources = readSources();
  for (const s of sources) assert.match(s.commit, /^[0-9a-f]{40}$/, `${s.corpus}/${s.dir}: a full commit hash`);
  for (const corpus of ['real-ip', 'real-ip-2']) {
    const dir = join(repoRoot, 'corpus', corpus);
    const parsed = parseItems(readFileSync(join(dir, 'items.jsonl'), 'utf8'), dir);
    for (const l of parsed) assert.ok(l.ok, l.ok ? '' : `${corpus} ${l.id}: ${l.error}`);
    const provided = new Set(
      sources.filter((s) => s.corpus === corpus).flatMap((s) => s.files.map((f) => join(s.dir, f))),
    );
    for (const list of readdirSync(join(dir, 'items'))) {
      for (const entry of readFileSync(join(dir, 'items', list), 'utf8')
        .split('\n')
        .filter(Boolean)) {
        if (entry.startsWith('+incdir+')) {
          const inc = entry.slice('+incdir+'.length);
          assert.ok(
            [...provided].some((f) => f.startsWith(inc + '/')),
            `${corpus}/${list}: ${entry}`,
          );
        } else if (!entry.startsWith('+')) assert.ok(provided.has(entry), `${corpus}/${list}: ${entry}`);
      }
    }
  }
});

const GIT_USER = ['-c', 'user.name=chorus-test', '-c', 'user.email=test@chorus.invalid'];

/** A bare repository at `<base>/<name>` with one commit per entry of `commits` (path → text); their hashes. */
function bareRepo(base: string, name: string, commits: Record<string, string>[]): string[] {
  const work = tmp();
  const g = (...args: string[]) => execFileSync('git', [...GIT_USER, ...args], { cwd: work, encoding: 'utf8' }).trim();
  g('init', '-q');
  const hashes = commits.map((files, i) => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), text);
    }
    g('add', '-A');
    g('commit', '-q', '-m', `commit ${i}`);
    return g('rev-parse', 'HEAD');
  });
  mkdirSync(dirname(join(base, name)), { recursive: true });
  execFileSync('git', ['clone', '-q', '--bare', work, join(base, name)]);
  return hashes;
}

/** The project's definition layout with one real-ip item over `cells/`. */
function definition(): string {
  const dir = tmp();
  mkdirSync(join(dir, 'real-ip', 'items'), { recursive: true });
  writeFileSync(
    join(dir, 'real-ip', 'items.jsonl'),
    JSON.stringify({ id: 'cell', top: 'cell', filelist: 'items/cell.f', parameters: {} }) + '\n',
  );
  writeFileSync(join(dir, 'real-ip', 'items', 'cell.f'), '+incdir+cells/include\ncells/rtl/cell.sv\n');
  return dir;
}

test('npm run corpus takes each file at the pinned commit from the named repository, and the item lists', () => {
  const base = tmp();
  const [pinned] = bareRepo(base, 'org/cells', [
    { 'rtl/cell.sv': 'module cell; endmodule // pinned\n', 'include/defs.svh': '`define W 8\n', LICENSE: 'MIT\n' },
    { 'rtl/cell.sv': 'module cell; endmodule // later\n', 'rtl/other.sv': 'module other; endmodule\n' },
  ]);
  const sources: CorpusSource[] = [
    {
      corpus: 'real-ip',
      dir: 'cells',
      repository: 'https://github.com/org/cells',
      commit: pinned,
      license: 'MIT',
      files: ['rtl/cell.sv', 'include/defs.svh', 'LICENSE'],
    },
  ];
  const out = join(tmp(), 'corpus');
  buildCorpus({ out, definition: definition(), sources, gitBase: `file://${base}/` });
  assert.equal(
    readFileSync(join(out, 'real-ip', 'cells', 'rtl', 'cell.sv'), 'utf8'),
    'module cell; endmodule // pinned\n',
  );
  assert.equal(existsSync(join(out, 'real-ip', 'cells', 'rtl', 'other.sv')), false, 'only the listed files');
  assert.ok(existsSync(join(out, '.complete')));
  assert.match(readFileSync(join(out, 'real-ip', 'items', 'cell.f'), 'utf8'), /cells\/rtl\/cell.sv/);
  assert.match(readFileSync(join(out, 'real-ip', 'README.md'), 'utf8'), new RegExp(pinned));
  // The built corpus is what the locator finds for a clone with no ../shared.
  const checkout = clone();
  buildCorpus({
    out: join(checkout, '.cache', 'corpus'),
    definition: definition(),
    sources,
    gitBase: `file://${base}/`,
  });
  assert.equal(locateCorpus({ env: {}, checkout }).from, 'npm run corpus');

  // A file the pinned commit lacks is an error naming it, and the corpus already built stays as it was.
  const missing = failure(() =>
    buildCorpus({
      out,
      definition: definition(),
      sources: [{ ...sources[0], files: [...sources[0].files, 'rtl/other.sv'] }],
      gitBase: `file://${base}/`,
    }),
  );
  assert.ok(missing instanceof CorpusBuildError);
  assert.match(missing.message, new RegExp(`rtl/other.sv is not in the repository at ${pinned}`));
  assert.ok(existsSync(join(out, '.complete')), 'the earlier corpus is kept');
  assert.deepEqual(
    readdirSync(dirname(out)).filter((n) => n !== 'corpus'),
    [],
    'no partial build is left beside it',
  );

  // A filelist entry that no source provides is named with its list and line.
  const def = definition();
  writeFileSync(join(def, 'real-ip', 'items', 'cell.f'), 'cells/rtl/cell.sv\ncells/rtl/gone.sv\n');
  const unlisted = failure(() => buildCorpus({ out, definition: def, sources, gitBase: `file://${base}/` }));
  assert.match(unlisted.message, /items\/cell.f:2 names cells\/rtl\/gone.sv/);

  // A commit the repository does not have.
  const wrong = failure(() =>
    buildCorpus({
      out,
      definition: definition(),
      sources: [{ ...sources[0], commit: 'f'.repeat(40) }],
      gitBase: `file://${base}/`,
    }),
  );
  assert.ok(wrong instanceof CorpusBuildError, String(wrong));
});

test('verilog-eval-ecov is rebuilt from verilog-eval spec-to-rtl problems, byte for byte the corpus this suite reads', () => {
  // The corpus's own items, written back as verilog-eval's problem files; one stray file as the repository has.
  const ecov = corpusPath('verilog-eval-ecov', 'verilog-eval-ecov.jsonl');
  const files: Record<string, string> = { LICENSE: 'MIT License\n', 'dataset_spec-to-rtl/Prob062_bugs_mux2.sv': '' };
  for (const line of readFileSync(ecov, 'utf8').split('\n').filter(Boolean)) {
    const item = JSON.parse(line) as {
      id: string;
      rtl_files: { content: string }[];
      spec_files: { content: string }[];
    };
    const name = item.id.replace(/^verilog_eval_/, '');
    files[`dataset_spec-to-rtl/${name}_ref.sv`] = item.rtl_files[0].content;
    files[`dataset_spec-to-rtl/${name}_prompt.txt`] = item.spec_files[0].content;
    files[`dataset_spec-to-rtl/${name}_test.sv`] = 'module tb; endmodule\n';
  }
  const base = tmp();
  const [commit] = bareRepo(base, 'NVlabs/verilog-eval', [files]);
  const pinned = readSources().find((s) => s.convert === 'verilog-eval-spec-to-rtl')!;
  const out = join(tmp(), 'corpus');
  buildCorpus({ out, definition: tmp(), sources: [{ ...pinned, commit }], gitBase: `file://${base}/` });
  assert.ok(
    readFileSync(join(out, 'verilog-eval-ecov', 'verilog-eval-ecov.jsonl')).equals(readFileSync(ecov)),
    'the rebuilt items are the corpus items, byte for byte',
  );
  assert.equal(readFileSync(join(out, 'verilog-eval-ecov', 'LICENSE'), 'utf8'), 'MIT License\n');
});

test('npm run corpus with no network fails with exit 1, saying what it needs', () => {
  const out = join(tmp(), 'corpus');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join('scripts', 'corpus.ts'), '--out', out], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, CHORUS_CORPUS_GIT_BASE: `file://${join(tmp(), 'unreachable')}/` },
  });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /npm run corpus: Could not fetch .* at [0-9a-f]{40}.*needs network access to github\.com/s);
  assert.match(r.stderr, /CHORUS_CORPUS/);
  assert.equal(existsSync(out), false);
});
