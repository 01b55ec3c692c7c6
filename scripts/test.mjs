// `npm test`: format, lint, type check, then every test suite. Suites are folders under test/; a new folder runs
// here, never beside it. `npm test -- unit sim` runs only those suites (after format, lint and types); the files
// run two at a time in lanes with their own build caches (scripts/test-lanes.mjs), and `-- --durations` records
// each file's measured time in test/durations.json, the order the lanes take them in.
// `npm run test:fast` (`--fast`): only the test files test/fast-files.json marks as building nothing, with a
// Verilator that refuses to build (scripts/no-build-verilator.mjs), two at a time, no format, lint or types.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { noBuildVerilatorEnv } from './no-build-verilator.mjs';
import { LANES, runLanes } from './test-lanes.mjs';

const root = process.cwd();
// Suites in this order on a first run; later runs go longest file first (scripts/test-lanes.mjs).
const order = [
  'unit',
  'protocol',
  'hdl',
  'sim',
  'llm',
  'engine',
  'formal',
  'cli',
  'signoff',
  'hardening',
  'bench',
  'server',
  'serve',
  'extension',
  'webview',
  'e2e',
];
// `--fast` runs its files two at a time in one cache: they build nothing.
const CONCURRENCY = 2;
const fast = process.argv.includes('--fast');
const writeDurations = process.argv.includes('--durations');
const only = process.argv.slice(2).filter((a) => a !== '--fast' && a !== '--durations');

// Each step's wall time is printed, so a slow run (a busy CI machine) shows where the time went.
function step(name, cmd, argv, env = {}) {
  process.stderr.write(`\n== ${name}\n`);
  const started = Date.now();
  const r = spawnSync(cmd, argv, { stdio: 'inherit', env: { ...process.env, ...env } });
  const took = `${((Date.now() - started) / 1000).toFixed(0)} s`;
  if (r.status !== 0) {
    process.stderr.write(`\n${name} failed (exit ${r.status ?? r.signal}) after ${took}.\n`);
    process.exit(r.status || 1);
  }
  process.stderr.write(`== ${name}: done in ${took}\n`);
}

function testFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...testFiles(p));
    else if (e.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out.sort();
}

const suites = readdirSync(join(root, 'test'))
  .filter((d) => statSync(join(root, 'test', d)).isDirectory() && d !== 'fixtures' && d !== 'helpers')
  .sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
const unknown = suites.filter((s) => !order.includes(s));
if (unknown.length) {
  process.stderr.write(`test/${unknown[0]} is not in scripts/test.mjs's suite order; add it there.\n`);
  process.exit(2);
}

const testEnv = {
  CHORUS_TEST: '1',
  // llama.cpp's worker threads busy-wait: on a 2-core machine shared with simulators, one thread is far faster.
  CHORUS_THREADS: process.env.CHORUS_THREADS ?? '1',
};
const runTests = (name, list, env, concurrency = 1) =>
  step(
    name,
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...list],
    env,
  );

// The corpus of real designs some tests read (test/helpers/corpus.ts): when there is none, it is built first
// (`npm run corpus`, which needs network access and says so when it has none).
function ensureCorpus() {
  const check = spawnSync(process.execPath, ['--import', 'tsx', join('scripts', 'corpus.ts'), '--check'], {
    stdio: 'inherit',
  });
  if (check.status === 0) return;
  // A CHORUS_CORPUS that names nothing is the user's to fix: a corpus built elsewhere would not be read.
  if (process.env.CHORUS_CORPUS) process.exit(2);
  step('corpus (npm run corpus)', process.execPath, ['--import', 'tsx', join('scripts', 'corpus.ts')]);
}

if (fast) {
  ensureCorpus();
  const manifest = join(root, 'test', 'fast-files.json');
  const marked = JSON.parse(readFileSync(manifest, 'utf8')).files;
  const chosenSuites = only.length ? suites.filter((s) => only.includes(s)) : suites;
  const inSuites = (f) => chosenSuites.includes(f.split('/')[1]);
  const listed = marked.filter((f) => f.verdict === 'fast' && inSuites(f.file)).map((f) => f.file);
  const gone = listed.filter((f) => !existsSync(join(root, f)));
  if (gone.length) {
    process.stderr.write(`test/fast-files.json lists ${gone.join(', ')}, not found: run node scripts/mark-fast.mjs.\n`);
    process.exit(2);
  }
  const known = new Set(marked.map((f) => f.file));
  const unmarked = chosenSuites
    .filter((s) => s !== 'e2e')
    .flatMap((s) => testFiles(join(root, 'test', s)))
    .filter((f) => !known.has(f));
  if (unmarked.length)
    process.stderr.write(
      `Not yet marked, so not run here: ${unmarked.join(', ')}. Run node scripts/mark-fast.mjs <suite> to mark them.\n`,
    );
  step('build (dist/, once for every test file)', process.execPath, [join('scripts', 'build.mjs')]);
  const { env, unset } = noBuildVerilatorEnv(root);
  for (const k of unset) delete process.env[k];
  runTests(`fast tests (${listed.length} files, no Verilator builds)`, listed, { ...testEnv, ...env }, CONCURRENCY);
  process.exit(0);
}

