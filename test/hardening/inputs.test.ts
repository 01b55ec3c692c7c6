// Hostile inputs and outputs through the built CLI and language server: a device (/dev/zero, /dev/urandom) or a FIFO
// as a DUT, testbench, filelist or library is refused naming it (exit 2), at once and never read; the language server
// answers such a document with an error and stays up; one Ctrl-C ends a running `generate` within 2 s with exit 130
// and nothing it started left, whatever it waits on; and no output option (`--lcov`, `--out`, `bench --out`)
// replaces a design input, or a file CHORUS did not write without --force.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isChorusErrorData, Requests } from '../../src/protocol';
import type { ToolLogEntry } from '../../src/sim/process/toolLog';
import { ensureFreshCli, repoRoot, runCli } from '../helpers/cli';
import { request, startServer } from '../helpers/lsp';
import { waitFor } from '../helpers/procs';
import { limitMs } from '../helpers/time-limits';
import { example, fakeTool, removeScratch, scratch, simFixture, startCli, startTime, suiteCache } from './support';

ensureFreshCli();
after(removeScratch);

const counter = example('counter');
// A refusal ends before any tool runs: 0.2 s each at load average 0.3 here (helpers/time-limits.ts; the floor rules).
const REFUSAL_MS = limitMs(200, 0.3);
/**
 * The requirement is 2 s from the signal to the exit; the slack is for a machine at load 8 on 2 cores, where a
 * timer or a /proc walk may wait its turn for a second or more. Measured here: 20 ms (a run that stops on its
 * signal) and 1.51 s (one that does not, ended by the grace timer), at load average 0.3.
 */
const STOP_MS = 2_000 + 3_000;
// Until a tool of the run has started: the first Verilator lint of a cold run, 0.8 s at load average 0.3 here.
const TOOL_START_MS = limitMs(800, 0.3);

function fifoAt(path: string): string {
  execFileSync('mkfifo', [path]);
  return path;
}

test('a device as the DUT or the testbench: exit 2 naming it, at once, nothing read', async () => {
  const cwd = scratch();
  const env = { CHORUS_CACHE_DIR: suiteCache };
  for (const args of [
    ['inspect', '/dev/zero'],
    ['generate', '/dev/zero', '--engine', 'random'],
    ['generate', '/dev/urandom', '--engine', 'random'],
  ]) {
    const started = Date.now();
    const r = await runCli(args, { cwd, env, timeoutMs: REFUSAL_MS });
    process.stderr.write(`# chorus ${args.join(' ')}: exit ${r.code} in ${Date.now() - started} ms\n`);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `${args[1]}: This is a device, not a regular file: CHORUS reads a source file only from a regular file`,
      ),
    );
  }
  const tb = await runCli(['coverage', counter, '--tb', '/dev/zero'], { cwd, env, timeoutMs: REFUSAL_MS });
  assert.equal(tb.code, 2, tb.stderr);
  assert.match(
    tb.stderr,
    /\/dev\/zero: This is a device, not a regular file: CHORUS reads a testbench only from a regular file/,
  );
});

test('a device in a filelist, as a source or a -v library: exit 2 naming the list, the line and the device', async () => {
  const dir = scratch();
  const asSource = join(dir, 'source.f');
  writeFileSync(asSource, `${counter}\n/dev/zero\n`);
  const asLibrary = join(dir, 'library.f');
  writeFileSync(asLibrary, `-v /dev/urandom\n${counter}\n`);
  for (const [list, line, device] of [
    [asSource, 2, '/dev/zero'],
    [asLibrary, 1, '/dev/urandom'],
  ] as const) {
    for (const command of ['inspect', 'generate']) {
      const r = await runCli([command, '--filelist', list, ...(command === 'generate' ? ['--engine', 'random'] : [])], {
        cwd: dir,
        timeoutMs: REFUSAL_MS,
      });
      assert.equal(r.code, 2, r.stderr);
      assert.ok(
        r.stderr.includes(
          `${list}:${line}: ${device} is a device, FIFO or socket, not a regular file: name the file itself.`,
        ),
        r.stderr,
      );
    }
  }
  const listIsDevice = await runCli(['inspect', '--filelist', '/dev/zero'], { cwd: dir, timeoutMs: REFUSAL_MS });
  assert.equal(listIsDevice.code, 2, listIsDevice.stderr);
  assert.match(listIsDevice.stderr, /\/dev\/zero: This is a device, FIFO or socket, not a regular file/);
});

