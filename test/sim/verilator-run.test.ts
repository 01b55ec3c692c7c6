// Build and run with real Verilator: exact counts, merging and lcov checked against verilator_coverage,
// bounded runs, compile and runtime errors, timeouts that leave no process behind, a missing Verilator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildSimulation,
  detectVerilator,
  lineCoverage,
  measureCoverage,
  mergePoints,
  parseCoverageDat,
  readCoverageFile,
  runSimulation,
  summarize,
  toLcov,
  type BuildResult,
  type SimOptions,
} from '../../src/sim';
import { ChorusError, type CoveragePoint } from '../../src/protocol';
import { hasExited } from '../../src/sim/process/processTree';
import {
  counterRtl,
  fixture,
  lcovLines,
  lineOf,
  processesMentioning,
  suiteCache,
  verilatorCoverage,
} from './simFixtures';

const opts: SimOptions = { cacheDir: suiteCache };
const tbCounter = fixture('tb_counter.sv');
let work: string;
let counter: BuildResult;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'chorus-sim-test-'));
  counter = await buildSimulation({ dutFiles: [counterRtl], testbench: tbCounter }, opts);
  assert.equal(counter.status, 'ok', JSON.stringify(counter.diagnostics));
});

after(() => rmSync(work, { recursive: true, force: true }));

async function runCounter(name: string, plusargs: string[], extra: { timeoutMs?: number } = {}) {
  const coverageFile = join(work, name, 'coverage.dat');
  const run = await runSimulation({ binary: counter.binary!, coverageFile, plusargs, ...extra }, opts);
  return { run, coverageFile };
}

test('exact counts on the counter with known holes, matching verilator_coverage', async () => {
  const { run, coverageFile } = await runCounter('up', []);
  assert.equal(run.status, 'ok', run.output);
  assert.equal(run.stop, 'finish');
  assert.equal(run.bounded, false);
  assert.equal(run.coverageWritten, true);
  const points = await readCoverageFile(coverageFile, [counterRtl]);

  // Derived from the stimulus and confirmed with verilator_coverage: the run never uses mode 2'b10 (its
  // case item and both arms of its underflow check stay dark), never holds with enable high (default item),
  // and never underflows (the underflow output never toggles).
  const { line, branch, toggle } = summarize(points);
  assert.deepEqual(
    { line, branch, toggle },
    {
      line: { covered: 4, total: 6, pct: 66.6 },
      branch: { covered: 4, total: 6, pct: 66.6 },
      toggle: { covered: 22, total: 23, pct: 95.6 },
    },
  );
  const zero = points.filter((p) => p.count === 0).map((p) => `${p.line} ${p.kind} ${p.comment}`);
  assert.deepEqual(
    zero.sort(),
    ['12 toggle underflow', '29 line case', '30 branch else', '30 branch if', '34 line case'].sort(),
  );
  assert.ok(
    points.every((p) => p.hierarchy === 'TOP.tb_counter.uut' && p.module === 'counter' && p.file === counterRtl),
  );

  // verilator_coverage's own lcov over the same coverage.dat: the same source lines, the same dark lines.
  const info = join(work, 'up', 'reference.info');
  verilatorCoverage(['--write-info', info, coverageFile]);
  const reference = lcovLines(readFileSync(info, 'utf8'), counterRtl);
  const ours = lcovLines(toLcov(points), counterRtl);
  assert.deepEqual(
    [...ours.keys()].sort((a, b) => a - b),
    [...reference.keys()].sort((a, b) => a - b),
  );
  const dark = (m: Map<number, number>) =>
    [...m]
      .filter(([, n]) => n === 0)
      .map(([l]) => l)
      .sort((a, b) => a - b);
  assert.deepEqual(dark(ours), dark(reference));
  assert.deepEqual(dark(ours), [12, 29, 30, 31, 34]);
});

