// Bad input through the real CLI (`chorus generate`, `coverage`, `inspect`): each mistake is a clear error that
// names the file (and line), with the contract's exit code; nothing is half-done. Plus a malformed patch in the loop.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateToEnd } from '../../src/engine';
import { MAX_FILE_BYTES } from '../../src/hdl';
import { openBackend } from '../../src/llm';
import { silentLogger, type LoopEvent } from '../../src/protocol';
import { MAX_DUT_FILE_BYTES } from '../../src/sim/verilator/inputs';
import { repoRoot, runCli } from '../helpers/cli';
import { replayModel } from '../helpers/replay';
import { limitMs } from '../helpers/time-limits';
import { example, fakeTool, nestedDesign, removeScratch, scratch, simFixture, suiteCache } from './support';

const env = { CHORUS_CACHE_DIR: suiteCache };
const tbCounter = simFixture('tb_counter.sv');
// inspect and generate on a file the parser gives up on, side by side: 4.1 s at load average 16 here.
const PARSE_ERROR_MS = limitMs(4_100, 16);
let work: string;
const files: Record<string, string> = {};

before(() => {
  work = scratch();
  const put = (name: string, content: string | Buffer) => {
    files[name] = join(work, name);
    writeFileSync(files[name], content);
  };
  put('empty.sv', ' \n\t\n');
  // An ELF header and then some text: what a mistyped path to a build product gives.
  put(
    'binary.sv',
    Buffer.concat([
      Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00]),
      Buffer.from('module m; endmodule\n'),
    ]),
  );
  put('huge.sv', 'module huge; endmodule\n');
  truncateSync(files['huge.sv'], MAX_FILE_BYTES + 1); // sparse: costs no disk
  files['missing.sv'] = join(work, 'missing.sv');
  put('syntax.sv', 'module syntax(input logic a, output logic y);\n  assign y = a +;\nendmodule\n');
  put('nomodule.sv', '// a header with no module\n`define WIDTH 8\n');
  put(
    'two_tops.sv',
    'module left(input logic a, output logic y); assign y = a; endmodule\nmodule right(input logic a, output logic y); assign y = ~a; endmodule\n',
  );
  put('tb_lonely.sv', 'module tb_lonely;\n  initial begin #5; $finish; end\nendmodule\n');
});
after(removeScratch);

test('the DUT analysis and the simulation core refuse files over one and the same size limit', () => {
  assert.equal(MAX_DUT_FILE_BYTES, MAX_FILE_BYTES);
});

test('empty, binary, huge and missing files: exit 2 from generate, inspect and coverage, naming the file, before any tool runs', async () => {
  const cases: [string, RegExp][] = [
    ['empty.sv', /empty/],
    ['binary.sv', /binary/],
    ['huge.sv', /over the 16 MiB limit/],
    ['missing.sv', /(No such file|not found)/],
  ];
  // All at once: each is a short-lived process that ends before any tool would start.
  const runs = await Promise.all(
    cases.flatMap(([name, why]) => {
      const file = files[name];
      const commands: [string, string[]][] = [
        ['generate', ['generate', file, '--engine', 'random']],
        ['inspect', ['inspect', file]],
        ['coverage', ['coverage', file, '--tb', tbCounter, '--json']],
      ];
      return commands.map(async ([command, args]) => ({
        name,
        why,
        file,
        command,
        r: await runCli(args, { env, cwd: work }),
      }));
    }),
  );
  assert.equal(runs.length, 12);
  for (const { name, why, file, command, r } of runs) {
    assert.equal(r.code, 2, `${command} ${name}: ${r.stderr}`);
    assert.ok(r.stderr.includes(`error: ${file}: `), `${command} ${name} names the file first: ${r.stderr}`);
    assert.match(r.stderr, why, `${command} ${name}`);
    assert.equal(r.stdout, '', `${command} ${name} printed no result`);
    assert.doesNotMatch(r.stderr, /\n\s+at /, `${command} ${name}: no stack trace`);
  }
});

test("a syntax error: file:line:column and exit 2 from generate and inspect; coverage shows Verilator's located error (a build failure, exit 1)", async () => {
  const file = files['syntax.sv'];
  const line = 2;
  const column = readFileSync(file, 'utf8').split('\n')[line - 1].indexOf('+') + 1;
  const gen = await runCli(['generate', file, '--engine', 'random'], { env, cwd: work });
  assert.equal(gen.code, 2, gen.stderr);
  assert.ok(gen.stderr.includes(`${file}:${line}:${column}: syntax error`), gen.stderr);
  const inspect = await runCli(['inspect', file], { env, cwd: work });
  assert.equal(inspect.code, 2, inspect.stderr);
  assert.ok(inspect.stderr.includes(`${file}:${line}:${column}: syntax error`), inspect.stderr);
  assert.match(inspect.stderr, /1 syntax error in the RTL: fix it and run again/);

  const cov = await runCli(['coverage', file, '--tb', tbCounter, '--json'], { env, cwd: work });
  assert.equal(cov.code, 1, cov.stderr);
  const report = JSON.parse(cov.stdout) as {
    status: string;
    diagnostics: { file: string; line: number; severity: string }[];
  };
  assert.equal(report.status, 'compile_error');
  assert.ok(
    report.diagnostics.some((d) => d.file === file && d.line === line && d.severity === 'error'),
    JSON.stringify(report.diagnostics),
  );
});