test('a FIFO as the DUT, the testbench or a filelist: exit 2 naming it, no hang, the FIFO left as it was', async () => {
  const dir = scratch();
  const pipe = fifoAt(join(dir, 'dut.sv'));
  const list = join(dir, 'design.f');
  writeFileSync(list, `${pipe}\n`);
  const listPipe = fifoAt(join(dir, 'pipe.f'));
  const cases: [string[], RegExp][] = [
    [
      ['generate', pipe, '--engine', 'random'],
      new RegExp(`${pipe}: This is a FIFO \\(named pipe\\), not a regular file`),
    ],
    [['inspect', pipe], new RegExp(`${pipe}: This is a FIFO`)],
    [
      ['coverage', counter, '--tb', pipe],
      new RegExp(`${pipe}: This is a FIFO \\(named pipe\\), not a regular file: CHORUS reads a testbench`),
    ],
    [
      ['generate', '--filelist', list, '--engine', 'random'],
      new RegExp(`${list}:1: ${pipe} is a device, FIFO or socket`),
    ],
    [['inspect', '--filelist', listPipe], new RegExp(`${listPipe}: This is a device, FIFO or socket`)],
  ];
  for (const [args, why] of cases) {
    const r = await runCli(args, { cwd: dir, env: { CHORUS_CACHE_DIR: suiteCache }, timeoutMs: REFUSAL_MS });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, why);
  }
  assert.ok(statSync(pipe).isFIFO() && statSync(listPipe).isFIFO(), 'the FIFOs are still FIFOs');
});

/** The tool log's entries so far (a line being written is left for the next look). */
function toolLog(path: string): ToolLogEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.endsWith('}'))
    .map((l) => JSON.parse(l) as ToolLogEntry);
}

/**
 * Starts `generate` on the counter, sends one SIGINT once `ready` holds for the tool log, and returns the exit, the
 * time from the signal to it, and the tools the log named (with their start times when the signal went).
 */
async function interruptGenerate(env: NodeJS.ProcessEnv, ready: (log: ToolLogEntry[]) => boolean) {
  const dir = scratch();
  const log = join(dir, 'tools.jsonl');
  const { child, done } = startCli(
    ['generate', counter, '--engine', 'random', '--budget-seconds', '60', '--out', join(dir, 'tb.sv')],
    {
      cwd: dir,
      env: { CHORUS_CACHE_DIR: scratch('chorus-inputs-cache-'), CHORUS_TOOL_LOG: log, ...env },
    },
  );
  let exited = false;
  void done.then(() => (exited = true));
  try {
    assert.ok(await waitFor(() => exited || ready(toolLog(log)), TOOL_START_MS, 20), 'the run started its tools');
    if (exited) assert.fail(`the run ended before the signal: ${(await done).stderr}`);
    const tools = toolLog(log).map((e) => ({ ...e, start: e.pid === undefined ? undefined : startTime(e.pid) }));
    const signalled = performance.now();
    child.kill('SIGINT');
    const r = await done;
    const ms = performance.now() - signalled;
    return { ...r, ms, tools };
  } finally {
    if (!exited) child.kill('SIGKILL');
  }
}

/** Each tool the log names that was alive at the signal is gone now (same pid and start time: not a later process). */
function assertGone(tools: (ToolLogEntry & { start?: string | undefined })[]): void {
  const left = tools.filter((t) => t.pid !== undefined && t.start !== undefined && startTime(t.pid) === t.start);
  assert.deepEqual(
    left.map((t) => `${t.pid} ${t.tool} ${t.toolArgs.slice(0, 3).join(' ')}`),
    [],
    'no tool the run started is left',
  );
}

