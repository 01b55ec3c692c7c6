/** `chorus prove`: each line/branch hole's formal verdict — proven unreachable, a witness trace, or why neither. */
import type { Command } from 'commander';
import pc from 'picocolors';
import { proofText, proveHoles, type ProveHolesReport, type TargetVerdict } from '../../engine';
import type { CliContext } from '../context';
import { coverageTable, givenNames } from '../format';
import { addDesignOptions, designInput, type DesignCliFlags } from '../design';
import { positiveInt, positiveNumber } from '../options';
import type { RegisterCommand } from './register';

interface ProveFlags extends DesignCliFlags {
  top?: string;
  tb?: string;
  json?: boolean;
  timeout?: number;
  budget?: number;
  depth?: number;
  seed?: number;
  verilator?: string;
}

function verdictText(v: TargetVerdict): string {
  const d = v.verdict;
  if (d.status === 'unreachable') return `${pc.green('proven unreachable')} (${proofText(d)})`;
  if (d.status === 'witness') return `${pc.cyan('witness')}: ${d.witness.rows.length} cycle(s) from reset reach it`;
  return `${pc.yellow('unknown')}: ${d.reason}`;
}

function render(r: ProveHolesReport, name: (f: string) => string): string {
  const count = (s: string) => r.verdicts.filter((v) => v.verdict.status === s).length;
  const out = [
    `${pc.bold('Formal verdicts')} for ${r.top}: holes from ${r.holesFrom === 'testbench' ? 'the testbench' : 'the model-free search'}` +
      pc.dim(`  search ${(r.searchMs / 1000).toFixed(1)} s, Yosys ${(r.yosysMs / 1000).toFixed(1)} s`),
    '',
    coverageTable(r.coverage),
    '',
  ];
  if (!r.verdicts.length) out.push('No line or branch holes: nothing to prove.');
  for (const v of r.verdicts) {
    const t = v.target;
    const where = `${name(t.file)}:${t.line}${t.instance ? ` (${t.instance})` : ''}`;
    out.push(
      `  ${pc.cyan(where)} ${t.kind} ${t.comment}${v.site ? pc.dim(` — ${v.site}`) : ''}`,
      `    ${verdictText(v)}`,
    );
  }
  out.push(
    '',
    `${count('unreachable')} proven unreachable, ${count('witness')} witness(es), ${count('unknown')} unknown.`,
  );
  if (r.failure) out.push(pc.yellow(`note: ${r.failure}`));
  return out.join('\n');
}

async function run(given: string[], flags: ProveFlags, ctx: CliContext): Promise<void> {
  const design = await designInput(given, flags);
  const rtl = design.files;
  const report = await proveHoles(
    {
      rtlFiles: rtl,
      top: flags.top ?? design.top,
      testbench: flags.tb,
      includeDirs: design.includeDirs,
      // A macro defined without a value is defined as empty text, as `+define+NAME` does.
      defines: Object.fromEntries(Object.entries(design.defines).map(([k, v]) => [k, v ?? ''])),
      parameters: design.parameters,
      timeoutSeconds: flags.timeout,
      budgetSeconds: flags.budget,
      maxDepth: flags.depth,
      seed: flags.seed,
    },
    { logger: ctx.logger, signal: ctx.signal, verilatorPath: flags.verilator ?? process.env.CHORUS_VERILATOR },
  );
  const name = givenNames(rtl);
  if (flags.json) {
    ctx.out(
      JSON.stringify(
        {
          ...report,
          verdicts: report.verdicts.map((v) => ({ ...v, target: { ...v.target, file: name(v.target.file) } })),
        },
        null,
        2,
      ),
    );
  } else ctx.out(render(report, name));
}

export const registerProve: RegisterCommand = (program: Command, ctx: CliContext) => {
  const command = program
    .command('prove')
    .description(
      'Decide each line/branch hole with Yosys: proven unreachable (k-induction), a witness trace, or why neither.',
    )
    .argument('[rtl...]', 'DUT source files (Verilog/SystemVerilog); or give --filelist')
    .option('--top <module>', 'DUT top module (found by analysis when omitted)')
    .option('--tb <testbench>', 'measure this testbench for the holes (default: the model-free search finds them)')
    .option('--json', 'print one JSON object (coverage, verdicts with witness rows, times)')
    .option('--timeout <seconds>', 'wall-clock bound of the formal run (default 120)', positiveNumber('--timeout'))
    .option(
      '--budget <seconds>',
      'model-free search budget when no --tb is given (default 20)',
      positiveNumber('--budget'),
    )
    .option('--depth <cycles>', 'longest induction and witness search (default 24)', positiveInt('--depth'))
    .option('--seed <n>', 'search seed', positiveInt('--seed'))
    .option('--verilator <path>', 'Verilator executable (default: CHORUS_VERILATOR or verilator on PATH)');
  addDesignOptions(command).action((rtl: string[], flags: ProveFlags) => run(rtl, flags, ctx));
};