test('merging two runs equals verilator_coverage --write of the same files', async () => {
  const up = await runCounter('m-up', []);
  const down = await runCounter('m-down', ['+down']);
  assert.equal(down.run.status, 'ok', down.run.output);
  const a = await readCoverageFile(up.coverageFile, [counterRtl]);
  const b = await readCoverageFile(down.coverageFile, [counterRtl]);
  const merged = mergePoints(a, b);
  const refFile = join(work, 'merged.dat');
  verilatorCoverage(['--write', refFile, up.coverageFile, down.coverageFile]);
  const reference = mergePoints(await readCoverageFile(refFile, [counterRtl]));
  assert.deepEqual(merged, reference);
  // The two stimuli complement each other: together they reach every point.
  const s = summarize(merged);
  assert.deepEqual([s.line.pct, s.branch.pct, s.toggle.pct], [100, 100, 100]);
  assert.ok(summarize(b).toggle.covered < s.toggle.covered);
  // Counts add up point by point.
  const count = (list: CoveragePoint[], line: number, comment: string) =>
    list.find((p) => p.line === line && p.comment === comment)?.count ?? 0;
  assert.equal(count(merged, 16, 'block'), count(a, 16, 'block') + count(b, 16, 'block'));
});

test('lcov of a run marks missed toggles on their declaration line', async () => {
  const { coverageFile } = await runCounter('lcov-down', ['+down']);
  const points = await readCoverageFile(coverageFile, [counterRtl]);
  const loadValueLine = lineOf(counterRtl, 'load_value,');
  const lc = lineCoverage(points).find((l) => l.line === loadValueLine);
  assert.equal(lc?.missingToggles.length, 8);
  const info = toLcov(points, () => 'examples/counter/counter.sv');
  assert.match(info, /^SF:examples\/counter\/counter\.sv$/m);
  assert.match(info, new RegExp(`^DA:${loadValueLine},0$`, 'm'));
});

test('a runtime $fatal is a sim_error at the testbench line, with coverage kept', async () => {
  const { run } = await runCounter('fatal', ['+fatal']);
  assert.equal(run.status, 'sim_error');
  assert.equal(run.coverageWritten, true);
  const errors = run.diagnostics.filter((d) => d.severity === 'error');
  assert.equal(errors.length, 1, JSON.stringify(run.diagnostics));
  assert.equal(errors[0].line, lineOf(tbCounter, '$fatal(1'));
  assert.match(errors[0].message, /deliberate failure for the test/);
});

test('a wall-clock timeout kills the whole process group: no process is left', async () => {
  const binary = counter.binary!;
  const seen: number[] = [];
  const poll = setInterval(() => seen.push(...processesMentioning(binary)), 50);
  let run;
  try {
    ({ run } = await runCounter('hang', ['+hang'], { timeoutMs: 2500 }));
  } finally {
    clearInterval(poll);
  }
  assert.ok(seen.length > 0, 'the simulator was observed running');
  assert.equal(run.status, 'timeout');
  assert.equal(run.bounded, true);
  assert.equal(run.coverageWritten, false);
  assert.deepEqual(processesMentioning(binary), []);
  // Every process seen during the run has exited (a zombie waiting for init to reap it has exited too).
  for (const pid of new Set(seen)) assert.ok(hasExited(pid), `process ${pid} still runs`);
});

