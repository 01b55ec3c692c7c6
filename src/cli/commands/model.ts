/** `chorus model list | pull | info`: the models CHORUS knows and finds, downloads, and what a GGUF file is. */
import { resolve } from 'node:path';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import pc from 'picocolors';
import { listModels, modelInfo, pullModel, type ModelInfo } from '../../engine';
import type { ModelChoice } from '../../protocol';
import type { CliContext } from '../context';
import { cliManifestPath, cliModelDirs } from '../modelDirs';
import { collect } from '../options';
import type { RegisterCommand } from './register';

export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return '?';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let n = bytes;
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${i === 0 ? n : n.toFixed(1)} ${units[i]}`;
}

function formatParameters(n: number | undefined): string {
  if (!n) return '?';
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} K`;
  return String(n);
}

function modelDirsFrom(flags: { modelsDir: string[] }): string[] {
  return [...new Set([...flags.modelsDir.map((d) => resolve(d)), ...cliModelDirs()])];
}

function listText(choices: ModelChoice[]): string {
  if (!choices.length) return 'No models known or found. Put a .gguf into models/ or run `chorus model pull <id|uri>`.';
  const rows = choices.map((c) => {
    const state = c.present ? pc.green('present') : pc.yellow(c.source === 'endpoint' ? 'unreachable' : 'missing');
    const hint = c.present
      ? (c.path ?? '')
      : c.downloadable
        ? pc.dim(`chorus model pull ${c.id}`)
        : c.source === 'manifest'
          ? pc.dim('put its .gguf into models/')
          : '';
    return `  ${c.id.padEnd(28)} ${c.source.padEnd(8)} ${formatBytes(c.sizeBytes).padStart(10)}  ${state.padEnd(7)}  ${hint}`;
  });
  return [pc.bold(`  ${'id'.padEnd(28)} ${'source'.padEnd(8)} ${'size'.padStart(10)}  state    where`), ...rows].join(
    '\n',
  );
}

function infoText(path: string, i: ModelInfo): string {
  return [
    `file:          ${path}`,
    `name:          ${i.name ?? '?'}`,
    `architecture:  ${i.architecture}`,
    `parameters:    ${formatParameters(i.parameters)}`,
    `quantization:  ${i.quantization ?? '?'}`,
    `context:       ${i.contextLength ?? '?'} tokens`,
    `chat template: ${i.chatTemplate ? 'present' : 'absent (a generic chat format will be used)'}`,
    `size:          ${formatBytes(i.sizeBytes)}`,
  ].join('\n');
}

/** A progress bar on an interactive terminal, a line per 10% otherwise. */
function progressReporter(ctx: CliContext, label: string): { update(done: number, total: number): void; stop(): void } {
  if (ctx.interactive && process.stderr.isTTY) {
    const bar = new SingleBar({
      format: `${label} [{bar}] {percentage}% {doneText}/{totalText}`,
      stream: process.stderr,
      hideCursor: true,
    });
    let started = false;
    return {
      update(done, total) {
        const payload = { doneText: formatBytes(done), totalText: formatBytes(total) };
        if (!started) {
          bar.start(Math.max(total, 1), done, payload);
          started = true;
        } else {
          bar.setTotal(Math.max(total, 1));
          bar.update(done, payload);
        }
      },
      stop: () => started && bar.stop(),
    };
  }
  let lastTenth = -1;
  return {
    update(done, total) {
      const tenth = total > 0 ? Math.floor((done / total) * 10) : 0;
      if (tenth > lastTenth) {
        lastTenth = tenth;
        ctx.logger.info(`${label}: ${tenth * 10}% (${formatBytes(done)} of ${formatBytes(total)})`);
      }
    },
    stop() {},
  };
}

export const registerModel: RegisterCommand = (program: Command, ctx: CliContext) => {
  const model = program.command('model').description('List, download and inspect models.');

  model
    .command('list')
    .description('Models in the manifest and GGUF files found (with size and whether present).')
    .option('--models-dir <dir>', 'also look in this folder (repeatable)', collect, [])
    .option('--manifest <file>', 'model manifest (default: models/manifest.json of this installation)')
    .option('--endpoint <url>', 'also list the models an OpenAI-compatible server serves')
    .option('--json', 'print JSON')
    .action(async (flags: { modelsDir: string[]; manifest?: string; endpoint?: string; json?: boolean }) => {
      const choices = await listModels({
        modelDirs: modelDirsFrom(flags),
        manifestPath: flags.manifest ? resolve(flags.manifest) : cliManifestPath(),
        endpoint: flags.endpoint ? { baseUrl: flags.endpoint } : undefined,
      });
      ctx.out(flags.json ? JSON.stringify(choices, null, 2) : listText(choices));
    });

  model
    .command('pull')
    .description(
      'Download a model (a manifest id, hf:<user>/<repo>/<file>.gguf or an https URL); resumes partial downloads.',
    )
    .argument('<id|uri>', 'what to download')
    .option('--dir <folder>', 'where to save it (default: the models/ folder of this installation)')
    .option('--sha256 <hex>', 'expected checksum (the manifest entry has its own)')
    .option('--manifest <file>', 'model manifest (default: models/manifest.json of this installation)')
    .option('--json', 'print JSON')
    .action(async (what: string, flags: { dir?: string; sha256?: string; manifest?: string; json?: boolean }) => {
      const destDir = flags.dir ? resolve(flags.dir) : cliModelDirs()[0];
      const progress = flags.json ? undefined : progressReporter(ctx, 'Downloading');
      try {
        const path = await pullModel(what, {
          destDir,
          signal: ctx.signal,
          logger: ctx.logger,
          sha256: flags.sha256?.toLowerCase(),
          manifestPath: flags.manifest ? resolve(flags.manifest) : cliManifestPath(),
          onProgress: (done, total) => progress?.update(done, total),
        });
        progress?.stop();
        ctx.out(flags.json ? JSON.stringify({ path }) : `Saved ${path}`);
      } finally {
        progress?.stop();
      }
    });

  model
    .command('info')
    .description('What a GGUF file is: architecture, parameters, quantization, context length, chat template.')
    .argument('<path>', 'a .gguf file')
    .option('--json', 'print JSON')
    .action(async (path: string, flags: { json?: boolean }) => {
      const full = resolve(path);
      const info = await modelInfo(full);
      ctx.out(flags.json ? JSON.stringify({ path: full, ...info }, null, 2) : infoText(full, info));
    });
};
