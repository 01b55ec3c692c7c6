/** `chorus coverage`: build and run one testbench against the DUT with Verilator and report its coverage. */
import type { Command } from 'commander';
import pc from 'picocolors';
import { resolve } from 'node:path';
import {
  checkOutputTarget,
  cobertura,
  lcov,
  measure,
  writeOutput,
  type MeasureResult,
  type OutputKind,
  type OutputTarget,
} from '../../engine';
import type { CoverageReport, Diagnostic } from '../../protocol';
import type { CliContext } from '../context';
import { addDesignOptions, designInput, type DesignCliFlags } from '../design';
import { coverageTable, givenNames, holesList, namedHoles } from '../format';
import { collect, nonNegativeInt, positiveNumber } from '../options';
import { byteSize } from './cache';
import type { RegisterCommand } from './register';
import pkg from '../../../package.json';

interface CoverageFlags extends DesignCliFlags {
  tb: string;
  top?: string;
  json?: boolean;
  lcov?: string;
  cobertura?: string;
  force?: boolean;
  timeout?: number;
  maxSimTime?: number;
  verilator?: string;
  includeDir: string[];
  plusarg: string[];
  memoryLimit?: number;
  cacheMax?: number;
}

/** Exit codes of the contract: 0 measured, 1 build/run failed or timed out, 2 rejected. */
export function exitCodeForStatus(status: CoverageReport['status']): number {
  if (status === 'ok') return 0;
  if (status === 'rejected') return 2;
  return 1;
}

