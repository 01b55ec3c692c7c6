// Resource limits without tools: sizes as users write them, how a limit hit is read from a step's end, which
// failures may retry without --unroll-count 0 (only Verilator's own diagnostic), and naming the big declaration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { biggestConstruct, describeConstruct, evaluate } from '../../src/sim/verilator/bigDeclarations';
import { rejectedUnrolling, serialRetry } from '../../src/sim/verilator/compile';
import { formatBytes, killedBy, limitFromExit, parseByteSize, toolMemoryBytes } from '../../src/sim/process/limits';
import { edaBullets, nextInstruction } from '../../src/engine/llm/feedback';
import { emptySummary } from '../../src/sim';

const GiB = 1024 ** 3;

test('sizes: binary units, a bare number is MiB, nonsense is refused', () => {
  assert.equal(parseByteSize('4G'), 4 * GiB);
  assert.equal(parseByteSize('4GiB'), 4 * GiB);
  assert.equal(parseByteSize('4 gb'), 4 * GiB);
  assert.equal(parseByteSize('1.5g'), 1.5 * GiB);
  assert.equal(parseByteSize('512M'), 512 * 1024 ** 2);
  assert.equal(parseByteSize('800K'), 800 * 1024);
  assert.equal(parseByteSize('2048'), 2 * GiB);
  assert.equal(parseByteSize('100b'), 100);
  for (const bad of ['', 'G', '-1G', '4X', '0', 'four']) assert.equal(parseByteSize(bad), undefined, bad);
  assert.equal(formatBytes(4 * GiB), '4 GiB');
  assert.equal(formatBytes(1.5 * GiB), '1.5 GiB');
  assert.equal(formatBytes(215 * 1024), '215 KiB');
});

test("the tools get the limit less CHORUS's own memory and a tenth, never under a quarter", () => {
  const own = process.memoryUsage.rss();
  assert.ok(toolMemoryBytes(4 * GiB) <= 4 * GiB - own - 0.4 * GiB + 1);
  assert.equal(toolMemoryBytes(own), Math.floor(own / 4));
});

test("a limit hit is read from the step's end: sampler, rlimit signals, out-of-memory texts", () => {
  assert.deepEqual(
    limitFromExit({ signal: 'SIGKILL', code: null, output: '', limit: { resource: 'memory', peakBytes: 5 } }),
    { resource: 'memory', peakBytes: 5 },
  );
  assert.deepEqual(limitFromExit({ signal: 'SIGXCPU', code: null, output: '' }), { resource: 'cpu' });
  assert.deepEqual(
    limitFromExit({ signal: null, code: 2, output: '%Error: Verilator threw signal 25. Suggest trying --debug' }),
    { resource: 'file-size' },
  );
  assert.deepEqual(
    limitFromExit({
      signal: null,
      code: 255,
      output: "terminate called after throwing an instance of 'std::bad_alloc'",
    }),
    { resource: 'memory' },
  );
  assert.deepEqual(
    limitFromExit({
      signal: null,
      code: 2,
      output: 'cc1plus: out of memory allocating 65536 bytes after a total of 1 bytes',
    }),
    { resource: 'memory' },
  );
  assert.equal(limitFromExit({ signal: null, code: 1, output: '%Error: x.sv:1:1: syntax error' }), undefined);
  assert.equal(
    killedBy({ signal: null, output: '%Error: Verilator threw signal 9. Suggest trying --debug --gdbbt' }),
    'SIGKILL',
  );
});

test("only Verilator's own unrolling diagnostic retries the build; a killed Verilator echoing --unroll-count 0 does not", () => {
  const own =
    '%Error-BLKLOOPINIT: shreg.sv:9:44: Unsupported: Delayed assignment to array inside for loops\n%Error: Exiting due to 1 error(s)\n';
  assert.equal(rejectedUnrolling({ code: 1, signal: null, output: own }), true);
  assert.equal(
    rejectedUnrolling({
      code: 1,
      signal: null,
      output: '%Error: tb.sv:3:12: Loop unrolling took too long; probably this is an infinite loop',
    }),
    true,
  );
  // What the issue saw: verilator_bin killed from outside, its wrapper echoing the command line.
  const killed =
    '%Error: Verilator threw signal 9. Suggest trying --debug --gdbbt\n%Error: Command Failed /usr/bin/verilator_bin --cc --unroll-count 0 tb.sv\n';
  assert.equal(rejectedUnrolling({ code: 1, signal: null, output: killed }), false);
  assert.equal(
    rejectedUnrolling({
      code: 1,
      signal: null,
      output: `${own}terminate called after throwing an instance of 'std::bad_alloc'`,
    }),
    false,
  );
  assert.equal(rejectedUnrolling({ code: null, signal: 'SIGKILL', output: own }), false);
  assert.equal(rejectedUnrolling({ code: 1, signal: null, output: own, limit: { resource: 'memory' } }), false);
});

