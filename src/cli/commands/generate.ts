/** `chorus generate`: close coverage on a DUT with the model-free engine, the model, or both. */
import { basename, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import pc from 'picocolors';
import {
  checkOutputTarget,
  generateToEnd,
  parseTargets,
  planRun,
  writeTestbench,
  formatSummary,
  overallPct,
  lcovWithoutExcluded,
  coberturaWithoutExcluded,
  toUrgEl,
  toImcTcl,
  DEFAULT_INSTANCE,
  summaryJson,
  summaryMarkdown,
  toVlt,
  writeOutput,
  type EngineResult,
  type OutputKind,
  type OutputTarget,
} from '../../engine';
import { DEFAULT_TARGETS, type EngineName, type GenerateResult, type LoopEvent } from '../../protocol';
import type { CliContext } from '../context';
import { addDesignOptions, designInput, type DesignCliFlags } from '../design';
import {
  closureLine,
  coverageTable,
  regressionLines,
  verdictLine,
  waiverLine,
  givenNames,
  holesList,
  namedHoles,
  type FileNamer,
} from '../format';
import { cliModels } from '../models';
import { collect, oneOf, positiveInt, nonNegativeInt, positiveNumber, numberIn } from '../options';
import { byteSize } from './cache';
import type { RegisterCommand } from './register';
import pkg from '../../../package.json';

/** The verdict rule (src/engine/verdict.ts), as `generate --help` states it. */
const VERDICT_HELP = `
Verdict: each target is judged on signoff coverage, where points proven unreachable (k-induction, the analysis)
and points waived in a waiver file are excluded from the kind's total, as signoff tools count exclusions;
--require-raw judges on the raw counts. Closed: every line and branch point (FSM point, when targeted) covered
or excluded. Exit codes: 0 targets met (so a closed line/branch run exits 0), 1 not met or a failed build/run,
2 bad input or a rejected testbench, 3 a missing tool, 4 a fault of the machine, 130 cancelled.`;

interface GenerateFlags extends DesignCliFlags {
  top?: string;
  spec: string[];
  engine?: EngineName;
  target?: string;
  rounds?: number;
  out?: string;
  force?: boolean;
  seed?: number;
  budgetSeconds?: number;
  timeout?: number;
  model?: string;
  endpoint?: string;
  apiModel?: string;
  instance?: string;
  json?: boolean;
  memoryLimit?: number;
  cacheMax?: number;
  contextSize?: number;
  gpu?: 'auto' | 'cuda' | 'vulkan' | 'metal' | 'cpu';
  threads?: number;
  maxTokens?: number;
  temperature?: number;
  thinking?: 'on' | 'off';
  requestTimeout?: number;
  promptTemplates?: string;
  candidates?: number;
  expert?: string[];
  /** False with --no-formal. */
  formal?: boolean;
  requireRaw?: boolean;
  waivers?: string;
  vlt?: string;
  lcov?: string;
  cobertura?: string;
  urgEl?: string;
  imcTcl?: string;
  dutPath: string;
  summaryJson?: string;
  summaryMd?: string;
  merge?: string[];
}

/** A live line on a terminal: round, coverage per kind, elapsed. */
function progressRenderer(ctx: CliContext, json: boolean): { onEvent(e: LoopEvent): void; stop(): void } {
  if (json || !process.stderr.isTTY) {
    return {
      onEvent(e) {
        if (json) return;
        if (e.type === 'roundEnd')
          ctx.logger.info(`round ${e.round.index}: ${e.round.status}, ${formatSummary(e.round.coverage)}`);
        if (e.type === 'log') ctx.logger[e.level](e.message);
      },
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      format: `${pc.cyan('{bar}')} {value}% overall | round {round} | line {line} branch {branch} toggle {toggle} | {elapsed}s {status}`,
      barsize: 24,
      hideCursor: true,
      stream: process.stderr,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  const payload = { round: 1, line: '-', branch: '-', toggle: '-', elapsed: '0', status: '' };
  bar.start(100, 0, payload);
  const timer = setInterval(() => bar.update({ elapsed: ((Date.now() - started) / 1000).toFixed(0) }), 500);
  return {
    onEvent(e) {
      if (e.type === 'log' && e.level !== 'info') {
        // Warnings (what the context budget will trim, a failing endpoint) print above the bar, which redraws below.
        process.stderr.write('\r\x1b[2K');
        ctx.logger[e.level](e.message);
        bar.update({});
      }
      if (e.type === 'roundStart') bar.update({ round: e.round, status: '' });
      if (e.type === 'tokens') bar.update({ status: pc.dim('generating…') });
      if (e.type === 'build') bar.update({ status: pc.dim(e.status === 'ok' ? 'simulating…' : e.status) });
      if (e.type === 'coverage' && e.status === 'ok') {
        const c = e.coverage;
        bar.update(Math.round(overallPct(c)), {
          line: `${c.line.pct}%`,
          branch: `${c.branch.pct}%`,
          toggle: `${c.toggle.pct}%`,
          status: '',
        });
      }
    },
    stop() {
      clearInterval(timer);
      bar.stop();
    },
  };
}

function printResult(ctx: CliContext, r: GenerateResult, name: FileNamer): void {
  ctx.out(
    `${pc.bold(r.top)} — ${r.engine} engine, ${r.rounds.length} round(s), stopped: ${r.stopReason}${r.stopDetail ? ` (${r.stopDetail})` : ''}`,
  );
  ctx.out(coverageTable(r.coverage, r.targets, r.verdict));
  if (r.verdict) ctx.out(verdictLine(r.verdict));
  if (r.holes.length) {
    ctx.out(pc.bold('Holes:'));
    ctx.out(holesList(namedHoles(r.holes, name)));
  }
  ctx.out(closureLine(r));
  if (r.waivers) ctx.out(waiverLine(r.waivers, name));
  // The regression's files by their path from the working folder: they are often all named coverage.dat.
  if (r.regression) ctx.out(regressionLines(r.regression, (f) => relative(process.cwd(), f) || f));
  if (r.designWarnings?.length) {
    ctx.out(pc.bold(`Warnings in the design (lint, not fatal): ${r.designWarnings.length}`));
    for (const d of r.designWarnings)
      ctx.out(
        `  ${name(d.file)}${d.line ? `:${d.line}` : ''}${d.column ? `:${d.column}` : ''}: ${pc.yellow('warning')}: ${d.message}`,
      );
  }
  if (r.testbenchPath) ctx.out(`Testbench: ${r.testbenchPath}`);
}

async function action(files: string[], flags: GenerateFlags, ctx: CliContext): Promise<void> {
  const targets = flags.target ? parseTargets(flags.target) : DEFAULT_TARGETS;
  const design = await designInput(files, flags);
  const regression = (flags.merge ?? []).map((f) => resolve(f));
  // Refuse an --out CHORUS may not replace before the run, not after minutes of work (checked again on write).
  const inputs = [
    ...design.files,
    ...(flags.filelist ?? []),
    ...flags.spec,
    ...(flags.promptTemplates ? [flags.promptTemplates] : []),
    ...regression,
  ];
  const target = (path: string): OutputTarget => ({
    path,
    option: '--out',
    kind: 'testbench',
    force: Boolean(flags.force),
    inputs,
  });
  if (flags.out) await checkOutputTarget(target(resolve(flags.out)));
  // Every file the run's result is exported to, checked before the run and written after it by the one output rule.
  type Export = { option: string; kind: OutputKind; path: string; text: (r: EngineResult) => string };
  const exports: Export[] = [];
  const add = (path: string | undefined, e: Omit<Export, 'path'>) =>
    path && exports.push({ ...e, path: resolve(path) });
  add(flags.vlt, { option: '--vlt', kind: 'vlt', text: (r) => toVlt(r.points, r.holes) });
  add(flags.lcov, { option: '--lcov', kind: 'lcov', text: (r) => lcovWithoutExcluded(r.points, r.holes) });
  add(flags.cobertura, {
    option: '--cobertura',
    kind: 'cobertura',
    text: (r) =>
      coberturaWithoutExcluded(r.points, r.holes, { base: process.cwd(), version: pkg.version, timestamp: Date.now() }),
  });
  const place = { dutPath: flags.dutPath, dutInstance: flags.instance ?? DEFAULT_INSTANCE };
  add(flags.urgEl, { option: '--urg-el', kind: 'urgEl', text: (r) => toUrgEl(r.points, r.holes, place) });
  add(flags.imcTcl, { option: '--imc-tcl', kind: 'imcTcl', text: (r) => toImcTcl(r.points, r.holes, place) });
  add(flags.summaryJson, { option: '--summary-json', kind: 'summaryJson', text: summaryJson });
  add(flags.summaryMd, { option: '--summary-md', kind: 'summaryMd', text: summaryMarkdown });
  const exportTarget = (e: Export): OutputTarget => ({
    path: e.path,
    option: e.option,
    kind: e.kind,
    force: Boolean(flags.force),
    inputs,
  });
  for (const e of exports) await checkOutputTarget(exportTarget(e));
  const waivers = flags.waivers ? resolve(flags.waivers) : undefined;
  if (waivers) {
    await checkOutputTarget({
      path: waivers,
      option: '--waivers',
      kind: 'waivers',
      force: Boolean(flags.force),
      inputs,
    });
  }
  const models = cliModels(flags, ctx);
  let result: GenerateResult;
  try {
    const { request, dut } = await planRun(
      {
        files: design.files,
        includeDirs: design.includeDirs,
        defines: design.defines,
        parameters: design.parameters,
        specFiles: flags.spec.map((f) => resolve(f)),
        top: flags.top ?? design.top,
        instanceName: flags.instance,
        engine: flags.engine,
        targets,
        rounds: flags.rounds,
        seed: flags.seed,
        budgetSeconds: flags.budgetSeconds,
        simTimeoutSeconds: flags.timeout,
        contextSize: flags.contextSize,
        candidates: flags.candidates,
        ...(flags.requireRaw ? { requireRaw: true } : {}),
        ...(regression.length ? { regression } : {}),
        ...(waivers ? { waivers: { file: waivers, force: Boolean(flags.force) } } : {}),
        ...(flags.promptTemplates ? { promptTemplates: resolve(flags.promptTemplates) } : {}),
        sampling: {
          ...(flags.temperature !== undefined ? { temperature: flags.temperature } : {}),
          ...(flags.maxTokens !== undefined ? { maxTokens: flags.maxTokens } : {}),
          ...(flags.thinking ? { thinking: flags.thinking === 'on' } : {}),
        },
      },
      models,
    );
    // The default testbench path is known once the top is: refused now too, not after the run.
    if (!flags.out && request.top) await checkOutputTarget(target(resolve(`tb_${request.top}.sv`)));
    if (!flags.engine && request.engine === 'random' && !flags.json) {
      ctx.logger.info(
        'No model configured or found in models/: using the model-free engine (pass --model or --endpoint to use the LLM).',
      );
    }
    const progress = progressRenderer(ctx, Boolean(flags.json));
    try {
      const full = await generateToEnd(
        { ...request, formal: flags.formal !== false },
        {
          logger: ctx.logger,
          signal: ctx.signal,
          models,
          verilatorPath: process.env.CHORUS_VERILATOR,
          memoryLimitBytes: flags.memoryLimit,
          cacheMaxBytes: flags.cacheMax,
        },
        (e) => progress.onEvent(e),
        dut,
      );
      const { points: _points, ...wire } = full;
      result = wire;
      for (const e of exports) await writeOutput(exportTarget(e), e.text(full));
    } finally {
      progress.stop();
    }
  } finally {
    await models.dispose();
  }
  if (result.testbench) {
    const out = resolve(flags.out ?? `tb_${result.top}.sv`);
    await checkOutputTarget(target(out));
    await writeTestbench(out, result.testbench, Boolean(flags.force));
    result.testbenchPath = out;
  }
  // Files as the user named them; the run's own testbench (in a removed run folder) by its base name.
  const name = givenNames(design.files, (f) => basename(f));
  if (flags.json) {
    const { lines: _lines, ...rest } = result;
    ctx.out(
      JSON.stringify(
        {
          ...rest,
          holes: namedHoles(rest.holes, name),
          diagnostics: rest.diagnostics.map((d) => ({ ...d, file: name(d.file) })),
          designWarnings: (rest.designWarnings ?? []).map((d) => ({ ...d, file: name(d.file) })),
        },
        null,
        2,
      ),
    );
  } else {
    printResult(ctx, result, name);
  }
  process.exitCode = result.verdict?.exitCode ?? (result.stopReason === 'cancelled' ? 130 : 1);
}

export const registerGenerate: RegisterCommand = (program: Command, ctx: CliContext) => {
  const command = program
    .command('generate')
    .description('Generate a high-coverage stimulus testbench for a DUT.')
    .argument('[rtl...]', 'DUT source files (Verilog/SystemVerilog); or give --filelist')
    .option('--top <module>', 'DUT top module (found by analysis when omitted)')
    .option('--spec <file>', 'specification file given to the model (repeatable)', collect, [])
    .option(
      '--engine <name>',
      'random | llm | hybrid (default: llm when a model is configured or found, else random)',
      oneOf('--engine', ['random', 'llm', 'hybrid'] as const),
    )
    .option('--target <targets>', 'coverage targets, e.g. line=100,branch=100,toggle=80,fsm=100', undefined)
    .option(
      '--rounds <n>',
      'LLM refinement rounds after the first generation (default 3: 1 + 3 generations, as LLM4Cov)',
      positiveInt('--rounds'),
    )
    .option('--out <path>', 'where to write the testbench (default ./tb_<top>.sv)')
    .option('--force', 'overwrite --out even when CHORUS did not write it (never a design, filelist or spec file)')
    .option('--seed <n>', 'random seed for reproducible runs', nonNegativeInt('--seed'))
    .option('--budget-seconds <n>', 'time budget for the search', positiveNumber('--budget-seconds'))
    .option('--timeout <seconds>', 'wall-clock bound per simulation (default 30)', positiveNumber('--timeout'))
    .option('--model <uri>', 'model: a .gguf path, a manifest id, hf:… (downloaded), or replay:<file.json>')
    .option('--endpoint <url>', 'OpenAI-compatible endpoint base URL (vLLM, SGLang, llama.cpp server, Ollama)')
    .option('--api-model <name>', 'model name at the endpoint')
    .option(
      '--candidates <k>',
      'candidate testbenches per round, the simulator keeps the best (default: 1; 4 on a local GPU; one per expert)',
      positiveInt('--candidates'),
    )
    .option(
      '--expert <uri>',
      'an expert for the candidates (repeatable): a .gguf, lora:<adapter.gguf> on --model, endpoint:<model>, http(s)://…/v1#<model>, replay:<file>',
      collect,
      [],
    )
    .option(
      '--context-size <tokens>',
      'model context to allocate (local) or assume (endpoint), in tokens; prompts are fitted into it',
      positiveInt('--context-size'),
    )
    .option(
      '--gpu <kind>',
      'local model compute: auto | cuda | vulkan | metal | cpu (default auto)',
      oneOf('--gpu', ['auto', 'cuda', 'vulkan', 'metal', 'cpu'] as const),
    )
    .option('--threads <n>', 'CPU threads for a local model', positiveInt('--threads'))
    .option(
      '--max-tokens <n>',
      'longest reply in tokens (default 16384, the paper protocol)',
      positiveInt('--max-tokens'),
    )
    .option('--temperature <t>', 'sampling temperature, 0 to 2 (default 0.7)', numberIn('--temperature', 0, 2))
    .option(
      '--thinking <on|off>',
      'Qwen3-style models: let the model think before answering, or not',
      oneOf('--thinking', ['on', 'off'] as const),
    )
    .option(
      '--request-timeout <seconds>',
      'endpoint: longest wait for an answer to start, and longest silence mid-reply',
      positiveNumber('--request-timeout'),
    )
    .option(
      '--prompt-templates <file.json>',
      'prompt wording over the built-in templates (for a model trained on other words)',
    )
    .option('--instance <name>', 'DUT instance name in the testbench (default uut)')
    .option('--no-formal', 'do not hand the holes the search leaves to the formal engine (Yosys)')
    .option('--require-raw', 'judge the targets on raw coverage: points proven unreachable or waived count as missed')
    .option(
      '--waivers <file>',
      "waiver file (docs/waivers.md): its entries exclude the points they waive; rewritten with this run's proofs",
    )
    .option('--vlt <file>', 'Verilator configuration turning coverage off on lines whose every point is excluded')
    .option('--lcov <file>', 'lcov tracefile of the result, its excluded (proven or waived) points left out')
    .option(
      '--cobertura <file>',
      'Cobertura XML of the result for GitLab, Jenkins, Azure (files relative to the working folder), excluded points left out',
    )
    .option('--urg-el <file>', 'Synopsys URG exclusion file (urg -elfile) of the excluded toggle points')
    .option('--imc-tcl <file>', 'Cadence IMC exclude commands of the excluded toggle signals')
    .option(
      '--dut-path <path>',
      "the DUT's instance path in your regression's testbench, for --urg-el and --imc-tcl",
      'tb.dut',
    )
    .option('--summary-json <file>', 'JSON summary for CI: raw and signoff coverage per kind, the verdict, waivers')
    .option('--summary-md <file>', 'Markdown summary fit for a pull-request comment')
    .option(
      '--merge <coverage.dat...>',
      "your regression's coverage files (Verilator coverage.dat, any testbench hierarchy above the DUT): the run " +
        'starts from their merge, targets only what they leave and reports the regression, its addition and the merge ' +
        '(--engine random; give the RTL files before --merge)',
    )
    .option('--json', 'print only the result as JSON')
    .option(
      '--memory-limit <size>',
      'most memory CHORUS and the tool building or running a testbench may hold, e.g. 4G, 2048M (default 4G)',
      byteSize('--memory-limit'),
    )
    .option('--cache-max <size>', 'byte cap of the build cache, e.g. 2G, 500M (default 2G)', byteSize('--cache-max'));
  command.addHelpText('after', VERDICT_HELP);
  addDesignOptions(command).action((files: string[], flags: GenerateFlags) => action(files, flags, ctx));
};