test('one SIGINT ends a running generate within 2 s: exit 130, every tool it started gone', async () => {
  const r = await interruptGenerate({}, (log) => log.some((e) => e.role === 'run'));
  process.stderr.write(`# SIGINT mid-run: exit ${r.code} ${(r.ms / 1000).toFixed(2)} s after the signal\n`);
  assert.equal(r.code, 130, r.stderr);
  assert.ok(
    r.ms <= STOP_MS,
    `ended ${Math.round(r.ms)} ms after the signal (the requirement is 2 s, ${STOP_MS} ms with slack for load)`,
  );
  assertGone(r.tools);
});

test('one SIGINT ends generate within 2 s even when what it waits on ignores the cancel: its tools are killed, exit 130', async () => {
  // A Verilator that never answers its version probe: a wait no AbortSignal reaches (a probe has no group of its own).
  const fake = fakeTool(scratch(), 'verilator', 'exec sleep 300');
  const r = await interruptGenerate({ CHORUS_VERILATOR: fake }, (log) => log.some((e) => e.tool === fake));
  process.stderr.write(`# SIGINT during a hung probe: exit ${r.code} ${(r.ms / 1000).toFixed(2)} s after the signal\n`);
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /Stopped: the command did not end within 1\.5 s/);
  assert.ok(
    r.ms <= STOP_MS,
    `ended ${Math.round(r.ms)} ms after the signal (the requirement is 2 s, ${STOP_MS} ms with slack for load)`,
  );
  assert.ok(
    r.tools.some((t) => t.tool === fake && t.start !== undefined),
    'the hung probe was running at the signal',
  );
  assertGone(r.tools);
});

test('the language server answers chorus/tops on a device or a FIFO with an error naming it, and stays up', async () => {
  const dir = scratch();
  const pipe = fifoAt(join(dir, 'pipe.sv'));
  const lsp = await startServer(() => ({}));
  try {
    for (const path of ['/dev/zero', '/dev/urandom', pipe]) {
      const err = await request(lsp.conn, Requests.tops, { uri: pathToFileURL(path).toString() }).then(
        () => assert.fail(`${path}: answered as a design`),
        (e: { message: string; data?: unknown }) => e,
      );
      assert.ok(isChorusErrorData(err.data) && err.data.kind === 'bad_input', JSON.stringify(err));
      assert.ok(err.message.includes(path) && /not a regular file/.test(err.message), err.message);
    }
    const fifo = join(repoRoot, 'examples', 'fifo', 'fifo.sv');
    assert.deepEqual(
      await request(lsp.conn, Requests.tops, { uri: pathToFileURL(fifo).toString() }),
      { modules: ['fifo'], tops: ['fifo'], candidates: ['fifo'] },
      'still answering',
    );
    assert.equal(lsp.server.exitCode, null, 'the server is alive');
  } finally {
    await lsp.close();
  }
});