step('format', 'npm', ['run', '--silent', 'format:check']);
step('lint', 'npx', ['eslint', '--max-warnings=0', '.']);
step('typecheck', 'npx', ['tsc', '--noEmit', '-p', '.']);
step('typecheck (noUncheckedIndexedAccess: wire and adapters)', process.execPath, [
  join('scripts', 'typecheck-indexed.mjs'),
]);

const chosen = only.length ? suites.filter((s) => only.includes(s)) : suites;
const files = chosen.flatMap((s) => (existsSync(join(root, 'test', s)) ? testFiles(join(root, 'test', s)) : []));
if (!files.length) {
  process.stderr.write('No test files found.\n');
  process.exit(1);
}
// The e2e suite's tools (code-server, installed once per machine; scripts/e2e-install.mjs bounds its own steps) and
// the product's VSIX, packaged here once for the content of dist/ and reused while that is unchanged
// (test/helpers/vsix.ts): slow one-time work happens before the suites, outside every test's time limit.
if (chosen.includes('e2e')) {
  step('e2e tools (code-server)', process.execPath, [join('scripts', 'e2e-install.mjs')]);
  step('package the VSIX the e2e suite installs', process.execPath, [
    '--import',
    'tsx',
    join('test', 'helpers', 'package-vsix.ts'),
  ]);
}
ensureCorpus();
step('build (dist/, once for every test file)', process.execPath, [join('scripts', 'build.mjs')]);
// The Verilator version matrix: the simulation layer's files and the engine files that drive the harness on deep and
// FSM designs run once more on every other Verilator test/helpers/verilators.ts finds (5.050 from ../shared/tools
// when its tarball is there), selected by CHORUS_VERILATOR, the product's own default. test/engine/random.test.ts
// (the examples and held-out designs) stays on the system Verilator; the rest of the suites do not depend on the
// Verilator version.
const MATRIX_ENGINE_FILES = ['random-depth.test.ts', 'unreachable.test.ts'];
const matrixFiles = files.filter(
  (f) => f.startsWith(join('test', 'sim') + '/') || MATRIX_ENGINE_FILES.some((n) => f === join('test', 'engine', n)),
);
const jobs = files.map((file) => ({ file, label: file, key: file, env: {} }));
if (matrixFiles.length) {
  const listed = spawnSync(process.execPath, ['--import', 'tsx', join('test', 'helpers', 'verilators.ts')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (listed.status !== 0) {
    process.stderr.write(`\nListing the Verilators to test failed (exit ${listed.status ?? listed.signal}).\n`);
    process.exit(listed.status || 1);
  }
  for (const v of JSON.parse(listed.stdout).filter((v) => v.name !== 'system'))
    for (const file of matrixFiles)
      jobs.push({
        file,
        label: `${file} on Verilator ${v.name}`,
        key: `${file} @${v.name}`,
        env: { CHORUS_VERILATOR: v.path, CHORUS_TEST_VERILATOR: v.name },
      });
}

process.stderr.write(`\n== tests (${chosen.join(', ')}): ${jobs.length} runs, ${LANES} at a time\n`);
const started = Date.now();
const failed = await runLanes(jobs, {
  baseEnv: testEnv,
  durationsFile: join(root, 'test', 'durations.json'),
  measuredFile: writeDurations ? join(root, 'test', 'durations.json') : join(root, '.cache', 'test-times.json'),
});
const took = `${((Date.now() - started) / 1000).toFixed(0)} s`;
if (failed.length) {
  process.stderr.write(`\n${failed.length} of ${jobs.length} test runs failed after ${took}:\n`);
  for (const job of failed) process.stderr.write(`  ${job.label}\n`);
  process.exit(1);
}
process.stderr.write(`== tests: ${jobs.length} runs passed in ${took}\n`);