test('a parallel C++ compile stopped at the tree memory limit runs again one compiler at a time, nothing else does', () => {
  const sampled = { code: null, timedOut: false, limit: { resource: 'memory' as const, peakBytes: 5 * GiB } };
  // Several compilers together passed the limit: one alone may fit.
  assert.equal(serialRetry(sampled, 2), true);
  // Already one at a time: the compile itself needs more than the limit.
  assert.equal(serialRetry(sampled, 1), false);
  // A compiler that ran out of its own address space (bad_alloc), a CPU limit, a time-out, a compile error: no.
  assert.equal(serialRetry({ code: 1, timedOut: false }, 2), false);
  assert.equal(serialRetry({ code: null, timedOut: false, limit: { resource: 'cpu' } }, 2), false);
  assert.equal(serialRetry({ ...sampled, timedOut: true }, 2), false);
  assert.equal(serialRetry({ code: 0, timedOut: false }, 2), false);
});

test('a constant function whose loop 5.006 will not unroll (a package function sizing a port) retries the build', () => {
  // Verilator 5.006's words, with --unroll-count 0, for `input logic [p::w(4)-1:0] x` where w() has a for loop.
  const funcref = [
    "%Error: pkgw.sv:11:23: Expecting expression to be constant, but can't determine constant for FUNCREF 'w'",
    '                     : ... In instance tb.u',
    '        pkgw.sv:4:5: ... Location of non-constant WHILE: Loop unrolling took too long; probably this is an infinite loop, or set --unroll-count above 0',
    '        pkgw.sv:11:23: ... Called from w() with parameters:',
    '%Error: Exiting due to 1 error(s)',
    '',
  ].join('\n');
  assert.equal(rejectedUnrolling({ code: 1, signal: null, output: funcref }), true);
  // The same FUNCREF error for another reason (a function that is not constant) is the design's, not the flag's.
  const other = [
    "%Error: f.sv:3:20: Expecting expression to be constant, but can't determine constant for FUNCREF 'g'",
    '                     : ... In instance t',
    '        f.sv:2:5: ... Location of non-constant VARREF: Language violation: reference to non-function-local variable',
    '%Error: Exiting due to 1 error(s)',
    '',
  ].join('\n');
  assert.equal(rejectedUnrolling({ code: 1, signal: null, output: other }), false);
  // A warning's continuation line mentioning the flag does not count: only an error's.
  const warned =
    '%Warning-WIDTH: a.sv:1:1: x\n        a.sv:1:1: ... set --unroll-count above 0\n%Error: a.sv:2:2: syntax error\n';
  assert.equal(rejectedUnrolling({ code: 1, signal: null, output: warned }), false);
});

test('the largest constant-bounded array or loop is named with its line', () => {
  const bomb =
    'module tb; logic [63:0] big [0:(1<<28)-1];\n  initial begin for (int i=0;i<(1<<28);i++) big[i]=i; $finish; end endmodule\n';
  const big = biggestConstruct(bomb);
  assert.deepEqual(big, { kind: 'array', count: 1n << 28n, line: 1 });
  assert.equal(describeConstruct(big!), 'a 2^28-entry array');
  assert.deepEqual(
    biggestConstruct('module tb;\n// int x [0:99999999];\n  initial for (int i = 0; i <= 999_999; i++) ;\nendmodule'),
    { kind: 'loop', count: 1_000_000n, line: 3 },
  );
  assert.equal(describeConstruct({ kind: 'loop', count: 1_000_000n, line: 3 }), 'a loop of 1,000,000 iterations');
  assert.equal(
    biggestConstruct('module tb; logic [7:0] mem [0:255]; logic [7:0] m2 [N]; endmodule'),
    undefined,
    'small or parameterised',
  );
  assert.equal(evaluate("32'h100 * 2"), 512n);
  assert.equal(evaluate('2**20 - 1'), (1n << 20n) - 1n);
  assert.equal(evaluate('WIDTH-1'), undefined);
});

test("in the model loop a limit hit is the round's feedback, with an instruction to shrink the testbench", () => {
  const report = {
    status: 'resource_limit' as const,
    coverage: emptySummary(),
    instances: {},
    holes: [],
    diagnostics: [
      {
        file: '/w/tb.sv',
        line: 1,
        column: 0,
        severity: 'error' as const,
        message: 'The testbench needs more memory than the 4 GiB limit allows to translate (Verilator)',
      },
    ],
    ms: { build: 900, sim: 0 },
  };
  const bullets = edaBullets(report, { line: 100 });
  assert.equal(bullets.status, 'resource_limit');
  assert.equal(bullets.stage, 'build');
  assert.match(bullets.log, /tb\.sv:1: error: The testbench needs more memory/);
  assert.match(nextInstruction(report, []), /smaller arrays/);
});
