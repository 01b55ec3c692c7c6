/** `chorus cache info|clear`: the build cache's size against its cap, and emptying it. Also the size flags' parser. */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import pc from 'picocolors';
import { cacheInfo, clearCache, formatBytes, parseByteSize, type CacheInfo } from '../../engine';
import type { CliContext } from '../context';
import type { RegisterCommand } from './register';

/** Parser of a size flag (`--memory-limit 4G`, `--cache-max 500M`; a bare number is MiB). */
export function byteSize(name: string) {
  return (value: string): number => {
    const bytes = parseByteSize(value);
    if (bytes === undefined) throw new InvalidArgumentError(`${name} must be a size such as 4G, 512M or 2048 (MiB).`);
    return bytes;
  };
}

interface CacheFlags {
  cacheDir?: string;
  cacheMax?: number;
  json?: boolean;
}

function render(info: CacheInfo): string {
  const pct = info.capBytes ? Math.round((100 * info.totalBytes) / info.capBytes) : 0;
  return [
    `${pc.bold('Build cache')} ${info.root}`,
    `  total      ${formatBytes(info.totalBytes)} of ${formatBytes(info.capBytes)} (${pct}%)`,
    `  simulators ${formatBytes(info.builds.bytes)} in ${info.builds.count} build${info.builds.count === 1 ? '' : 's'}`,
    `  runtime    ${formatBytes(info.runtime.bytes)} (${info.runtime.count} Verilator runtime set${info.runtime.count === 1 ? '' : 's'}, ${info.runtime.precompiledHeaders} precompiled header${info.runtime.precompiledHeaders === 1 ? '' : 's'})`,
    `  ccache     ${formatBytes(info.ccacheBytes)}`,
    `  in progress or left over ${formatBytes(info.tmpBytes)}`,
  ].join('\n');
}

async function info(flags: CacheFlags, ctx: CliContext): Promise<void> {
  const result = await cacheInfo({ cacheDir: flags.cacheDir, cacheMaxBytes: flags.cacheMax });
  ctx.out(flags.json ? JSON.stringify(result, null, 2) : render(result));
}

async function clear(flags: CacheFlags, ctx: CliContext): Promise<void> {
  const result = await clearCache({ cacheDir: flags.cacheDir });
  if (flags.json) {
    ctx.out(JSON.stringify(result, null, 2));
    return;
  }
  const kept = result.keptInUse
    ? `; ${result.keptInUse} build${result.keptInUse === 1 ? '' : 's'} in use by a running CHORUS kept`
    : '';
  ctx.out(`Freed ${formatBytes(result.freedBytes)}${kept}.`);
}

export const registerCache: RegisterCommand = (program: Command, ctx: CliContext) => {
  const cache = program
    .command('cache')
    .description('Show or clear the build cache (simulators, Verilator runtime objects, precompiled headers, ccache).');
  const where = (c: Command): Command =>
    c
      .option(
        '--cache-dir <dir>',
        'the cache folder (default: CHORUS_CACHE_DIR, else $XDG_CACHE_HOME/chorus, else ~/.cache/chorus)',
      )
      .option('--json', 'print JSON');
  where(cache.command('info').description('Print the cache size against its cap, by part.'))
    .option(
      '--cache-max <size>',
      'the cap to compare with (default: CHORUS_CACHE_MAX, else 2G)',
      byteSize('--cache-max'),
    )
    .action((flags: CacheFlags) => info(flags, ctx));
  where(cache.command('clear').description('Remove everything not in use by a running CHORUS.')).action(
    (flags: CacheFlags) => clear(flags, ctx),
  );
};
