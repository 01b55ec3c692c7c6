/**
 * Runs a built simulator once, jailed, with a wall-clock and a simulated-time bound. The simulator stops
 * itself shortly before the wall-clock bound (and writes coverage); a run stuck inside one time step is killed
 * with its whole process group at the bound.
 */
import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ChorusError, silentLogger, throwIfAborted } from '../../protocol';
import { jailCommand } from '../sandbox/jail';
import { diskFull, guardWrites, infrastructureError, runPlace } from './infrastructure';
import { parseRuntimeOutput, type FileNamer } from './diagnostics';
import { renewLease } from '../cache/cacheLease';
import {
  formatBytes,
  limitFromExit,
  limitPhrase,
  MAX_TREE_PROCESSES,
  memoryLimitBytes,
  toolMemoryBytes,
} from '../process/limits';
import { runGroup } from '../process/processGroup';
import { parseStopLine } from './simMain';
import type { RunInput, RunResult, SimOptions } from '../types';

export const DEFAULT_RUN_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_SIM_TIME = 10_000_000;
const DEFAULT_OUTPUT_CAP = 256 * 1024;

/** Largest file a simulation may write (its coverage file included). Memory: the configured limit (limits.ts). */
const SIM_FILE_BYTES = 1024 ** 3;

/** The simulator stops itself this long before the hard bound, so coverage is still written. */
function softDeadline(timeoutMs: number): number {
  return Math.max(1, timeoutMs - Math.min(2000, Math.floor(timeoutMs * 0.2)));
}

