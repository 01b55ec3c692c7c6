// Faults of the machine: a full build cache, a read-only one, a full simulation folder. Each is `infrastructure`
// (exit 4) with a message naming the folder and what to do; none is reported as the testbench's compile error, and
// the model loop stops instead of feeding it to the model. Every disk is a tmpfs mounted in a private mount
// namespace (`unshare -m`), so it goes away with the command whatever happens to the test.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, repoRoot, type CliResult } from '../helpers/cli';
import { example, removeScratch, scratch, simFixture, suiteCache } from './support';

const counter = example('counter');
const tb = simFixture('tb_counter.sv');

/** How the disk at `$dir` is made: full (a filler takes every block), small (a build runs out part way), read-only. */
const DISKS = {
  full: 'mount -t tmpfs -o size=256k tmpfs "$dir" && dd if=/dev/zero of="$dir/filler" bs=4k 2>/dev/null; true',
  small: 'mount -t tmpfs -o size=600k tmpfs "$dir"',
  readOnly: 'mount -t tmpfs -o size=1m tmpfs "$dir" && mount -o remount,ro "$dir"',
} as const;

let work: string;
let namespaces = true;

before(() => {
  work = scratch('chorus-hardening-infra-');
  const probe = spawnSync('unshare', ['-m', 'sh', '-c', `dir=$(mktemp -d) && ${DISKS.readOnly}`], { encoding: 'utf8' });
  namespaces = probe.status === 0;
});
after(removeScratch);

/** Runs `command` (argv) with a fresh disk of `kind` mounted at `dir`, in its own mount namespace. */
function onDisk(
  kind: keyof typeof DISKS,
  dir: string,
  command: string[],
  env: NodeJS.ProcessEnv,
  cwd = work,
): Promise<CliResult> {
  mkdirSync(dir, { recursive: true });
  const script = `set -u; dir=$1; shift; ${DISKS[kind]} || exit 97; exec "$@"`;
  const child = spawn('unshare', ['-m', 'sh', '-c', script, 'sh', dir, ...command], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      assert.notEqual(code, 97, `could not make the ${kind} disk: ${stderr}`);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** A missing capability fails loudly, never skips: the suite runs as root (README, CI). */
function needsNamespaces(_t: TestContext): boolean {
  assert.ok(
    namespaces,
    'mounting a tmpfs in a private mount namespace needs root (or user namespaces): run npm test as root, as CI does',
  );
  return namespaces;
}

const coverage = ['coverage', counter, '--tb', tb, '--json'];

function assertMachineFault(r: CliResult, what: RegExp): void {
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stderr, what);
  assert.match(r.stderr, /not a fault of the testbench/);
  assert.doesNotMatch(r.stdout + r.stderr, /compile_error|sim_error|ENOENT/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}

test('a full build cache: exit 4 naming the cache and ENOSPC, not a compile error', async (t) => {
  if (!needsNamespaces(t)) return;
  const cache = join(work, 'full-cache');
  const r = await onDisk('full', cache, [process.execPath, cliPath, ...coverage], { CHORUS_CACHE_DIR: cache });
  assertMachineFault(
    r,
    new RegExp(`The build cache \\(${cache}\\) is on a disk with no space left \\(ENOSPC\\).*CHORUS_CACHE_DIR`),
  );
});

test('a cache that fills up during the build (the compiler says "No space left on device"): exit 4, not a compile error', async (t) => {
  if (!needsNamespaces(t)) return;
  const cache = join(work, 'small-cache');
  const r = await onDisk('small', cache, [process.execPath, cliPath, ...coverage], { CHORUS_CACHE_DIR: cache });
  assertMachineFault(r, /The build cache \(.*\) is on a disk with no space left \(ENOSPC\)/);
});

test('a read-only build cache: exit 4 naming EROFS, not ENOENT', async (t) => {
  if (!needsNamespaces(t)) return;
  const cache = join(work, 'ro-cache');
  const r = await onDisk('readOnly', cache, [process.execPath, cliPath, ...coverage], { CHORUS_CACHE_DIR: cache });
  assertMachineFault(r, new RegExp(`The build cache \\(${cache}\\) is on a read-only file system \\(EROFS\\)`));
});

test('a full simulation folder (TMPDIR): exit 4 naming it, not a simulation error', async (t) => {
  if (!needsNamespaces(t)) return;
  const tmp = join(work, 'full-tmp');
  const r = await onDisk('full', tmp, [process.execPath, cliPath, ...coverage], {
    CHORUS_CACHE_DIR: suiteCache,
    TMPDIR: tmp,
  });
  assertMachineFault(r, /\(ENOSPC\)/);
  assert.match(r.stderr, new RegExp(`${tmp}`));
});

test('the model loop on a cache that fills up during the build: it stops with the fault after one reply; the model is never told to fix it', async (t) => {
  if (!needsNamespaces(t)) return;
  // One candidate on a cache that fills up in the compiler (once a compile error the model was asked to fix); two
  // on a cache that is full from the start.
  for (const [candidates, disk] of [
    [1, 'small'],
    [2, 'full'],
  ] as const) {
    const cache = join(work, `loop-cache-${candidates}`);
    const script = join(repoRoot, 'test', 'hardening', 'infrastructureLoop.ts');
    const r = await onDisk(
      disk,
      cache,
      [process.execPath, '--import', 'tsx', script, cache, String(candidates)],
      {},
      repoRoot,
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      chats: number;
      feedback: string[];
      builds: string[];
      ended: { kind?: string; message?: string };
    };
    assert.equal(out.ended.kind, 'infrastructure', `${candidates} candidate(s): ${JSON.stringify(out.ended)}`);
    assert.match(out.ended.message ?? '', /no space left \(ENOSPC\)/);
    assert.equal(out.chats, candidates, 'the model was asked once per candidate, in round 1 only');
    assert.deepEqual(out.feedback, [], 'no feedback was written for the model');
    assert.deepEqual(out.builds, [], "no build result was reported as the testbench's");
  }
});