test('cancelling a run or a build kills its processes and rejects with cancelled', async () => {
  const isCancelled = (err: unknown) => err instanceof ChorusError && err.kind === 'cancelled';
  const binary = counter.binary!;
  const runAbort = new AbortController();
  const watcher = setInterval(() => {
    if (processesMentioning(binary).length) runAbort.abort();
  }, 50);
  try {
    await assert.rejects(
      runSimulation(
        { binary, coverageFile: join(work, 'abort', 'coverage.dat'), plusargs: ['+hang'], timeoutMs: 60_000 },
        { ...opts, signal: runAbort.signal },
      ),
      isCancelled,
    );
  } finally {
    clearInterval(watcher);
  }
  assert.deepEqual(processesMentioning(binary), []);
  // Cancelling while the jail is still starting: its inner process (another session) must not survive either.
  for (const delay of [0, 5, 15, 30, 60]) {
    const early = new AbortController();
    setTimeout(() => early.abort(), delay);
    const run = runSimulation(
      { binary, coverageFile: join(work, `abort-${delay}`, 'coverage.dat'), plusargs: ['+hang'], timeoutMs: 60_000 },
      { ...opts, signal: early.signal },
    );
    await assert.rejects(run, isCancelled);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(processesMentioning(binary), [], `nothing left after a cancel at ${delay} ms`);
  }

  // A build in a private cache: every process under it is this build's (Verilator, make, the compilers).
  const cache = join(work, 'abort-cache');
  const buildAbort = new AbortController();
  let seen = 0;
  const buildWatcher = setInterval(() => {
    seen = Math.max(seen, processesMentioning(cache).length);
    if (seen) buildAbort.abort();
  }, 20);
  try {
    await assert.rejects(
      buildSimulation({ dutFiles: [counterRtl], testbench: tbCounter }, { cacheDir: cache, signal: buildAbort.signal }),
      isCancelled,
    );
  } finally {
    clearInterval(buildWatcher);
  }
  assert.ok(seen > 0, 'the build was observed running');
  assert.deepEqual(processesMentioning(cache), []);
  assert.deepEqual(readdirSync(join(cache, 'sim-v1', 'tmp')), [], 'the unfinished build left nothing behind');
});

test('a testbench without $finish stops at the simulated-time bound and keeps its coverage', async () => {
  const build = await buildSimulation({ dutFiles: [counterRtl], testbench: fixture('tb_counter_nofinish.sv') }, opts);
  assert.equal(build.status, 'ok', JSON.stringify(build.diagnostics));
  const coverageFile = join(work, 'nofinish', 'coverage.dat');
  const run = await runSimulation({ binary: build.binary!, coverageFile, maxSimTime: 2000 }, opts);
  assert.equal(run.status, 'ok', run.output);
  assert.equal(run.stop, 'simtime');
  assert.equal(run.bounded, true);
  assert.equal(run.coverageWritten, true);
  // 1ns units, 1ps precision: the bound is 2000 ns.
  assert.ok(run.simTime !== undefined && run.simTime <= 2000 * 1000, String(run.simTime));
  const points = await readCoverageFile(coverageFile, [counterRtl]);
  const s = summarize(points);
  // Counting up for ~200 cycles toggles every count bit.
  assert.equal(points.filter((p) => p.kind === 'toggle' && p.comment.startsWith('count[') && p.count > 0).length, 8);
  assert.ok(s.line.covered > 0);

  // Without a simulated-time bound the simulator stops itself at the wall-clock deadline, still writing coverage.
  const deadlineFile = join(work, 'nofinish-deadline', 'coverage.dat');
  const capped = await runSimulation(
    { binary: build.binary!, coverageFile: deadlineFile, maxSimTime: 0, timeoutMs: 2500 },
    opts,
  );
  assert.equal(capped.status, 'timeout');
  assert.equal(capped.stop, 'deadline');
  assert.equal(capped.coverageWritten, true);
  assert.ok((await readCoverageFile(deadlineFile, [counterRtl])).length > 0);
});

