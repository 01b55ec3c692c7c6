/**
 * Vector harness throughput: candidate runs per second of the built-once harness, against rebuilding a testbench per
 * candidate (what an engine without the harness pays). Usage: npx tsx bench/random-harness.ts [example] [runs]
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareRun } from '../src/engine/context';
import { emitTestbench } from '../src/engine/search/emit';
import { harnessSource, planHarness } from '../src/engine/search/harness';
import { Rng } from '../src/engine/search/rng';
import { StimulusGenerator, stimulusText, totalCycles } from '../src/engine/search/stimulus';
import { literalsOf } from '../src/hdl';
import { buildSimulation, measureCoverage, runSimulation } from '../src/sim';

async function main(): Promise<void> {
  const name = process.argv[2] ?? 'fifo';
  const runs = Number(process.argv[3] ?? 100);
  const rebuilds = 5;
  const file = join(__dirname, '..', 'examples', name, `${name}.sv`);
  const workDir = mkdtempSync(join(tmpdir(), 'chorus-bench-harness-'));
  const ctx = await prepareRun({ rtlFiles: [file], engine: 'random', targets: {}, workDir });
  const plan = planHarness(ctx.top, 'uut');
  const gen = new StimulusGenerator(
    plan.inputs,
    new Rng(11),
    literalsOf(ctx.analysis, ctx.top.name),
    Boolean(plan.clock),
  );
  const harness = join(workDir, 'chorus_vector_harness.sv');
  writeFileSync(harness, harnessSource(plan));
  const sim = { workspaceRoot: workDir };
  const tBuild = Date.now();
  const build = await buildSimulation({ dutFiles: [file], testbench: harness, tbTop: 'chorus_vector_harness' }, sim);
  const harnessBuildMs = Date.now() - tBuild;
  if (!build.binary) throw new Error(`harness build failed: ${JSON.stringify(build.diagnostics)}`);

  const candidates = Array.from({ length: runs }, () => gen.fresh());
  const stim = join(workDir, 'stim.hex');
  const t0 = Date.now();
  let cycles = 0;
  for (const c of candidates) {
    writeFileSync(stim, stimulusText(c));
    cycles += totalCycles(c.rows);
    const r = await runSimulation(
      {
        binary: build.binary,
        coverageFile: join(workDir, 'c.dat'),
        plusargs: [`+stim=${stim}`],
        cwd: workDir,
        trusted: true,
      },
      sim,
    );
    if (!r.coverageWritten) throw new Error(`run failed: ${r.output}`);
  }
  const perRun = (Date.now() - t0) / runs;

  // Rebuild per candidate: each candidate as its own testbench, built (cache miss: new content) and run.
  const t1 = Date.now();
  for (let i = 0; i < rebuilds; i++) {
    const tb = join(workDir, `tb_${name}_${i}.sv`);
    writeFileSync(
      tb,
      emitTestbench(plan, [{ candidate: candidates[i], newPoints: 0 }], { seed: i, tbName: `tb_${name}` }),
    );
    const m = await measureCoverage({ dutFiles: [file], testbench: tb, dutTop: ctx.top.name }, sim);
    if (m.status !== 'ok') throw new Error(`rebuild ${i}: ${m.status}`);
  }
  const perRebuild = (Date.now() - t1) / rebuilds;
  const out = {
    design: name,
    harness_build_ms: harnessBuildMs,
    harness_runs: runs,
    mean_cycles_per_candidate: Math.round(cycles / runs),
    ms_per_harness_run: Math.round(perRun * 10) / 10,
    harness_runs_per_second: Math.round((1000 / perRun) * 10) / 10,
    ms_per_rebuild_and_run: Math.round(perRebuild),
    ratio_rebuild_over_harness: Math.round((perRebuild / perRun) * 10) / 10,
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
