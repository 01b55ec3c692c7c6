/** `chorus bench`: run an ECov-schema JSONL dataset through an engine and report Pass@k, Cov@1 and times. */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { checkBenchOutputs, decideEngine, missingModelError, writeFileAtomic } from '../../engine';
import { ChorusError, type EngineName } from '../../protocol';
import { readUserText } from '../../protocol/userFile';
import { expertMarkdown, expertStats } from '../bench/experts';
import { benchMarkdown, benchSvg } from '../bench/report';
import { metricMapping, runBench, type BenchReport } from '../bench/run';
import { mergeShards, parseShard, shardLines, SHARD_FILE, type Shard, type ShardRecord } from '../bench/shard';
import { parseItems } from '../bench/schema';
import type { CliContext } from '../context';
import { parameterArg, parameterPairs } from '../design';
import { cliModels } from '../models';
import { collect, nonNegativeInt, oneOf, positiveInt, positiveNumber } from '../options';
import { byteSize } from './cache';
import type { RegisterCommand } from './register';

interface BenchFlags {
  engine: EngineName;
  model?: string;
  endpoint?: string;
  apiModel?: string;
  samples: number;
  rounds?: number;
  concurrency: number;
  out?: string;
  force?: boolean;
  json?: boolean;
  seed: number;
  budgetSeconds?: number;
  timeout?: number;
  limit?: number;
  param: string[];
  memoryLimit?: number;
  cacheMax?: number;
  candidates?: number;
  expert?: string[];
  /** False with --no-formal. */
  formal?: boolean;
  shard?: Shard;
}

