// Shared by the sim tests: fixture paths, one build cache for the suite, and process checks in /proc.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot } from '../helpers/cli';
import { currentVerilator } from '../helpers/verilators';

export const fixtures = join(repoRoot, 'test', 'fixtures', 'sim');
export const counterRtl = join(repoRoot, 'examples', 'counter', 'counter.sv');

/**
 * One cache for the whole suite (and across runs): the Verilator runtime objects and ccache stay warm, so
 * each new testbench costs only its own compile. Concurrent test files share it safely (that is the point
 * of the cache lock).
 */
export const suiteCache = process.env.CHORUS_TEST_SIM_CACHE ?? join(tmpdir(), 'chorus-test-sim-cache');

export function fixture(name: string): string {
  return join(fixtures, name);
}

/** 1-based line of the first line in `file` containing `needle` (so tests do not hard-code fixture lines). */
export function lineOf(file: string, needle: string): number {
  const idx = readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(needle));
  if (idx < 0) throw new Error(`${needle} not found in ${file}`);
  return idx + 1;
}

/** Pids of live processes whose command line mentions `needle` or whose working folder lies under it. */
export function processesMentioning(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // A zombie has already exited; it holds no resources beyond its entry.
      if (/^\d+ \(.*\) Z /.test(stat)) continue;
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        // not ours to read
      }
      if (cmdline.includes(needle) || cwd.startsWith(needle)) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Runs verilator_coverage (the reference tool) of the Verilator under test and returns its stdout. */
export function verilatorCoverage(args: string[]): string {
  const verilator = currentVerilator().path;
  const tool = verilator.includes('/') ? join(dirname(verilator), 'verilator_coverage') : 'verilator_coverage';
  return execFileSync(tool, args, { encoding: 'utf8' });
}

/** `DA:line,count` entries of one source file in an lcov tracefile. */
export function lcovLines(info: string, file: string): Map<number, number> {
  const out = new Map<number, number>();
  let current = '';
  for (const line of info.split('\n')) {
    if (line.startsWith('SF:')) current = line.slice(3);
    const m = /^DA:(\d+),(\d+)/.exec(line);
    if (m && current === file) out.set(Number(m[1]), Number(m[2]));
  }
  return out;
}
