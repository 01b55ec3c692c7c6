// No data loss: `chorus generate --out` never replaces a user's file without --force (nor anything that is not a
// regular file), writes are atomic, a full disk is a clear error that leaves the previous file whole, and a run
// leaves no temporary folders behind.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_MARKER } from '../../src/engine';
import { cliPath, repoRoot, runCli, type CliResult } from '../helpers/cli';
import { limitMs } from '../helpers/time-limits';
import { example, removeScratch, scratch, simFixture, suiteCache } from './support';

const counter = example('counter');
const fifo = example('fifo');
// A refused --out ends before any work: six refusals took 7.3 s at load average 15 here (helpers/time-limits.ts).
const REFUSAL_MS = limitMs(1_300, 15);
let work: string;
let replay: string;

before(() => {
  work = scratch();
  // One recorded reply: a whole fifo testbench (line coverage 80%), so a run is one build and one simulation.
  const recorded = JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8')) as {
    responses: string[];
  };
  replay = join(work, 'replay.json');
  writeFileSync(replay, JSON.stringify({ responses: [recorded.responses[0]] }));
});
after(removeScratch);

/** A private temporary folder per run, so what a run leaves there is visible. */
function runEnv(): { env: NodeJS.ProcessEnv; tmp: string } {
  const tmp = scratch('chorus-hardening-tmp-');
  return { tmp, env: { CHORUS_CACHE_DIR: suiteCache, TMPDIR: tmp } };
}

const replayArgs = (out: string, ...more: string[]) => [
  'generate',
  fifo,
  '--engine',
  'llm',
  '--model',
  `replay:${replay}`,
  '--rounds',
  '1',
  '--target',
  'line=50',
  '--out',
  out,
  ...more,
];

test("--out over a user's file: exit 2 before any work, the file unchanged; a folder, a FIFO or a symbolic link is refused even with --force", async () => {
  const dir = join(work, 'consent');
  mkdirSync(dir);
  const mine = join(dir, 'mine.sv');
  const text = 'module mine; // my own testbench, hours of work\nendmodule\n';
  writeFileSync(mine, text);
  const { env, tmp } = runEnv();
  const r = await runCli(['generate', counter, '--engine', 'random', '--out', mine], { env, cwd: dir });
  assert.equal(r.code, 2, r.stderr);
  assert.ok(
    r.stderr.includes(
      `${mine}: The file exists and was not written by CHORUS: pass --force to overwrite it, or choose another --out.`,
    ),
    r.stderr,
  );
  assert.equal(readFileSync(mine, 'utf8'), text);
  assert.doesNotMatch(r.stderr, /round 1/, 'refused before the search ran');
  assert.deepEqual(readdirSync(tmp), [], 'no run folder was even made');
  assert.deepEqual(readdirSync(dir), ['mine.sv']);

  // Renaming over these would replace the folder, the FIFO or the link itself (reading a FIFO would hang).
  const folder = join(dir, 'folder.sv');
  mkdirSync(folder);
  const fifo = join(dir, 'pipe.sv');
  execFileSync('mkfifo', [fifo]);
  const ours = join(dir, 'generated.sv');
  const oursText = `${GENERATED_MARKER}: an earlier run.\nmodule tb_old; endmodule\n`;
  writeFileSync(ours, oursText);
  const link = join(dir, 'link.sv');
  symlinkSync(ours, link);
  const refusals: [string, RegExp][] = [
    [folder, /: Not a regular file: choose a file path for --out/],
    [fifo, /: Not a regular file: choose a file path for --out/],
    [link, new RegExp(`: A symbolic link to ${ours}: pass the file itself as --out`)],
  ];
  for (const [target, why] of refusals) {
    for (const force of [[], ['--force']]) {
      const refused = await runCli(['generate', counter, '--engine', 'random', '--out', target, ...force], {
        env,
        cwd: dir,
        timeoutMs: REFUSAL_MS,
      });
      assert.equal(refused.code, 2, `${target} ${force.join(' ')}: ${refused.stderr}`);
      assert.match(refused.stderr, why);
    }
  }
  assert.ok(statSync(folder).isDirectory());
  assert.ok(statSync(fifo).isFIFO(), 'the FIFO is still a FIFO');
  assert.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link');
  assert.equal(readFileSync(ours, 'utf8'), oursText);
});