async function action(dataset: string, flags: BenchFlags, ctx: CliContext): Promise<void> {
  let text: string;
  try {
    text = await readUserText(resolve(dataset), { what: 'dataset' });
  } catch (err) {
    throw new ChorusError(
      'bad_input',
      `Cannot read the dataset ${dataset}: ${(err as Error).message}`,
      { file: dataset },
      { cause: err },
    );
  }
  // A real-IP item names its filelist relative to the dataset's folder.
  let all = parseItems(text, dirname(resolve(dataset)));
  if (flags.limit) all = all.slice(0, flags.limit);
  if (!all.length) throw new ChorusError('bad_input', `${dataset} holds no items.`, { file: dataset });
  if (flags.shard && !flags.out)
    throw new ChorusError('bad_input', "--shard needs --out: `chorus bench merge` reads each shard's folder.");
  const { lines, positions } = flags.shard ? shardLines(all, flags.shard) : { lines: all, positions: [] };
  // Refused before the items run, not after hours of them (checked again on write).
  if (flags.out) await checkBenchOutputs(resolve(flags.out), Boolean(flags.force), [resolve(dataset)]);
  // One backend for every item and sample: a local model is loaded once, not per run.
  const models = cliModels(flags, ctx);
  const decided = decideEngine(flags.engine, models);
  if (decided.missingModel) throw missingModelError(decided.engine);
  const backend = decided.engine !== 'random' ? await models.open(ctx.signal) : undefined;
  const opened = decided.engine !== 'random' ? await models.experts?.(ctx.signal) : undefined;
  for (const f of opened?.failures ?? [])
    ctx.logger.error(`Expert ${f.expert} could not be opened: ${f.message}. The other experts go on.`);
  const workDir = await mkdtemp(join(tmpdir(), 'chorus-bench-'));
  const bar =
    !flags.json && process.stderr.isTTY
      ? new cliProgress.SingleBar(
          {
            format: 'bench {bar} {value}/{total} items | passed {passed} | {id}',
            stream: process.stderr,
            hideCursor: true,
          },
          cliProgress.Presets.shades_classic,
        )
      : null;
  let passed = 0;
  bar?.start(lines.length, 0, { passed: 0, id: '' });
  try {
    const ran = await runBench(
      lines,
      {
        engine: flags.engine,
        samples: flags.samples,
        rounds: flags.rounds,
        concurrency: flags.concurrency,
        budgetSeconds: flags.budgetSeconds,
        simTimeoutSeconds: flags.timeout,
        seed: flags.seed,
        candidates: flags.candidates,
        workDir,
        parameters: parameterPairs(flags.param),
        formal: flags.formal !== false,
      },
      {
        logger: ctx.logger,
        signal: ctx.signal,
        backend,
        experts: opened?.experts.length ? opened.experts : undefined,
        memoryLimitBytes: flags.memoryLimit,
        cacheMaxBytes: flags.cacheMax,
      },
      (e) => {
        if (e.type === 'itemStart') bar?.update({ id: e.id });
        if (e.type === 'itemEnd') {
          if (e.result.pass) passed++;
          if (bar) bar.update(e.done, { passed });
          else if (!flags.json) {
            const closure = e.result.error
              ? ''
              : e.result.closed
                ? ', closed'
                : `, ${e.result.open_points} line/branch point(s) neither covered nor proven`;
            ctx.logger.info(
              `[${e.done}/${e.total}] ${e.result.id}: ${e.result.pass ? 'pass' : 'fail'} (overall ${e.result.coverage.overall}%${closure})${e.result.error ? ` — ${e.result.error.split('\n')[0]}` : ''}`,
            );
          }
        }
      },
    );
    bar?.stop();
    // A shard's figures are of its items; the metric names are the whole dataset's, as a single run lists them.
    const report: BenchReport = { ...ran, mapping: metricMapping(all) };
    if (flags.shard && flags.out) {
      const record: ShardRecord = {
        shard: flags.shard,
        total: all.length,
        positions,
        engine: report.engine,
        samples: report.samples,
        mapping: report.mapping,
        total_ms: report.total_ms,
        results: report.results,
      };
      await mkdir(resolve(flags.out), { recursive: true });
      await writeFileAtomic(join(resolve(flags.out), SHARD_FILE), JSON.stringify(record) + '\n');
    }
    await publish(report, `chorus bench: ${dataset}`, flags, ctx, [resolve(dataset)]);
  } finally {
    bar?.stop();
    await models.dispose();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The report to --out (results.json, summary.md, chart.svg) and stdout: one run's or the merged shards'. */
async function publish(
  report: BenchReport,
  title: string,
  flags: { out?: string; force?: boolean; json?: boolean },
  ctx: CliContext,
  inputs: string[],
): Promise<void> {
  const experts = expertStats(report.results);
  const slim = {
    ...report,
    ...(experts ? { experts } : {}),
    results: report.results.map(({ all: _all, ...r }) => r),
  };
  if (flags.out) {
    const out = resolve(flags.out);
    await mkdir(out, { recursive: true });
    await checkBenchOutputs(out, Boolean(flags.force), inputs);
    await writeFileAtomic(join(out, 'results.json'), JSON.stringify(slim, null, 2) + '\n');
    await writeFileAtomic(
      join(out, 'summary.md'),
      benchMarkdown(report, title) + (experts ? `\n${expertMarkdown(experts)}` : ''),
    );
    await writeFileAtomic(join(out, 'chart.svg'), benchSvg(report));
  }
  if (flags.json) ctx.out(JSON.stringify(slim, null, 2));
  else {
    // The text before the chart's image: split yields at least one piece, so the default is never used.
    const [table = ''] = benchMarkdown(report, title).split('\n![');
    ctx.out(table);
    if (experts) ctx.out(expertMarkdown(experts));
    if (flags.out) ctx.out(`Results written to ${resolve(flags.out)}`);
  }
  process.exitCode = 0;
}

export const registerBench: RegisterCommand = (program: Command, ctx: CliContext) => {
  const bench = program.command('bench');
  bench
    .description('Run an ECov-schema JSONL dataset through an engine: Pass@1, Pass@k, Cov@1, compile rate and times.')
    .argument('<items.jsonl>', 'benchmark items, one JSON object per line (CVDP-ECov schema)')
    .option(
      '--engine <name>',
      'random | llm | hybrid',
      oneOf('--engine', ['random', 'llm', 'hybrid'] as const),
      'random',
    )
    .option('--model <uri>', 'model for llm/hybrid: a .gguf path, manifest id or replay:<file>')
    .option('--endpoint <url>', 'OpenAI-compatible endpoint base URL')
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
    .option('--samples <k>', 'samples per item (Pass@k uses k = samples)', positiveInt('--samples'), 1)
    .option(
      '--rounds <n>',
      'LLM refinement rounds per sample after the first generation (default 3: 1 + 3 generations)',
      positiveInt('--rounds'),
    )
    .option('--concurrency <n>', 'items run at once', positiveInt('--concurrency'), 1)
    .option('--budget-seconds <n>', 'model-free search budget per sample', positiveNumber('--budget-seconds'))
    .option('--no-formal', 'do not hand the holes the search leaves to the formal engine (Yosys)')
    .option('--timeout <seconds>', 'wall-clock bound per simulation', positiveNumber('--timeout'))
    .option('--seed <n>', 'base seed (sample k uses seed + k)', nonNegativeInt('--seed'), 1)
    .option('--limit <n>', 'only the first n items', positiveInt('--limit'))
    .option(
      '-G, --param <NAME=VALUE>',
      "top parameter override for every item, over an item's own parameters (repeatable)",
      parameterArg,
      [],
    )
    .option(
      '--shard <i/n>',
      'run only items p with p mod n = i - 1 (needs --out; join the shards with `bench merge`)',
      parseShard,
    )
    .option('--out <dir>', 'write results.json, summary.md and chart.svg here')
    .option(
      '--force',
      'replace results.json, summary.md and chart.svg in --out even when chorus bench did not write them',
    )
    .option('--json', 'print only the JSON result')
    .option(
      '--memory-limit <size>',
      'most memory CHORUS and the tool building or running a testbench may hold, e.g. 4G, 2048M (default 4G)',
      byteSize('--memory-limit'),
    )
    .option('--cache-max <size>', 'byte cap of the build cache, e.g. 2G, 500M (default 2G)', byteSize('--cache-max'))
    .action((dataset: string, flags: BenchFlags) => action(dataset, flags, ctx));
  bench
    .command('merge')
    .description('Merge the --out folders of `chorus bench --shard i/n` runs into the report of one run.')
    .argument('<dirs...>', "every shard's --out folder")
    .option('--out <dir>', 'write results.json, summary.md and chart.svg here')
    .option('--force', 'replace those files in --out even when chorus bench did not write them')
    .option('--json', 'print only the JSON result')
    .action(async (dirs: string[], _own: unknown, command: Command) => {
      // `bench`'s own --out, --force and --json are read before the subcommand: the merged view of both.
      const flags = command.optsWithGlobals<{ out?: string; force?: boolean; json?: boolean }>();
      const report = await mergeShards(dirs.map((d) => resolve(d)));
      if (flags.out) await checkBenchOutputs(resolve(flags.out), Boolean(flags.force), []);
      await publish(report, `chorus bench merge: ${dirs.join(' ')}`, flags, ctx, []);
    });
};
