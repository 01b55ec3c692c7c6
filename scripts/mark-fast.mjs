// Decides, by running them, which test files `npm run test:fast` lists: every test file (the e2e suite aside,
// which drives the whole product) is run alone with the Verilator of scripts/no-build-verilator.mjs, which answers
// probes and refuses to build; a file that passes with it builds nothing and is listed in test/fast-files.json with
// its measured time; the other files are listed with what they ran. Run it after adding or changing test files: `node scripts/mark-fast.mjs [suite|file...]` (suites
// or test files named re-mark only those; the other entries are kept).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadavg } from 'node:os';
import { noBuildVerilatorEnv } from './no-build-verilator.mjs';

const root = process.cwd();
const manifest = join(root, 'test', 'fast-files.json');
const args = process.argv.slice(2);
const onlyFiles = args.filter((a) => a.endsWith('.test.ts')).map((a) => relative(root, join(root, a)));
const only = args.filter((a) => !a.endsWith('.test.ts'));
const PER_FILE_LIMIT_S = 300;

function testFiles(dir) {
  return readdirSync(dir)
    .flatMap((e) => {
      const p = join(dir, e);
      return statSync(p).isDirectory() ? testFiles(p) : e.endsWith('.test.ts') ? [relative(root, p)] : [];
    })
    .sort();
}

const suites = readdirSync(join(root, 'test')).filter(
  (d) => statSync(join(root, 'test', d)).isDirectory() && !['fixtures', 'helpers', 'e2e'].includes(d),
);
const chosen = only.length ? suites.filter((s) => only.includes(s)) : onlyFiles.length ? [] : suites;
const previous = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).files : [];
const kept = previous.filter(
  (f) => !chosen.includes(f.file.split('/')[1]) && !onlyFiles.includes(f.file) && existsSync(join(root, f.file)),
);
const log = join(root, '.cache', 'no-build-verilator', 'refused.log');
const { env: shimEnv, unset } = noBuildVerilatorEnv(root, log);
const env = { ...process.env, ...shimEnv, CHORUS_TEST: '1', CHORUS_THREADS: process.env.CHORUS_THREADS ?? '1' };
for (const k of [...unset, 'NODE_TEST_CONTEXT']) delete env[k];

const marked = [];
for (const file of [...chosen.flatMap((s) => testFiles(join(root, 'test', s))), ...onlyFiles]) {
  rmSync(log, { force: true });
  const started = Date.now();
  const r = spawnSync('timeout', [String(PER_FILE_LIMIT_S), process.execPath, '--import', 'tsx', '--test', file], {
    env,
    encoding: 'utf8',
  });
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const refused = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  // A file that called Verilator is not fast even when it passed: it took another path than with a real one.
  const verdict = refused.length ? 'builds' : r.status === 0 ? 'fast' : r.status === 124 ? 'timeout' : 'fails';
  process.stderr.write(
    `${verdict.padEnd(7)} ${seconds.toFixed(1).padStart(6)} s  ${file}${refused.length ? `  (${refused[0]})` : ''}\n`,
  );
  marked.push({ file, verdict, seconds, ...(refused.length ? { ran: refused[0] } : {}) });
}
const files = [...kept, ...marked].sort((a, b) => a.file.localeCompare(b.file));
writeFileSync(
  manifest,
  JSON.stringify(
    {
      note: 'Written by scripts/mark-fast.mjs: each test file run alone with a Verilator that answers probes and refuses to build (scripts/no-build-verilator.mjs). fast: it passed and never ran Verilator, so npm run test:fast runs it; builds: it ran Verilator (ran: the first call), passing or not; fails/timeout: it failed without a recorded call (a build inside the jail, which cannot write the record). seconds: as measured alone.',
      measuredAtLoad: Math.round(loadavg()[0] * 10) / 10,
      files,
    },
    null,
    2,
  ) + '\n',
);
const fast = files.filter((f) => f.verdict === 'fast');
process.stderr.write(
  `${fast.length} of ${files.length} files are fast (test/fast-files.json), ${fast.reduce((n, f) => n + f.seconds, 0).toFixed(0)} s alone.\n`,
);