export async function runSimulation(input: RunInput, opts: SimOptions & { namer?: FileNamer }): Promise<RunResult> {
  const logger = opts.logger ?? silentLogger;
  throwIfAborted(opts.signal);
  const binary = resolve(input.binary);
  const bin = await stat(binary).catch(() => undefined);
  if (!bin?.isFile())
    throw new ChorusError('failed', `Simulator ${binary} is missing: build the testbench again (buildSimulation).`, {
      file: binary,
    });
  const coverageFile = resolve(input.coverageFile);
  const cwd = resolve(input.cwd ?? dirname(coverageFile));
  await guardWrites(runPlace(cwd), async () => {
    await mkdir(cwd, { recursive: true });
    await mkdir(dirname(coverageFile), { recursive: true });
    await rm(coverageFile, { force: true });
  });

  // A cached simulator in use stays in the cache (no-op for a binary outside it).
  await renewLease(dirname(binary));
  const timeoutMs = input.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
  const memoryBytes = memoryLimitBytes(opts.memoryLimitBytes);
  const toolBytes = toolMemoryBytes(memoryBytes);
  const cpuSeconds = Math.ceil(timeoutMs / 1000) + 5;
  const maxSimTime = input.maxSimTime ?? DEFAULT_MAX_SIM_TIME;
  const knownFile = input.checkpointUnits && input.knownPointsFile ? resolve(input.knownPointsFile) : undefined;
  const args = [
    ...(input.plusargs ?? []),
    `+chorus+coverage=${coverageFile}`,
    `+chorus+max-time=${Math.max(0, Math.floor(maxSimTime))}`,
    `+chorus+deadline-ms=${softDeadline(timeoutMs)}`,
    ...(input.checkpointUnits ? [`+chorus+checkpoint=${Math.max(1, Math.floor(input.checkpointUnits))}`] : []),
    ...(knownFile ? [`+chorus+known=${knownFile}`] : []),
  ];
  const spec = jailCommand(binary, args, {
    workDir: cwd,
    readOnly: [dirname(binary), ...(input.readPaths ?? []).map((p) => resolve(p))],
    writable: [dirname(coverageFile), ...(knownFile ? [dirname(knownFile)] : [])].filter(
      (d, i, all) => d !== cwd && all.indexOf(d) === i,
    ),
    network: false,
    // The simulator sees the libraries it loads, its run folder and the design's folders, nothing else.
    view: 'runtime',
    // Code CHORUS generated itself (the vector harness around the user's DUT) skips bubblewrap; limits still apply.
    useBwrap: input.trusted ? false : undefined,
    limits: { memoryBytes: toolBytes, fileSizeBytes: SIM_FILE_BYTES, cpuSeconds },
  });
  logger.debug(`simulate: ${spec.command} ${spec.args.join(' ')}`);
  const run = await runGroup(spec.command, spec.args, {
    cwd,
    env: spec.env,
    timeoutMs,
    signal: opts.signal,
    outputCapBytes: input.outputCapBytes ?? DEFAULT_OUTPUT_CAP,
    treeLimits: { memoryBytes: toolBytes, processes: MAX_TREE_PROCESSES },
    stdin: input.stdin,
  });
  // Renewed again at the end: this process's lease counts for OWN_LEASE_MS after the last run, not the first.
  await renewLease(dirname(binary));
  // A disk that filled up under the run cut its coverage file short: the machine's fault, not the testbench's.
  if (await diskFull(dirname(coverageFile))) throw infrastructureError('ENOSPC', runPlace(dirname(coverageFile)));
  const { stop, output } = parseStopLine(run.output);
  const coverageWritten = Boolean(await stat(coverageFile).catch(() => undefined));
  const namer = opts.namer ?? ((p: string) => p);
  const diagnostics = parseRuntimeOutput(output, namer, input.binary);
  const base = {
    ms: run.ms,
    output,
    diagnostics,
    coverageWritten,
    simTime: stop?.time,
    grewAt: stop?.grew,
    freshAt: stop?.fresh,
  };

  if (run.timedOut) {
    return { ...base, status: 'timeout', bounded: true, stop: 'killed' };
  }
  const hit = limitFromExit(run);
  if (hit && !stop) {
    const message = `The simulation ${limitPhrase(hit, { memoryBytes, cpuSeconds, fileBytes: SIM_FILE_BYTES })} and was stopped${hit.resource === 'memory' ? ` (raise --memory-limit, now ${formatBytes(memoryBytes)}, or use smaller arrays)` : ''}.`;
    diagnostics.push({ file: namer(input.binary), line: 0, column: 0, severity: 'error', message });
    return { ...base, status: 'resource_limit', bounded: false, stop: 'limit' };
  }
  if (!stop) {
    // No final report: the simulator crashed, or a resource limit ended it.
    const why = run.signal
      ? `was killed by ${run.signal}${limitHint(run.signal)}`
      : run.code !== null && run.code > 128
        ? `was killed by signal ${run.code - 128} (a crash or a resource limit)`
        : `exited with code ${run.code} before finishing`;
    diagnostics.push({
      file: namer(input.binary),
      line: 0,
      column: 0,
      severity: 'error',
      message: `The simulator ${why}.`,
    });
    return { ...base, status: 'sim_error', bounded: false, stop: 'crashed' };
  }
  if (stop.stop === 'deadline') {
    return { ...base, status: 'timeout', bounded: true, stop: stop.stop };
  }
  if (stop.stop === 'error' || run.code !== 0) {
    if (!diagnostics.some((d) => d.severity === 'error')) {
      diagnostics.push({
        file: namer(input.binary),
        line: 0,
        column: 0,
        severity: 'error',
        message: `The simulation ended with an error (exit code ${run.code}).`,
      });
    }
    return { ...base, status: 'sim_error', bounded: false, stop: stop.stop };
  }
  return { ...base, status: 'ok', bounded: stop.stop === 'simtime', stop: stop.stop };
}

function limitHint(signal: NodeJS.Signals): string {
  if (signal === 'SIGXCPU') return ' (CPU time limit)';
  if (signal === 'SIGXFSZ') return ' (it wrote a file past the 1 GiB limit)';
  if (signal === 'SIGSEGV' || signal === 'SIGABRT') return ' (a crash or an internal Verilator error)';
  return '';
}