test("--force replaces a user's file; a file CHORUS wrote is replaced without it; nothing temporary stays behind", async () => {
  const dir = join(work, 'replace');
  mkdirSync(dir);
  const mine = join(dir, 'mine.sv');
  writeFileSync(mine, 'module mine; endmodule\n');
  const first = runEnv();
  const forced = await runCli(replayArgs(mine, '--force'), { env: first.env, cwd: dir });
  assert.equal(forced.code, 0, forced.stderr);
  const written = readFileSync(mine, 'utf8');
  assert.ok(written.startsWith(GENERATED_MARKER), written.slice(0, 80));
  assert.match(written, /^module tb_fifo;$/m);
  assert.deepEqual(readdirSync(first.tmp), [], 'the run removed its temporary folders');

  const ours = join(dir, 'tb_old.sv');
  writeFileSync(ours, `${GENERATED_MARKER}: an earlier run.\nmodule tb_old; endmodule\n`);
  const second = runEnv();
  const again = await runCli(replayArgs(ours), { env: second.env, cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.match(readFileSync(ours, 'utf8'), /^module tb_fifo;$/m);
  assert.doesNotMatch(readFileSync(ours, 'utf8'), /tb_old/);
  assert.deepEqual(readdirSync(second.tmp), []);
  assert.deepEqual(readdirSync(dir).sort(), ['mine.sv', 'tb_old.sv'], 'no temporary file next to the outputs');
});

test('coverage --lcov: a run that measures nothing leaves an existing tracefile as it was', async () => {
  const lcov = join(work, 'kept.info');
  // A tracefile an earlier run wrote (a user's own would need --force).
  writeFileSync(lcov, 'TN:chorus\nSF:previous\nend_of_record\n');
  const r = await runCli(['coverage', counter, '--tb', simFixture('tb_syntax_error.sv'), '--lcov', lcov], {
    env: { CHORUS_CACHE_DIR: suiteCache },
    cwd: work,
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /No coverage was measured, so .*kept\.info was not written/);
  assert.equal(readFileSync(lcov, 'utf8'), 'TN:chorus\nSF:previous\nend_of_record\n');
});

/**
 * Runs the CLI with `dir` replaced by a tiny tmpfs holding `files`, then filled to the last byte, in a private mount
 * namespace (the mount vanishes with the process; without root, a user namespace makes the mount possible).
 * Returns the CLI's result and what the folder held afterwards, read from inside the namespace.
 */
async function onFullDisk(
  dir: string,
  files: Record<string, string>,
  args: string[],
): Promise<CliResult & { listing: string[]; after: Record<string, string> }> {
  const report = scratch('chorus-hardening-report-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(report, `before-${name}`), text);
  const script = [
    'set -u',
    'dir=$1 report=$2; shift 2',
    'mount -t tmpfs -o size=256k tmpfs "$dir" || exit 97',
    'for f in "$report"/before-*; do cp "$f" "$dir/${f##*/before-}"; done',
    'dd if=/dev/zero of="$dir/filler" bs=4k 2>/dev/null', // stops at ENOSPC: the disk is full
    '"$@"; rc=$?',
    'ls -A "$dir" > "$report/listing"',
    'for f in "$report"/before-*; do cp "$dir/${f##*/before-}" "$report/after-${f##*/before-}"; done',
    'exit $rc',
  ].join('\n');
  const ns = process.getuid?.() === 0 ? ['-m'] : ['-r', '-m'];
  const child = spawn('unshare', [...ns, 'sh', '-c', script, 'sh', dir, report, process.execPath, cliPath, ...args], {
    cwd: work,
    env: { ...process.env, NO_COLOR: '1', CHORUS_CACHE_DIR: suiteCache },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.notEqual(code, 97, `could not mount a tmpfs: ${stderr}`);
  const after: Record<string, string> = {};
  for (const name of Object.keys(files)) after[name] = readFileSync(join(report, `after-${name}`), 'utf8');
  return {
    code,
    stdout,
    stderr,
    listing: readFileSync(join(report, 'listing'), 'utf8').split('\n').filter(Boolean).sort(),
    after,
  };
}

test("a full disk: generate --out and coverage --lcov fail with a clear error (exit 4, the machine's fault), keep the previous file whole and leave no temporary file", async () => {
  const disk = join(work, 'disk');
  mkdirSync(disk);
  const oldTb = `${GENERATED_MARKER}: an earlier run.\nmodule tb_fifo; endmodule\n`;
  const gen = await onFullDisk(disk, { 'tb.sv': oldTb }, replayArgs(join(disk, 'tb.sv')));
  assert.equal(gen.code, 4, gen.stderr);
  assert.ok(
    gen.stderr.includes(
      `${join(disk, 'tb.sv')}: No space left on the device while writing this file: free some space and retry.`,
    ),
    gen.stderr,
  );
  assert.doesNotMatch(gen.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(gen.after['tb.sv'], oldTb, 'the previous testbench is whole');
  assert.deepEqual(gen.listing, ['filler', 'tb.sv'], 'no temporary file left');

  const oldInfo = 'TN:chorus\nSF:previous\nend_of_record\n';
  const lcovPath = join(disk, 'out.info');
  const cov = await onFullDisk(disk, { 'out.info': oldInfo }, [
    'coverage',
    counter,
    '--tb',
    simFixture('tb_counter.sv'),
    '--lcov',
    lcovPath,
  ]);
  assert.equal(cov.code, 4, cov.stderr);
  assert.ok(cov.stderr.includes(`${lcovPath}: No space left on the device`), cov.stderr);
  assert.match(cov.stdout, /Coverage of .* ok/, 'the measured report is still printed');
  assert.match(cov.stdout, /branch\s+\d+\/\d+/);
  assert.equal(cov.after['out.info'], oldInfo, 'the previous tracefile is whole');
  assert.deepEqual(cov.listing, ['filler', 'out.info']);
});
