// Hostile testbenches against the resource limits, through the built CLI with real Verilator and g++: the memory
// bomb (a 2^28-entry array), a huge nested generate loop, deep recursion in a constant function and a
// million-element array of structs. Each ends within its wall-clock bound; every tool the run started ran under a
// memory bound no larger than the configured limit; a step stopped at the limit is not retried; no process of the run
// survives it and its temporary folders are gone. What ran, and under which limits, is read from the engine's own
// record (CHORUS_TOOL_LOG), never concluded from sampling /proc, which misses a process of a few seconds on a busy
// machine; the sampled peak resident memory is only logged.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ToolLogEntry } from '../../src/sim/process/toolLog';
import { descendants } from '../helpers/procs';
import { example, removeScratch, scratch, startCli, suiteCache, TreeWatcher } from './support';
import { waitFor } from '../helpers/procs';

after(removeScratch);

const counter = example('counter');
const GiB = 1024 ** 3;
/** Small enough to be reached in seconds, large enough for every ordinary build of the suite. */
const LIMIT = GiB;

/** Resident memory of a process in bytes (0 once it is gone). */
function rss(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The counter instantiated, so a testbench that builds measures coverage. */
const dut = [
  '  logic clk = 0, rst_n = 0, en = 0, overflow, underflow; logic [1:0] mode = 1; logic [7:0] load_value = 0, count;',
  '  counter uut (.clk(clk), .rst_n(rst_n), .en(en), .mode(mode), .load_value(load_value), .count(count), .overflow(overflow), .underflow(underflow));',
  '',
].join('\n');

interface Outcome {
  code: number | null;
  report: { status: string; diagnostics: { file: string; line: number; message: string }[]; notes?: string[] };
  seconds: number;
  /** Peak resident memory of the CLI and all its descendants together, and of the descendants alone: sampled, only logged. */
  peakTree: number;
  peakTools: number;
  /** Verilator translations (`--cc`) the engine started, from its tool log. */
  verilatorRuns: number;
  /** Every tool start the engine recorded. */
  tools: ToolLogEntry[];
}

function readToolLog(path: string): ToolLogEntry[] {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ToolLogEntry);
}

/** Every step on the testbench ran under a memory bound (address space, or the sampled tree's) of at most the limit. */
function assertToolsLimited(name: string, o: Outcome): void {
  const runs = o.tools.filter((t) => t.role === 'run');
  assert.ok(runs.length > 0, `${name}: the tool log recorded the run's tools`);
  for (const t of runs) {
    const bounds = [t.limits.addressSpaceBytes, t.limits.treeMemoryBytes].filter((b): b is number => b !== undefined);
    const what = `${name}: ${basename(t.tool)} ${t.toolArgs.slice(0, 2).join(' ')}`;
    assert.ok(bounds.length > 0, `${what} ran without a memory bound: ${JSON.stringify(t.limits)}`);
    for (const b of bounds) assert.ok(b <= LIMIT, `${what} ran under a ${b}-byte bound, over the ${LIMIT}-byte limit`);
  }
}

async function coverageOf(name: string, text: string, wallBoundS: number): Promise<Outcome> {
  const dir = scratch('chorus-limits-');
  const tmp = scratch('chorus-limits-tmp-');
  const tb = join(dir, name);
  writeFileSync(tb, text);
  const toolLog = join(dir, 'tools.jsonl');
  const started = Date.now();
  const { child, done } = startCli(
    ['coverage', counter, '--tb', tb, '--json', '--memory-limit', `${LIMIT / 1024 ** 2}M`],
    {
      cwd: dir,
      env: { CHORUS_CACHE_DIR: suiteCache, TMPDIR: tmp, CHORUS_TOOL_LOG: toolLog },
    },
  );
  const watcher = new TreeWatcher(child.pid!);
  let peakTree = 0;
  let peakTools = 0;
  const sampler = setInterval(() => {
    const tools = descendants(child.pid!).reduce((n, p) => n + rss(p), 0);
    peakTools = Math.max(peakTools, tools);
    peakTree = Math.max(peakTree, tools + rss(child.pid!));
  }, 25);
  let exited = false;
  void done.then(() => (exited = true));
  try {
    // A hang guard far above the measured times: the bound under test is what ends the run.
    assert.ok(await waitFor(() => exited, wallBoundS * 1000, 50), `${name}: still running after ${wallBoundS} s`);
    const r = await done;
    const seconds = (Date.now() - started) / 1000;
    await waitFor(() => watcher.survivors().length === 0, 10_000);
    assert.deepEqual(watcher.survivors(), [], `${name}: processes of the run still live`);
    assert.deepEqual(readdirSync(tmp), [], `${name}: temporary folders left behind`);
    const tools = readToolLog(toolLog);
    const verilatorRuns = tools.filter(
      (t) => t.role === 'run' && /^verilator(_bin)?$/.test(basename(t.tool)) && t.toolArgs.includes('--cc'),
    ).length;
    return {
      code: r.code,
      report: JSON.parse(r.stdout) as Outcome['report'],
      seconds,
      peakTree,
      peakTools,
      verilatorRuns,
      tools,
    };
  } finally {
    clearInterval(sampler);
    watcher.stop();
    if (!exited) child.kill('SIGKILL');
    await done.catch(() => undefined);
  }
}