test('no module, or several top candidates without --top: exit 2 saying what to pass', async () => {
  const none = await runCli(['generate', files['nomodule.sv'], '--engine', 'random'], { env, cwd: work });
  assert.equal(none.code, 2, none.stderr);
  assert.ok(
    none.stderr.includes(`No module found in ${files['nomodule.sv']}: pass the RTL files that define the DUT`),
    none.stderr,
  );
  const noneInspect = await runCli(['inspect', files['nomodule.sv']], { env, cwd: work });
  assert.equal(noneInspect.code, 2, noneInspect.stderr);
  assert.match(noneInspect.stderr, /No module found/);

  const two = await runCli(['generate', files['two_tops.sv'], '--engine', 'random'], { env, cwd: work });
  assert.equal(two.code, 2, two.stderr);
  assert.match(two.stderr, /Several top module candidates \(left, right\): pass --top <module>/);
  const wrongTop = await runCli(['generate', files['two_tops.sv'], '--engine', 'random', '--top', 'middle'], {
    env,
    cwd: work,
  });
  assert.equal(wrongTop.code, 2, wrongTop.stderr);
  assert.match(wrongTop.stderr, /'middle' is not defined/);
  // inspect only reports: it shows both modules, warns and says how to pick one.
  const inspect = await runCli(['inspect', files['two_tops.sv']], { env, cwd: work });
  assert.equal(inspect.code, 0, inspect.stderr);
  assert.match(inspect.stderr, /Several modules could be the top \(left, right\): pass --top <module>/);
  assert.match(inspect.stdout, /top: ambiguous \(left, right\)/);
});

test('coverage: a testbench that does not instantiate the DUT is a sim_error naming the testbench, with and without --top', async () => {
  const tb = files['tb_lonely.sv'];
  const counter = example('counter');
  const plain = await runCli(['coverage', counter, '--tb', tb], { env, cwd: work });
  assert.equal(plain.code, 1, plain.stderr);
  assert.match(plain.stdout, /: sim_error/);
  assert.ok(
    plain.stdout.includes(
      `${tb}: error: The testbench instantiates no module of the DUT files: no coverage was measured.`,
    ),
    plain.stdout,
  );
  assert.doesNotMatch(plain.stdout, /Holes/, 'no coverage table for nothing measured');

  const withTop = await runCli(['coverage', counter, '--tb', tb, '--top', 'counter', '--json'], { env, cwd: work });
  assert.equal(withTop.code, 1, withTop.stderr);
  const report = JSON.parse(withTop.stdout) as {
    status: string;
    diagnostics: { file: string; message: string }[];
    coverage: { line: { total: number } };
  };
  assert.equal(report.status, 'sim_error');
  assert.equal(report.diagnostics[0].file, tb);
  assert.match(report.diagnostics[0].message, /does not instantiate the DUT top module 'counter'/);
  assert.equal(report.coverage.line.total, 0);
});

test('a missing or too old Verilator: exit 3 with the install command, from coverage and generate, however it is found', async () => {
  const bin = join(work, 'fake-bin');
  mkdirSync(bin);
  const old = fakeTool(bin, 'verilator', 'echo "Verilator 4.038 2020-07-11 rev v4.036-114-g0cd4a57ad"');
  const empty = join(work, 'empty-bin');
  mkdirSync(empty);
  const counter = example('counter');
  const isOld = (r: { code: number | null; stderr: string }, how: string) => {
    assert.equal(r.code, 3, `${how}: ${r.stderr}`);
    assert.match(r.stderr, /Verilator 4\.038 .* is too old/, how);
    assert.match(r.stderr, /apt-get install verilator/, how);
  };
  isOld(
    await runCli(['coverage', counter, '--tb', tbCounter, '--verilator', old], { env, cwd: work }),
    'coverage --verilator',
  );
  isOld(
    await runCli(['coverage', counter, '--tb', tbCounter], {
      env: { ...env, PATH: `${bin}:${process.env.PATH}` },
      cwd: work,
    }),
    'coverage, PATH',
  );
  isOld(
    await runCli(['generate', counter, '--engine', 'random'], {
      env: { ...env, PATH: `${bin}:${process.env.PATH}` },
      cwd: work,
    }),
    'generate, PATH',
  );
  isOld(
    await runCli(['generate', counter, '--engine', 'random'], { env: { ...env, CHORUS_VERILATOR: old }, cwd: work }),
    'generate, CHORUS_VERILATOR',
  );

  for (const args of [
    ['coverage', counter, '--tb', tbCounter],
    ['generate', counter, '--engine', 'random'],
  ]) {
    const r = await runCli(args, { env: { ...env, PATH: empty }, cwd: work });
    assert.equal(r.code, 3, `${args[0]} without verilator: ${r.stderr}`);
    assert.match(r.stderr, /Verilator not found .*apt-get install verilator/, args[0]);
  }
});