function diagnosticLine(d: Diagnostic): string {
  const where = [d.file, d.line || undefined, d.line && d.column ? d.column : undefined]
    .filter((x) => x !== undefined)
    .join(':');
  const sev =
    d.severity === 'error' ? pc.red('error') : d.severity === 'warning' ? pc.yellow('warning') : pc.dim('info');
  return `  ${pc.cyan(where)}: ${sev}: ${d.message}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function render(report: MeasureResult, rtl: string[], flags: CoverageFlags): string {
  const statusText = report.status === 'ok' ? pc.green('ok') : pc.red(report.status);
  const out = [
    `${pc.bold('Coverage')} of ${rtl.join(', ')} with ${flags.tb}: ${statusText}${report.bounded ? pc.yellow(' (bounded)') : ''}` +
      pc.dim(`  build ${seconds(report.ms.build)}, sim ${seconds(report.ms.sim)}`),
  ];
  if (report.points.length) out.push('', coverageTable(report.coverage));
  const instances = Object.entries(report.instances);
  if (instances.length > 1) {
    out.push('', pc.bold('  per instance (including sub-instances)'));
    for (const [path, s] of instances) {
      out.push(`  ${path.padEnd(32)} line ${s.line.pct}%  branch ${s.branch.pct}%  toggle ${s.toggle.pct}%`);
    }
  }
  for (const note of report.notes ?? []) out.push(pc.dim(`  note: ${note}`));
  if (report.diagnostics.length) out.push('', pc.bold('Diagnostics'), ...report.diagnostics.map(diagnosticLine));
  if (report.designWarnings?.length)
    out.push('', pc.bold('Warnings in the design (lint, not fatal)'), ...report.designWarnings.map(diagnosticLine));
  if (report.status !== 'ok' && report.simOutput?.trim()) {
    const tail = report.simOutput.trimEnd().split('\n').slice(-20);
    out.push('', pc.bold('Simulator output (last lines)'), ...tail.map((l) => pc.dim(`  ${l}`)));
  }
  if (report.points.length) out.push('', pc.bold(`Holes (${report.holes.length})`), holesList(report.holes, 50));
  return out.join('\n');
}

async function run(given: string[], flags: CoverageFlags, ctx: CliContext): Promise<void> {
  const design = await designInput(given, flags);
  const rtl = design.files;
  // Refused before the build, not after it: a user's file needs --force, the design's own files are never replaced.
  const outputTarget = (path: string | undefined, option: string, kind: OutputKind): OutputTarget | undefined =>
    path
      ? {
          path: resolve(path),
          option,
          kind,
          force: Boolean(flags.force),
          inputs: [...rtl, flags.tb, ...(flags.filelist ?? [])],
        }
      : undefined;
  const lcovTarget = outputTarget(flags.lcov, '--lcov', 'lcov');
  const coberturaTarget = outputTarget(flags.cobertura, '--cobertura', 'cobertura');
  if (lcovTarget) await checkOutputTarget(lcovTarget);
  if (coberturaTarget) await checkOutputTarget(coberturaTarget);
  const measured = await measure(
    {
      rtlFiles: rtl,
      testbench: flags.tb,
      top: flags.top,
      includeDirs: design.includeDirs,
      defines: design.defines,
      parameters: design.parameters,
      plusargs: flags.plusarg,
      timeoutMs: flags.timeout !== undefined ? Math.round(flags.timeout * 1000) : undefined,
      maxSimTime: flags.maxSimTime,
    },
    {
      verilatorPath: flags.verilator ?? process.env.CHORUS_VERILATOR,
      logger: ctx.logger,
      signal: ctx.signal,
      workspaceRoot: process.cwd(),
      memoryLimitBytes: flags.memoryLimit,
      cacheMaxBytes: flags.cacheMax,
    },
  );
  // Files named as the user gave them (the result carries absolute paths).
  const name = givenNames([...rtl, flags.tb]);
  const report: MeasureResult = {
    ...measured,
    holes: namedHoles(measured.holes, name),
    diagnostics: measured.diagnostics.map((d) => ({ ...d, file: name(d.file) })),
    designWarnings: (measured.designWarnings ?? []).map((d) => ({ ...d, file: name(d.file) })),
  };
  // The report first: a failed lcov write (a full disk) must not cost the user the measured coverage.
  if (flags.json) {
    const { points: _points, simOutput: _output, ...json } = report;
    ctx.out(JSON.stringify(json, null, 2));
  } else {
    ctx.out(render(report, rtl, flags));
  }
  process.exitCode = exitCodeForStatus(report.status);
  for (const [t, text] of [
    [lcovTarget, () => lcov(report.points, name)],
    [
      coberturaTarget,
      () => cobertura(report.points, { base: process.cwd(), version: pkg.version, timestamp: Date.now() }),
    ],
  ] as const) {
    if (!t) continue;
    if (report.points.length) await writeOutput(t, text());
    else ctx.logger.warn(`No coverage was measured, so ${t.path} was not written.`);
  }
}

export const registerCoverage: RegisterCommand = (program: Command, ctx: CliContext) => {
  const command = program
    .command('coverage')
    .description(
      'Build and run a testbench against the DUT with Verilator and report its line, branch and toggle coverage.',
    )
    .argument('[rtl...]', 'DUT source files (Verilog/SystemVerilog); or give --filelist')
    .requiredOption('--tb <testbench>', 'the testbench file; its top module is found from the file')
    .option('--top <module>', 'DUT top module: coverage is scoped to its instances')
    .option('--json', 'print one JSON object (status, coverage, holes, diagnostics, ms)')
    .option('--lcov <out.info>', 'also write an lcov tracefile (for Coverage Gutters, Codecov)')
    .option('--cobertura <out.xml>', 'also write Cobertura XML (GitLab, Jenkins, Azure), files relative to this folder')
    .option(
      '--force',
      'overwrite --lcov or --cobertura even when CHORUS did not write it (never a design or testbench file)',
    )
    .option('--timeout <seconds>', 'wall-clock bound of the simulation (default 60)', positiveNumber('--timeout'))
    .option(
      '--max-sim-time <units>',
      'simulated-time bound in the testbench time unit (default 10000000; 0: none)',
      nonNegativeInt('--max-sim-time'),
    )
    .option('--verilator <path>', 'Verilator executable (default: CHORUS_VERILATOR or verilator on PATH)')
    .option('-I, --include-dir <dir>', 'include folder for `include (repeatable)', collect, [])
    .option('--plusarg <arg>', 'plusarg passed to the simulation, such as +seed=3 (repeatable)', collect, [])
    .option(
      '--memory-limit <size>',
      'most memory CHORUS and the tool building or running a testbench may hold, e.g. 4G, 2048M (default 4G)',
      byteSize('--memory-limit'),
    )
    .option('--cache-max <size>', 'byte cap of the build cache, e.g. 2G, 500M (default 2G)', byteSize('--cache-max'));
  addDesignOptions(command, false, true).action((rtl: string[], flags: CoverageFlags) => run(rtl, flags, ctx));
};