function logOutcome(name: string, o: Outcome): void {
  process.stderr.write(
    `# ${name}: ${o.report.status} in ${o.seconds.toFixed(1)} s, peak tree ${(o.peakTree / 1024 ** 2).toFixed(0)} MiB (tools ${(o.peakTools / 1024 ** 2).toFixed(0)} MiB)\n`,
  );
}

test('the memory bomb stops at the memory limit, names the array, and is not retried', async () => {
  const bomb =
    'module tb; logic [63:0] big [0:(1<<28)-1];\n  initial begin for (int i=0;i<(1<<28);i++) big[i]=i; $finish; end endmodule\n';
  const o = await coverageOf('membomb.sv', bomb, 180);
  logOutcome('memory bomb', o);
  assert.equal(o.report.status, 'resource_limit', JSON.stringify(o.report.diagnostics));
  assert.equal(o.code, 1);
  const message = o.report.diagnostics.map((d) => d.message).join('\n');
  assert.match(message, /needs more memory than the 1 GiB limit allows to translate/);
  assert.match(message, /it declares a 2\^28-entry array at .*membomb\.sv:1/);
  assert.match(message, /not retried/);
  assert.equal(
    o.verilatorRuns,
    1,
    'Verilator ran once: a step stopped at a limit is not retried without --unroll-count 0',
  );
  assertToolsLimited('memory bomb', o);
});

test('a huge nested generate loop stops at the memory limit', async () => {
  const tb = [
    'module tb;',
    dut,
    '  for (genvar g = 0; g < 1024; g++) begin : row',
    '    for (genvar h = 0; h < 1024; h++) begin : col',
    '      logic [31:0] r;',
    '      initial r = g * 1024 + h;',
    '    end',
    '  end',
    '  initial $finish;',
    'endmodule',
    '',
  ].join('\n');
  const o = await coverageOf('genloop.sv', tb, 180);
  logOutcome('generate loop', o);
  assert.equal(o.report.status, 'resource_limit', JSON.stringify(o.report.diagnostics));
  assert.match(o.report.diagnostics[0].message, /needs more memory than the 1 GiB limit allows/);
  // With --unroll-count 0, Verilator 5.006 may first reject the generate loop with its own unrolling diagnostic
  // (the one case that justifies a rebuild with unrolling); whichever build hits the limit is not retried.
  assert.ok(o.verilatorRuns >= 1 && o.verilatorRuns <= 2, `Verilator ran ${o.verilatorRuns} times`);
  if (o.verilatorRuns === 2)
    assert.match(
      JSON.stringify(o.report),
      /without --unroll-count 0/,
      'a second build only after Verilator rejected --unroll-count 0',
    );
  assertToolsLimited('generate loop', o);
});

test("deep recursion in a constant function ends with Verilator's own diagnostic, within bounds", async () => {
  const tb = [
    'module tb;',
    dut,
    '  function automatic int depth(input int n);',
    '    return n == 0 ? 0 : 1 + depth(n - 1);',
    '  endfunction',
    '  localparam int D = depth(1 << 24);',
    '  initial begin $display("%0d", D); $finish; end',
    'endmodule',
    '',
  ].join('\n');
  const o = await coverageOf('recursion.sv', tb, 120);
  logOutcome('recursion', o);
  assert.equal(o.report.status, 'compile_error');
  assert.match(o.report.diagnostics.map((d) => d.message).join('\n'), /Recursive function/);
  assertToolsLimited('recursion', o);
});

test('a million-element array of structs builds and runs within the limits', async () => {
  const tb = [
    'module tb;',
    dut,
    '  typedef struct packed { logic [7:0] tag; logic [31:0] data; } entry_t;',
    '  entry_t table_q [0:999999];',
    '  initial begin',
    "    for (int i = 0; i < 1000000; i++) table_q[i] = '{tag: i[7:0], data: i};",
    '    $display("last %0d", table_q[999999].data);',
    '    rst_n = 1; en = 1; repeat (4) begin #5 clk = 1; #5 clk = 0; end',
    '    $finish;',
    '  end',
    'endmodule',
    '',
  ].join('\n');
  // Measured: about 90 s to build on this machine under load (a cold model, 1M-entry initialiser).
  const o = await coverageOf('structs.sv', tb, 600);
  logOutcome('array of structs', o);
  assert.equal(o.report.status, 'ok', JSON.stringify(o.report.diagnostics));
  assertToolsLimited('array of structs', o);
});