test("a malformed patch: the round's feedback names the offending line of the patch, and the run goes on", async () => {
  // Round 1 has no testbench yet; round 2 sends hunks in a diff fence. Neither builds anything.
  const bare = '@@\n   rst_n = 0;\n-  push = 0;\n*  push = 1;\n   pop = 0;\n';
  const fenced =
    'Here is the fix:\n```diff\n@@\n   rst_n = 0;\n-  push = 0;\n+  push = 1;\nthis line has no prefix\n```\n';
  const backend = await openBackend(replayModel([bare, fenced]), { logger: silentLogger });
  const events: LoopEvent[] = [];
  const result = await generateToEnd(
    {
      rtlFiles: [join(repoRoot, 'examples', 'fifo', 'fifo.sv')],
      engine: 'llm',
      targets: { line: 100 },
      rounds: 1,
      stallRounds: 5,
      parseRetries: 0,
      workDir: join(work, 'loop'),
    },
    { logger: silentLogger, signal: new AbortController().signal, backend, cacheDir: suiteCache },
    (e) => events.push(e),
  );
  const feedback = (round: number) => {
    const fb = events.find((e) => e.type === 'feedback' && e.round === round);
    assert.ok(fb && fb.type === 'feedback', `feedback of round ${round}`);
    return fb.text;
  };
  assert.match(
    feedback(1),
    /Response parse result:\n- status: failed\n- type: file\n- reason: malformed patch: line 4: expected ' ', '-', '\+' or '@@' at the start, got "\*  push = 1;"/,
  );
  assert.match(
    feedback(2),
    /- reason: malformed patch: line 5: expected ' ', '-', '\+' or '@@' at the start, got "this line has no prefix"/,
  );
  assert.match(
    feedback(2),
    /Instruction for next round:\nAnswer with a filename line, then one ```systemverilog code block[\s\S]*\nOutput requirements:\n/,
  );
  assert.equal(result.rounds.length, 2, 'both rounds ran');
  assert.deepEqual(
    result.rounds.map((r) => r.reward),
    [0, 0],
  );
  assert.equal(events.filter((e) => e.type === 'build').length, 0, 'nothing was built from a malformed patch');
});

// Found by the nesting property in random-input.test.ts: a fresh process has the least stack to spare.
test('cli-deep: a 1,200-arm else-if chain that Verilator accepts is analysed by `chorus inspect`, not a stack overflow', async () => {
  const file = join(work, 'decoder.sv');
  writeFileSync(file, nestedDesign('elseif', 1200));
  execFileSync('verilator', ['--lint-only', file], { stdio: 'pipe' }); // throws if Verilator refused it
  const r = await runCli(['inspect', file, '--json'], { env, cwd: work });
  assert.doesNotMatch(r.stderr, /RangeError|Maximum call stack/);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    (JSON.parse(r.stdout) as { modules: { name: string }[] }).modules.map((m) => m.name),
    ['deep'],
  );
});

// Found by the DUT-analysis property: tree-sitter's error recovery looped forever on this line (the CLI then
// ignored Ctrl-C too, its handler never got to run). runCli kills a child that passes its time bound.
test('a line that sends the parser in circles is a syntax error of the file (exit 2), not a hang, in inspect and generate', async () => {
  const file = join(work, 'loop.sv');
  writeFileSync(file, 'module m; initial begin if (a) begin b = 1; default \u00e9 c = 1; end end endmodule\n');
  const [inspect, gen] = await Promise.all([
    runCli(['inspect', file], { env, cwd: work, timeoutMs: PARSE_ERROR_MS }),
    runCli(['generate', file, '--engine', 'random'], { env, cwd: work, timeoutMs: PARSE_ERROR_MS }),
  ]);
  for (const [command, r] of [
    ['inspect', inspect],
    ['generate', gen],
  ] as const) {
    assert.notEqual(r.code, null, `${command} never returned`);
    assert.equal(r.code, 2, `${command}: ${r.stderr}`);
    assert.ok(r.stderr.includes(`${file}:1:1: The SystemVerilog parser gave up`), `${command}: ${r.stderr}`);
  }
});
