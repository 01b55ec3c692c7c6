/** `chorus generate`: close coverage on a DUT with the model-free engine, the model, or both. */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import pc from 'picocolors';
import { checkTestbenchTarget, generateToEnd, parseTargets, writeTestbench, formatSummary, overallPct, type GenerateRequest } from '../../engine';
import { findDefaultModel, openBackend } from '../../llm';
import type { ChatBackend } from '../../llm/backend';
import { DEFAULT_TARGETS, type EngineName, type GenerateResult, type LoopEvent } from '../../protocol';
import type { CliContext } from '../context';
import { coverageTable, holesList } from '../format';
import { cliModelDirs } from '../modelDirs';
import { collect, oneOf, positiveInt, nonNegativeInt, positiveNumber } from '../options';
import type { RegisterCommand } from './index';

interface GenerateFlags {
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
}

/** A live line on a terminal: round, coverage per kind, elapsed. */
function progressRenderer(ctx: CliContext, json: boolean): { onEvent(e: LoopEvent): void; stop(): void } {
  if (json || !process.stderr.isTTY) {
    return {
      onEvent(e) {
        if (json) return;
        if (e.type === 'roundEnd') ctx.logger.info(`round ${e.round.index}: ${e.round.status}, ${formatSummary(e.round.coverage)}`);
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

function printResult(ctx: CliContext, r: GenerateResult): void {
  ctx.out(`${pc.bold(r.top)} — ${r.engine} engine, ${r.rounds.length} round(s), stopped: ${r.stopReason}`);
  ctx.out(coverageTable(r.coverage, r.targets));
  ctx.out(r.pass ? pc.green('Targets met.') : pc.red(`Targets not met (${Object.entries(r.targets).map(([k, v]) => `${k} ${v}%`).join(', ')}).`));
  if (r.holes.length) {
    ctx.out(pc.bold('Holes:'));
    ctx.out(holesList(r.holes));
  }
  if (r.testbenchPath) ctx.out(`Testbench: ${r.testbenchPath}`);
}

async function chooseModel(flags: GenerateFlags, ctx: CliContext): Promise<{ engine: EngineName; backend?: ChatBackend }> {
  const wantsModel = flags.engine === 'llm' || flags.engine === 'hybrid';
  const model = flags.model ?? process.env.CHORUS_MODEL ?? (flags.endpoint ? undefined : findDefaultModel(cliModelDirs()));
  const configured = Boolean(model || flags.endpoint);
  let engine: EngineName;
  if (flags.engine) engine = flags.engine;
  else if (configured) engine = 'llm';
  else {
    engine = 'random';
    if (!flags.json) ctx.logger.info('No model configured or found in models/: using the model-free engine (pass --model or --endpoint to use the LLM).');
  }
  if (engine === 'random') return { engine };
  if (!configured && wantsModel) {
    return { engine, backend: undefined };
  }
  const backend = await openBackend(model, {
    logger: ctx.logger,
    signal: ctx.signal,
    modelDirs: cliModelDirs(),
    endpoint: flags.endpoint ? { baseUrl: flags.endpoint, model: flags.apiModel, apiKey: process.env.CHORUS_API_KEY } : undefined,
  });
  return { engine, backend };
}

async function action(files: string[], flags: GenerateFlags, ctx: CliContext): Promise<void> {
  const targets = flags.target ? parseTargets(flags.target) : DEFAULT_TARGETS;
  // Refuse an --out CHORUS may not replace before the run, not after minutes of work (checked again on write).
  if (flags.out) await checkTestbenchTarget(resolve(flags.out), Boolean(flags.force));
  const { engine, backend } = await chooseModel(flags, ctx);
  const req: GenerateRequest = {
    rtlFiles: files.map((f) => resolve(f)),
    specFiles: flags.spec.map((f) => resolve(f)),
    top: flags.top,
    instanceName: flags.instance,
    engine,
    targets,
    rounds: flags.rounds,
    seed: flags.seed,
    budgetSeconds: flags.budgetSeconds,
    simTimeoutSeconds: flags.timeout,
    workspaceRoot: process.cwd(),
  };
  const progress = progressRenderer(ctx, Boolean(flags.json));
  let result: GenerateResult;
  try {
    result = await generateToEnd(req, { logger: ctx.logger, signal: ctx.signal, backend, verilatorPath: process.env.CHORUS_VERILATOR }, (e) => progress.onEvent(e));
  } finally {
    progress.stop();
    await backend?.dispose();
  }
  if (result.testbench) {
    const out = resolve(flags.out ?? `tb_${result.top}.sv`);
    await writeTestbench(out, result.testbench, Boolean(flags.force));
    result.testbenchPath = out;
  }
  if (flags.json) {
    const { lines: _lines, points: _points, ...rest } = result;
    ctx.out(JSON.stringify(rest, null, 2));
  } else {
    printResult(ctx, result);
  }
  process.exitCode = result.stopReason === 'cancelled' ? 130 : result.pass ? 0 : 1;
}

export const registerGenerate: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('generate')
    .description('Generate a high-coverage stimulus testbench for a DUT.')
    .argument('<rtl...>', 'DUT source files (Verilog/SystemVerilog)')
    .option('--top <module>', 'DUT top module (found by analysis when omitted)')
    .option('--spec <file>', 'specification file given to the model (repeatable)', collect, [])
    .option('--engine <name>', 'random | llm | hybrid (default: llm when a model is configured or found, else random)', oneOf('--engine', ['random', 'llm', 'hybrid'] as const))
    .option('--target <targets>', 'coverage targets, e.g. line=100,branch=100,toggle=80', undefined)
    .option('--rounds <n>', 'LLM rounds (default 3)', positiveInt('--rounds'))
    .option('--out <path>', 'where to write the testbench (default ./tb_<top>.sv)')
    .option('--force', 'overwrite --out even when CHORUS did not write it')
    .option('--seed <n>', 'random seed for reproducible runs', nonNegativeInt('--seed'))
    .option('--budget-seconds <n>', 'time budget for the search', positiveNumber('--budget-seconds'))
    .option('--timeout <seconds>', 'wall-clock bound per simulation (default 30)', positiveNumber('--timeout'))
    .option('--model <uri>', 'model: a .gguf path, a manifest id, hf:… (downloaded), or replay:<file.json>')
    .option('--endpoint <url>', 'OpenAI-compatible endpoint base URL (vLLM, SGLang, llama.cpp server, Ollama)')
    .option('--api-model <name>', 'model name at the endpoint')
    .option('--instance <name>', 'DUT instance name in the testbench (default uut)')
    .option('--json', 'print only the result as JSON')
    .action((files: string[], flags: GenerateFlags) => action(files, flags, ctx));
};
