// The Verilator of `npm run test:fast`: first on PATH, it answers the probes a test may make (any call with
// `--version`, `-V` or `--getenv`: detecting the tool, its version and options) with the real Verilator, and refuses everything else, so a
// test file that builds or runs a simulator fails at once with a message saying so. scripts/mark-fast.mjs runs
// every test file with it to decide which files the fast tier lists (test/fast-files.json); test:fast runs them with
// it again, so the list cannot go stale silently.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { spawnSync } from 'node:child_process';

/**
 * The real Verilator's absolute path (CHORUS_VERILATOR, else `verilator` on PATH without the refusing one's folder,
 * which must never exec itself), or a clear exit.
 */
function realVerilator(bin) {
  const wanted = process.env.CHORUS_VERILATOR || 'verilator';
  const PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((d) => d && d !== bin)
    .join(delimiter);
  const r = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', wanted], {
    encoding: 'utf8',
    env: { ...process.env, PATH },
  });
  const path = r.stdout.trim();
  if (r.status !== 0 || !path) {
    process.stderr.write(`Verilator not found (looked for \`${wanted}\`): run \`npm run bootstrap\` to install it.\n`);
    process.exit(3);
  }
  return path;
}

/**
 * Writes the refusing `verilator` (and `verilator_coverage`) into `<root>/.cache/no-build-verilator/bin` and returns
 * the environment that puts them first on PATH. Refusals are appended to `log` (one line each) when given.
 */
export function noBuildVerilatorEnv(root, log) {
  const bin = join(root, '.cache', 'no-build-verilator', 'bin');
  mkdirSync(bin, { recursive: true });
  const real = realVerilator(bin);
  const q = (s) => `'${s.replaceAll("'", `'\\''`)}'`;
  // Plain sh, no command substitution: the refusal only prints (a backquote here would run the tool again).
  const refuse = (tool) =>
    [
      `printf '%s\\n' 'npm run test:fast: a test ran ${tool} with the arguments below; test:fast builds nothing. Take its file out of test/fast-files.json (re-mark: node scripts/mark-fast.mjs).' "$*" >&2`,
      log ? `printf '%s\\n' "${tool} $*" >> ${q(log)}` : '',
      'exit 97',
    ].join('\n');
  writeFileSync(
    join(bin, 'verilator'),
    // A probe names --version, -V or --getenv (capability probes put options before --version): it builds nothing.
    `#!/bin/sh\nfor a in "$@"; do case "$a" in --version|-V|--getenv) exec ${q(real)} "$@";; esac; done\n${refuse('verilator')}\n`,
  );
  writeFileSync(join(bin, 'verilator_coverage'), `#!/bin/sh\n${refuse('verilator_coverage')}\n`);
  for (const f of ['verilator', 'verilator_coverage']) chmodSync(join(bin, f), 0o755);
  const rest = (process.env.PATH ?? '').split(delimiter).filter((d) => d !== bin);
  const env = { PATH: [bin, ...rest].join(delimiter) };
  // A Verilator named by CHORUS_VERILATOR would be used instead of the one on PATH.
  return { env, unset: ['CHORUS_VERILATOR', 'CHORUS_TEST_VERILATOR'] };
}