test("coverage --lcov never replaces the design or the testbench, even with --force; a user's tracefile only with --force", async () => {
  const dir = scratch();
  const dut = join(dir, 'dut.sv');
  const tb = join(dir, 'tb.sv');
  copyFileSync(counter, dut);
  copyFileSync(simFixture('tb_counter.sv'), tb);
  const design = readFileSync(dut, 'utf8');
  const bench = readFileSync(tb, 'utf8');
  const env = { CHORUS_CACHE_DIR: suiteCache };
  for (const [target, shown] of [
    [dut, 'dut.sv'],
    [tb, 'tb.sv'],
    ['./dut.sv', 'dut.sv'],
  ]) {
    for (const force of [[], ['--force']]) {
      const r = await runCli(['coverage', 'dut.sv', '--tb', 'tb.sv', '--lcov', target, ...force], {
        cwd: dir,
        env,
        timeoutMs: REFUSAL_MS,
      });
      assert.equal(r.code, 2, `--lcov ${target} ${force.join(' ')}: ${r.stderr}`);
      assert.ok(
        r.stderr.includes(`This is an input of the run (${shown}): --lcov never replaces one, not even with --force`),
        r.stderr,
      );
      assert.equal(r.stdout, '', 'refused before the build');
    }
  }
  assert.equal(readFileSync(dut, 'utf8'), design, 'the design is unchanged');
  assert.equal(readFileSync(tb, 'utf8'), bench, 'the testbench is unchanged');

  const mine = join(dir, 'mine.info');
  const theirs = 'TN:\nSF:elsewhere.sv\nDA:1,1\nend_of_record\n';
  writeFileSync(mine, theirs);
  const refused = await runCli(['coverage', 'dut.sv', '--tb', 'tb.sv', '--lcov', mine], {
    cwd: dir,
    env,
    timeoutMs: REFUSAL_MS,
  });
  assert.equal(refused.code, 2, refused.stderr);
  assert.ok(
    refused.stderr.includes(
      `${mine}: The file exists and was not written by CHORUS: pass --force to overwrite it, or choose another --lcov.`,
    ),
    refused.stderr,
  );
  assert.equal(readFileSync(mine, 'utf8'), theirs);
  const forced = await runCli(['coverage', 'dut.sv', '--tb', 'tb.sv', '--lcov', mine, '--force'], { cwd: dir, env });
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(readFileSync(mine, 'utf8'), /^TN:chorus\nSF:dut\.sv\n/);
  // Now CHORUS's own tracefile: replaced without --force.
  const again = await runCli(['coverage', 'dut.sv', '--tb', 'tb.sv', '--lcov', mine], { cwd: dir, env });
  assert.equal(again.code, 0, again.stderr);
});

test('generate --out never replaces a design file, even with --force', async () => {
  const dir = scratch();
  const dut = join(dir, 'tb_counter.sv');
  copyFileSync(counter, dut);
  const design = readFileSync(dut, 'utf8');
  // Given as --out, and as the default path (tb_<top>.sv, here the design itself).
  for (const out of [['--out', dut], []]) {
    const r = await runCli(['generate', dut, '--engine', 'random', '--force', ...out], {
      cwd: dir,
      env: { CHORUS_CACHE_DIR: suiteCache },
      timeoutMs: REFUSAL_MS,
    });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(`${dut}: This is an input of the run`), r.stderr);
    assert.doesNotMatch(r.stderr, /round 1/, 'refused before the search ran');
  }
  assert.equal(readFileSync(dut, 'utf8'), design);
});

test('bench --out: a folder with files chorus bench did not write is refused without --force; its own output is replaced', async () => {
  const dir = scratch();
  // One bad item: the bench reports it as an error without building anything.
  const dataset = join(dir, 'items.jsonl');
  writeFileSync(dataset, '{"id":"a"}\n');
  const out = join(dir, 'report');
  mkdirSync(out);
  const notes = '# My notes\n';
  writeFileSync(join(out, 'summary.md'), notes);
  const refused = await runCli(['bench', dataset, '--out', out], { cwd: dir, timeoutMs: REFUSAL_MS });
  assert.equal(refused.code, 2, refused.stderr);
  assert.ok(
    refused.stderr.includes(
      `${out}: The folder holds summary.md, not written by chorus bench: pass --force to replace them, or choose another --out.`,
    ),
    refused.stderr,
  );
  assert.equal(readFileSync(join(out, 'summary.md'), 'utf8'), notes);

  const forced = await runCli(['bench', dataset, '--out', out, '--force'], { cwd: dir, timeoutMs: REFUSAL_MS });
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(readFileSync(join(out, 'summary.md'), 'utf8'), /^# chorus bench/);
  const again = await runCli(['bench', dataset, '--out', out], { cwd: dir, timeoutMs: REFUSAL_MS });
  assert.equal(again.code, 0, again.stderr);
});
