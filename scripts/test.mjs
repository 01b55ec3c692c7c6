// `npm test`: lint, type check, then every test suite. Suites are folders under test/; a later issue adds a
// folder and it runs here, never beside it. `npm test -- unit sim` runs only those suites (after lint and types).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = process.cwd();
// Cheap suites first so a broken basic fails fast.
const order = ['unit', 'hdl', 'sim', 'llm', 'engine', 'hardening', 'bench', 'server', 'extension', 'webview', 'e2e'];
const only = process.argv.slice(2);

function step(name, cmd, argv, env = {}) {
  process.stderr.write(`\n== ${name}\n`);
  const r = spawnSync(cmd, argv, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    process.stderr.write(`\n${name} failed (exit ${r.status ?? r.signal}).\n`);
    process.exit(r.status || 1);
  }
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

step('lint', 'npx', ['eslint', '--max-warnings=0', '.']);
step('typecheck', 'npx', ['tsc', '--noEmit', '-p', '.']);

const chosen = only.length ? suites.filter((s) => only.includes(s)) : suites;
const files = chosen.flatMap((s) => (existsSync(join(root, 'test', s)) ? testFiles(join(root, 'test', s)) : []));
if (!files.length) {
  process.stderr.write('No test files found.\n');
  process.exit(1);
}
step(`tests (${chosen.join(', ')})`, process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  CHORUS_TEST: '1',
  // llama.cpp's worker threads busy-wait: on a 2-core machine shared with simulators, one thread is far faster.
  CHORUS_THREADS: process.env.CHORUS_THREADS ?? '1',
});
