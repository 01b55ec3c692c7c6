/**
 * The slang front end (Yosys 0.70's read_slang, in a child process under a runtime that runs its WebAssembly) on
 * SystemVerilog Yosys 0.55 does not read: a real core's ALU and a package with assignment patterns and casts; the
 * 0.55 fallback when slang is turned off; and cancellation, which must end the child process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prove, type ProveRequest } from '../../src/formal';
import { slangFrontEnd } from '../../src/formal/runtime';
import { YosysStopped, YosysWorker } from '../../src/formal/worker';
import { prepScript, readCommands } from '../../src/formal/yosys';
import { silentLogger } from '../../src/protocol';
import { corpusPath } from '../helpers/corpus';
import { repoRoot } from '../helpers/cli';
import { services } from './support';
import { withSlang } from '../helpers/slang';

const fixture = (name: string) => join(repoRoot, 'test', 'fixtures', 'formal', name);
const lineOf = (file: string, text: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text)) + 1;
const source = (file: string) => ({ file, content: readFileSync(file, 'utf8') });

function aluRequest(): ProveRequest {
  const dir = corpusPath('real-ip-2');
  const files = readFileSync(join(dir, 'items', 'cv32e40p_alu.f'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => join(dir, l));
  const alu = files[files.length - 1];
  const arm = (text: string) => ({
    file: alu,
    line: lineOf(alu, text),
    column: 0,
    kind: 'branch' as const,
    comment: 'case',
  });
  return {
    sources: files.map(source),
    top: 'cv32e40p_alu',
    targets: [arm("VEC_MODE8:  cmp_signed[3:0] = 4'b1111;"), arm("default:    cmp_signed[3:0] = 4'b1000;")],
    runTimeoutSeconds: 600,
  };
}

test('the read command: files in the given order, defines, include folders and parameters to slang; chparam for 0.55', () => {
  const p = {
    files: ['src0_pkg.sv', 'src1_top.sv'],
    top: 'top',
    defines: { SYNTH: '', WIDTH: '8' },
    includeDirs: ['inc0'],
    parameters: { DEPTH: '16', INIT: "8'hFF" },
  };
  assert.deepEqual(readCommands({ ...p, frontEnd: 'slang' }), [
    "read_slang --threads 1 --allow-use-before-declare -D SYNTH -D WIDTH=8 -Iinc0 -G DEPTH=16 -G INIT=8'hFF src0_pkg.sv src1_top.sv --top top",
  ]);
  assert.deepEqual(readCommands({ ...p, frontEnd: 'verilog' }), [
    'read_verilog -sv -DSYNTH -DWIDTH=8 -Iinc0 src0_pkg.sv src1_top.sv',
    'chparam -set DEPTH 16 top',
    "chparam -set INIT 8'hFF top",
  ]);
  assert.throws(
    () => readCommands({ ...p, parameters: { S: '"a b"' }, frontEnd: 'slang' }),
    /cannot be passed to Yosys/,
  );
});

test('the fallback says why once, not at every run', async () => {
  const warned: string[] = [];
  const logger = { ...silentLogger, warn: (m: string) => warned.push(m) };
  await withSlang('0', async () => {
    assert.equal(await slangFrontEnd(logger), undefined);
    assert.equal(await slangFrontEnd(logger), undefined);
  });
  assert.equal(warned.length, 1, warned.join('\n'));
  assert.match(warned[0], /read_slang unavailable \(turned off \(CHORUS_FORMAL_SLANG=0\)\); Yosys 0\.55/);
});

test('a runtime for the slang front end is found (this process, the installed package, or a download)', async () => {
  const slang = await slangFrontEnd(silentLogger);
  assert.ok(slang, 'no runtime runs the slang module: see the log line of slangFrontEnd');
});

test(
  "cv32e40p's ALU (a package imported in the module header) elaborates with read_slang and is proven",
  { timeout: 600_000 },
  async () => {
    const req = aluRequest();
    const result = await withSlang(undefined, () => prove(req, services()));
    assert.equal(result.failure, undefined, result.failure);
    assert.match(result.prover ?? '', /0\.70\.\d+.*read_slang/);
    // Both arms of `case (vector_mode_i)` under the comparison operators are reachable: a witness each.
    for (const v of result.verdicts) assert.equal(v.verdict.status, 'witness', JSON.stringify(v.verdict));
  },
);

test(
  "the same ALU: Yosys 0.55's read_verilog -sv stops at the import (why slang is needed)",
  { timeout: 600_000 },
  async () => {
    const result = await withSlang('0', () => prove(aluRequest(), services()));
    assert.match(result.failure ?? '', /could not read the design/);
    assert.match(result.prover ?? '', /0\.55\.\d+/);
  },
);

test(
  'a package with assignment patterns, a cast and an automatic function: holes proven and witnessed through slang',
  { timeout: 300_000 },
  async () => {
    const file = fixture('pkgcast.sv');
    const branch = (text: string, comment: string) => ({
      file,
      line: lineOf(file, text),
      column: 0,
      kind: 'branch' as const,
      comment,
    });
    const req: ProveRequest = {
      sources: [source(file)],
      top: 'pkgcast',
      targets: [
        branch('default: state <= IDLE;', 'case'),
        branch('RUN: state <= DONE;', 'case'),
        branch("if (count > 4'd8)", 'if'),
      ],
    };
    const slang = await withSlang(undefined, () => prove(req, services()));
    assert.equal(slang.failure, undefined, slang.failure);
    const [dflt, run, big] = slang.verdicts.map((v) => v.verdict);
    assert.equal(dflt.status, 'unreachable', JSON.stringify(dflt));
    assert.equal(run.status, 'witness', JSON.stringify(run));
    assert.equal(big.status, 'unreachable', JSON.stringify(big));
    if (run.status === 'witness') {
      // RUN follows a cycle in IDLE with d[0] set, after the reset pulse.
      const rows = run.witness.rows;
      assert.ok(
        rows.some((r, i) => i >= run.witness.resetCycles && (parseInt(r.d, 16) & 1) === 1),
        JSON.stringify(rows),
      );
    }
    // Yosys 0.55 does not read it: every verdict unknown with the reason.
    const old = await withSlang('0', () => prove(req, services()));
    assert.match(old.failure ?? '', /could not read the design/);
    assert.ok(old.verdicts.every((v) => v.verdict.status === 'unknown'));
  },
);

test('with slang turned off, the 0.55 fallback still proves a plain design', { timeout: 300_000 }, async () => {
  const file = fixture('fsm5.sv');
  const req: ProveRequest = {
    sources: [source(file)],
    top: 'fsm5',
    targets: [{ file, line: lineOf(file, "default: state <= 3'd0;"), column: 0, kind: 'branch', comment: 'case' }],
  };
  const result = await withSlang('0', () => prove(req, services()));
  assert.match(result.prover ?? '', /yosys 0\.55\.\d+ \(@yowasp\/yosys\)$/);
  assert.equal(result.verdicts[0].verdict.status, 'unreachable', JSON.stringify(result.verdicts[0].verdict));
});

test('cancelling a slang run kills its child process', { timeout: 120_000 }, async () => {
  const slang = await slangFrontEnd(silentLogger);
  assert.ok(slang);
  const req = aluRequest();
  const ac = new AbortController();
  const worker = new YosysWorker({ signal: ac.signal, deadlineMs: 600_000, memoryMb: 2048, slang });
  assert.ok(worker.pid !== undefined);
  let exitedAt: number | undefined;
  const exited = worker.exited.then(() => (exitedAt = Date.now()));
  const tree = Object.fromEntries(req.sources.map((s, i) => [`s${i}.sv`, s.content]));
  const script = prepScript({
    files: Object.keys(tree),
    top: req.top,
    defines: {},
    includeDirs: [],
    parameters: {},
    mapMemories: true,
    frontEnd: 'slang',
  });
  const running = worker.run(['-p', script], tree);
  // Stopped while it loads the module or elaborates (the run takes seconds).
  setTimeout(() => ac.abort(), 300);
  const abortedAt = Date.now();
  await assert.rejects(running, (e: unknown) => e instanceof YosysStopped && e.why === 'aborted');
  await exited;
  assert.ok(exitedAt !== undefined && exitedAt - abortedAt < 30_000);
  // The group is gone with its leader: signal 0 to it finds nothing.
  assert.throws(() => process.kill(-worker.pid!, 0), /ESRCH/);
});
