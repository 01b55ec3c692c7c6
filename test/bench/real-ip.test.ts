// The real-IP corpus (test/helpers/corpus.ts finds it; read in place): every item reads as `chorus bench` reads it,
// analyses with the top's ports equal to Verilator's own elaboration (`--xml-only`, with the item's include
// folders, macros and parameters), and a few items get a testbench from `chorus generate --filelist` that,
// re-simulated alone with `chorus coverage`, reaches the coverage generate reported. All 17 are run by
// bench/real-ip-vs-plain.ts (docs/benchmarks.md).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { verilatorPorts } from '../../bench/hdl-verilator-xml';
import { itemDesign, runBench } from '../../src/cli/bench/run';
import { parseItems, type BenchItem } from '../../src/cli/bench/schema';
import { selectDut } from '../../src/engine/plan';
import { designFlagArgs, lintDesign } from '../../src/sim';
import { silentLogger } from '../../src/protocol';
import { ensureFreshCli, runCli } from '../helpers/cli';
import { corpusPath } from '../helpers/corpus';

const REAL_IP = corpusPath('real-ip');
const ITEMS = join(REAL_IP, 'items.jsonl');
const work = mkdtempSync(join(tmpdir(), 'chorus-real-ip-'));
const env = { CHORUS_TEST: '1' };

before(ensureFreshCli);
after(() => rmSync(work, { recursive: true, force: true }));

function items(): BenchItem[] {
  const parsed = parseItems(readFileSync(ITEMS, 'utf8'), dirname(ITEMS));
  for (const l of parsed) assert.ok(l.ok, l.ok ? '' : `${l.id}: ${l.error}`);
  return parsed.flatMap((l) => (l.ok ? [l.item] : []));
}

test('items.jsonl reads as real-IP items: a filelist in place, the top, parameters as Verilog text, no targets', () => {
  const all = items();
  assert.equal(all.length, 17);
  const frame = all.find((i) => i.id === 'axis_fifo_frame')!;
  assert.equal(frame.dut_module_name, 'axis_fifo');
  assert.deepEqual(frame.targets, []);
  // The parameterized variant shares its base item's filelist.
  assert.equal(frame.design?.filelist, join(REAL_IP, 'items', 'axis_fifo.f'));
  assert.deepEqual(frame.design?.parameters, {
    DEPTH: '64',
    FRAME_FIFO: '1',
    DROP_BAD_FRAME: '1',
    DROP_WHEN_FULL: '1',
    MARK_WHEN_FULL: '0',
  });
});

for (const item of items()) {
  test(`${item.id}: the top's ports as the engine reads them equal Verilator's --xml-only elaboration`, async () => {
    const design = await itemDesign(item.design!);
    const flags = { includeDirs: design.includeDirs, defines: design.defines, parameters: design.parameters };
    const { top } = await selectDut({ files: design.rtlFiles, top: item.dut_module_name, design: flags });
    // As a run reads them: the analysis, with the widths text cannot evaluate (package functions such as
    // cf_math_pkg::idx_width, $clog2 of a parameter) taken from the design lint's elaboration (generate.ts).
    const lint = await lintDesign({ files: design.rtlFiles, top: top.name, ...flags });
    for (const p of top.ports) p.width = lint.portWidths.get(p.name) ?? p.width;
    const dir = mkdtempSync(join(work, `${item.id}-`));
    const gs = Object.entries(design.parameters ?? {}).map(([k, v]) => `-G${k}=${v}`);
    const reference = verilatorPorts(dir, design.rtlFiles, item.dut_module_name, [...designFlagArgs(flags), ...gs]);
    assert.ok(typeof reference !== 'string', `${item.id}: ${String(reference)}`);
    assert.deepEqual(
      top.ports.map((p) => `${p.direction} ${p.name} ${p.width}`),
      reference.map((p) => `${p.direction} ${p.name} ${p.width}`),
    );
  });
}

// A plain item, one with an include folder, a type parameter and -G overrides, and one with submodules and overrides.
for (const id of ['axis_register', 'cc_fifo_d5_ft', 'axis_arb_mux_rr']) {
  test(`${id}: generate --filelist emits a testbench that, simulated alone, reaches the reported coverage`, async () => {
    const item = items().find((i) => i.id === id)!;
    const list = relative(REAL_IP, item.design!.filelist);
    const gs = Object.entries(item.design!.parameters).flatMap(([k, v]) => ['-G', `${k}=${v}`]);
    const tb = join(work, `tb_${id}.sv`);
    const g = await runCli(
      [
        'generate',
        '--filelist',
        list,
        '--top',
        item.dut_module_name,
        ...gs,
        '--engine',
        'random',
        '--budget-seconds',
        '5',
        '--seed',
        '1',
        '--out',
        tb,
        '--json',
      ],
      { cwd: REAL_IP, env },
    );
    assert.ok(g.code === 0 || g.code === 1, g.stderr);
    const reported = (JSON.parse(g.stdout) as { coverage: Record<string, { covered: number; total: number }> })
      .coverage;
    assert.ok(reported.line.covered > 0, JSON.stringify(reported));
    if (gs.length) assert.match(readFileSync(tb, 'utf8'), new RegExp(`${item.dut_module_name} #\\(\\.`));
    const m = await runCli(['coverage', '--filelist', list, '--tb', tb, '--top', item.dut_module_name, '--json'], {
      cwd: REAL_IP,
      env,
    });
    assert.equal(m.code, 0, m.stderr);
    const alone = (JSON.parse(m.stdout) as { coverage: Record<string, { covered: number; total: number }> }).coverage;
    for (const k of ['line', 'branch', 'toggle']) assert.deepEqual({ k, ...alone[k] }, { k, ...reported[k] });
  });
}

test('chorus bench runs real-IP items from their filelists with their parameters and reports the coverage reached', async () => {
  const parsed = parseItems(readFileSync(ITEMS, 'utf8'), dirname(ITEMS)).filter(
    (l) => l.ok && ['cc_lzc', 'cc_fifo_d5_ft'].includes(l.item.id),
  );
  const report = await runBench(
    parsed,
    {
      engine: 'random',
      samples: 1,
      concurrency: 1,
      budgetSeconds: 3,
      seed: 1,
      workDir: mkdtempSync(join(work, 'bench-')),
      formal: false,
    },
    { logger: silentLogger, signal: new AbortController().signal },
  );
  assert.deepEqual(
    report.results.map((r) => r.id),
    ['cc_lzc', 'cc_fifo_d5_ft'],
  );
  for (const r of report.results) {
    assert.equal(r.error, undefined, `${r.id}: ${r.error}`);
    // No targets: nothing to pass, the coverage reached is the result.
    assert.equal(r.pass, false);
    assert.ok(r.coverage.line.covered > 0 && r.coverage.toggle.covered > 0, `${r.id}: ${JSON.stringify(r.coverage)}`);
  }
});