test('with checkpoints a run says when it last hit a new point, and counts the same points', async () => {
  // The stimulus reaches its points by 100 ns; 1000 idle cycles (10 us) follow that reach nothing new.
  const build = await buildSimulation({ dutFiles: [counterRtl], testbench: fixture('tb_counter_idle.sv') }, opts);
  assert.equal(build.status, 'ok', JSON.stringify(build.diagnostics));
  const runIdle = async (name: string, checkpointUnits?: number, knownPointsFile?: string) => {
    const coverageFile = join(work, name, 'coverage.dat');
    const run = await runSimulation({ binary: build.binary!, coverageFile, checkpointUnits, knownPointsFile }, opts);
    assert.equal(run.status, 'ok', run.output);
    return { run, points: await readCoverageFile(coverageFile, [counterRtl]) };
  };
  const plain = await runIdle('idle-plain');
  const counted = await runIdle('idle-checkpoints', 50);
  assert.equal(plain.run.grewAt, undefined, 'no checkpoints asked, none reported');
  const { run } = counted;
  assert.ok(run.simTime !== undefined && run.simTime >= 10_000 * 1000, `ran to ${run.simTime} ps`);
  // The last checkpoint at which more points were hit: after the stimulus, at most one interval later. Verilator
  // 5.006 keeps its counters where the main counts them; 5.050 keeps them per module, and nothing is said there.
  const verilator = await detectVerilator();
  if (verilator.major === 5 && verilator.minor === 6) assert.notEqual(run.grewAt, undefined, 'counted on 5.006');
  if (run.grewAt !== undefined) {
    assert.ok(run.grewAt >= 50 && run.grewAt <= 200, `grew at ${run.grewAt} ns`);
    assert.equal(run.freshAt?.at(-1), run.grewAt, 'the last fresh checkpoint is the last growth');
  }
  assert.deepEqual(counted.points, plain.points);
  assert.ok(counted.points.some((p) => p.count > 0));

  // With a file of the points earlier runs hit, only points none of them hit are new: the same stimulus again
  // finds nothing new, and the file holds what the first run hit.
  const known = join(work, 'idle known points.bin');
  const first = await runIdle('idle-known-1', 50, known);
  const again = await runIdle('idle-known-2', 50, known);
  assert.deepEqual(again.points, plain.points);
  if (first.run.grewAt !== undefined) {
    assert.ok((first.run.freshAt ?? []).length > 0, 'the first run found points new to the file');
    assert.ok(statSync(known).size > 0, 'the file holds a byte per counter');
    assert.deepEqual(again.run.freshAt, [], 'nothing new the second time');
    assert.equal(again.run.grewAt, 0);
  } else assert.equal(again.run.freshAt, undefined, 'nothing counted, nothing said');
});

test('a compile error is mapped to the testbench line', async () => {
  const tb = fixture('tb_syntax_error.sv');
  const build = await buildSimulation({ dutFiles: [counterRtl], testbench: tb }, opts);
  assert.equal(build.status, 'compile_error');
  assert.equal(build.binary, undefined);
  const err = build.diagnostics.find((d) => d.severity === 'error');
  assert.ok(err, JSON.stringify(build.diagnostics));
  assert.equal(err.file, tb);
  assert.equal(err.line, lineOf(tb, '$finish;'));
  assert.ok(err.column > 0);
  assert.match(err.message, /syntax error/);
});

test('a testbench the sandbox rejects is never built', async () => {
  const tb = fixture('tb_rejected.sv');
  const build = await buildSimulation({ dutFiles: [counterRtl], testbench: tb }, opts);
  assert.equal(build.status, 'rejected');
  assert.equal(build.binary, undefined);
  assert.ok(build.diagnostics.length > 0);
  assert.ok(build.diagnostics.every((d) => d.severity === 'error'));
  assert.equal(build.diagnostics[0].line, lineOf(tb, '$system'));
});

test('a design Verilator cannot build without loop unrolling is rebuilt with it, and says so', async () => {
  const build = await buildSimulation({ dutFiles: [fixture('shreg.sv')], testbench: fixture('tb_shreg.sv') }, opts);
  assert.equal(build.status, 'ok', JSON.stringify(build.diagnostics));
  // 5.006 rejects this loop rolled (BLKLOOPINIT); Verilators with --unroll-limit (5.050 here) build it with
  // --unroll-count 0, so no rebuild and no note.
  if ((await detectVerilator()).features.unrollLimit) {
    assert.deepEqual(build.notes, []);
    return;
  }
  assert.equal(build.notes.length, 1);
  assert.match(build.notes[0], /--unroll-count 0.*false holes/);
  const r = await measureCoverage({ dutFiles: [fixture('shreg.sv')], testbench: fixture('tb_shreg.sv') }, opts);
  assert.equal(r.status, 'ok');
  assert.deepEqual(r.notes, build.notes);
});

test('measureCoverage scopes to the DUT top and reports a testbench that does not instantiate it', async () => {
  const r = await measureCoverage({ dutFiles: [counterRtl], testbench: tbCounter, dutTop: 'counter' }, opts);
  assert.equal(r.status, 'ok');
  assert.deepEqual(r.coverage.branch, { covered: 4, total: 6, pct: 66.6 });
  assert.deepEqual(Object.keys(r.instances), ['TOP.tb_counter.uut']);
  assert.equal(r.holes.length, 5);
  assert.equal(r.holes[0].file, counterRtl);
  assert.equal(r.holes[0].source, 'output logic             underflow');
  const wrong = await measureCoverage({ dutFiles: [counterRtl], testbench: tbCounter, dutTop: 'fifo' }, opts);
  assert.equal(wrong.status, 'sim_error');
  assert.match(wrong.diagnostics.map((d) => d.message).join('\n'), /does not instantiate the DUT top module 'fifo'/);
  assert.equal(wrong.coverage.line.pct, 0);
});

test('a testbench without a module, or without the DUT, measures nothing and says why', async () => {
  const empty = join(work, 'tb_empty.sv');
  writeFileSync(empty, '// only a comment: module tb; endmodule\n');
  const build = await buildSimulation({ dutFiles: [counterRtl], testbench: empty }, opts);
  assert.equal(build.status, 'compile_error');
  assert.match(build.diagnostics[0].message, /No module declared/);
  assert.equal(build.diagnostics[0].file, empty);

  const lonely = join(work, 'tb_lonely.sv');
  writeFileSync(lonely, 'module tb_lonely; initial begin #5; $finish; end endmodule\n');
  const r = await measureCoverage({ dutFiles: [counterRtl], testbench: lonely }, opts);
  assert.equal(r.status, 'sim_error');
  assert.match(r.diagnostics.map((d) => d.message).join('\n'), /instantiates no module of the DUT files/);
  assert.deepEqual(r.coverage.line, { covered: 0, total: 0, pct: 0 });
});

test('a missing or too old Verilator is a missing_tool error with the install command', async () => {
  const isMissing = (err: unknown) =>
    err instanceof ChorusError && err.kind === 'missing_tool' && /apt-get install verilator/.test(err.message);
  await assert.rejects(detectVerilator('/nonexistent/bin/verilator'), isMissing);
  await assert.rejects(
    buildSimulation(
      { dutFiles: [counterRtl], testbench: tbCounter },
      { ...opts, verilatorPath: '/nonexistent/bin/verilator' },
    ),
    isMissing,
  );
  const old = join(work, 'verilator-old');
  writeFileSync(old, '#!/bin/sh\necho "Verilator 4.038 2020-07-11 rev v4.036-114-g0cd4a57ad"\n');
  chmodSync(old, 0o755);
  await assert.rejects(
    detectVerilator(old),
    (err: unknown) => isMissing(err) && /too old/.test((err as Error).message),
  );
  const real = await detectVerilator();
  assert.ok(real.major > 5 || (real.major === 5 && real.minor >= 6), real.version);
});

test('a damaged coverage.dat from a run is reported, not half-read', async () => {
  const { coverageFile } = await runCounter('damaged', []);
  const text = readFileSync(coverageFile, 'utf8');
  assert.ok(parseCoverageDat(text, [counterRtl], coverageFile).length > 0);
  writeFileSync(coverageFile, text.slice(0, Math.floor(text.length / 2)));
  await assert.rejects(
    readCoverageFile(coverageFile, [counterRtl]),
    (err: unknown) => err instanceof ChorusError && err.kind === 'failed',
  );
});
