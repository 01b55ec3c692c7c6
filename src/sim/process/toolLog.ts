/**
 * The tool log, a diagnostic aid: with CHORUS_TOOL_LOG=<file>, every tool process CHORUS starts (Verilator,
 * make and its compilers' leader, the simulator) appends one JSON line to that file when it starts: the tool
 * under its wrappers, the full command line as spawned, the folder, its pid and the limits it runs under. It is
 * the engine's own record of what it ran, so a count of runs or a check that each ran under the memory limit
 * is exact, where watching /proc misses a process that lives a few milliseconds. The limits are read back from
 * the wrapped command line (prlimit's flags or the shell's `ulimit`s): what the kernel is told, not what a
 * caller meant to ask. Writing is best effort and never fails a run.
 */
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { basename } from 'node:path';

export interface ToolLimits {
  /** RLIMIT_AS of each process (prlimit --as, ulimit -v). */
  addressSpaceBytes?: number;
  /** RLIMIT_CPU, soft (prlimit --cpu, ulimit -t). */
  cpuSeconds?: number;
  /** RLIMIT_FSIZE (prlimit --fsize, ulimit -f). */
  fileSizeBytes?: number;
  /** RLIMIT_NPROC (prlimit --nproc, ulimit -u or -p). */
  processes?: number;
  /** The resident memory of the whole tree, bounded by runGroup's sampler. */
  treeMemoryBytes?: number | undefined;
  /** The process count of the whole tree, bounded by runGroup's sampler. */
  treeProcesses?: number | undefined;
  /** The wall-clock bound. */
  wallMs?: number;
}

export interface ToolLogEntry {
  /** 'run': a step on the design or a testbench (runGroup); 'probe': a version or environment query of a tool. */
  role: 'run' | 'probe';
  /** The tool itself, under setpriv, bubblewrap, prlimit or a `ulimit` shell. */
  tool: string;
  toolArgs: string[];
  /** What was spawned, wrappers included. */
  command: string;
  args: string[];
  cwd: string;
  pid: number | undefined;
  /** ISO 8601. */
  startedAt: string;
  limits: ToolLimits;
}

/** Bounds the sampler enforces, which the command line does not show. */
export interface SampledBounds {
  treeMemoryBytes?: number | undefined;
  treeProcesses?: number | undefined;
  wallMs?: number;
}

const WRAPPERS = new Set(['setpriv', 'prlimit', 'bwrap']);

function prlimitFlag(arg: string, limits: ToolLimits): void {
  const m = /^--(as|cpu|fsize|nproc)=(\d+)/.exec(arg);
  if (!m) return;
  const n = Number(m[2]);
  if (m[1] === 'as') limits.addressSpaceBytes = n;
  else if (m[1] === 'cpu') limits.cpuSeconds = n;
  else if (m[1] === 'fsize') limits.fileSizeBytes = n;
  else limits.processes = n;
}

function ulimits(script: string, limits: ToolLimits): void {
  for (const m of script.matchAll(/ulimit -([vtfup]) (\d+)/g)) {
    const n = Number(m[2]);
    if (m[1] === 'v') limits.addressSpaceBytes = n * 1024;
    else if (m[1] === 't') limits.cpuSeconds = n;
    else if (m[1] === 'f') limits.fileSizeBytes = n * 512;
    else limits.processes = n;
  }
}

/** The tool under its wrappers, and the rlimits those wrappers set. */
export function unwrapCommand(
  command: string,
  args: string[],
): { tool: string; toolArgs: string[]; limits: ToolLimits } {
  const limits: ToolLimits = {};
  let tool = command;
  let toolArgs = args;
  for (let depth = 0; depth < 8; depth++) {
    const name = basename(tool);
    if (WRAPPERS.has(name)) {
      const end = toolArgs.indexOf('--');
      if (end < 0 || end + 1 >= toolArgs.length) break;
      if (name === 'prlimit') toolArgs.slice(0, end).forEach((a) => prlimitFlag(a, limits));
      tool = toolArgs[end + 1];
      toolArgs = toolArgs.slice(end + 2);
    } else if (
      name === 'sh' &&
      toolArgs[0] === '-c' &&
      /ulimit/.test(toolArgs[1] ?? '') &&
      /exec "\$0" "\$@"/.test(toolArgs[1] ?? '') &&
      toolArgs.length > 2
    ) {
      ulimits(toolArgs[1], limits);
      tool = toolArgs[2];
      toolArgs = toolArgs.slice(3);
    } else {
      break;
    }
  }
  return { tool, toolArgs, limits };
}

/** Appends the start of one tool to CHORUS_TOOL_LOG, when it is set. */
export function logToolStart(
  command: string,
  args: string[],
  cwd: string,
  pid: number | undefined,
  bounds: SampledBounds = {},
  role: ToolLogEntry['role'] = 'run',
): void {
  const file = process.env.CHORUS_TOOL_LOG;
  if (!file) return;
  const { tool, toolArgs, limits } = unwrapCommand(command, args);
  const entry: ToolLogEntry = {
    role,
    tool,
    toolArgs,
    command,
    args,
    cwd,
    pid,
    startedAt: new Date().toISOString(),
    limits: { ...limits, ...bounds },
  };
  try {
    // One write per line in append mode: lines of concurrent tools (and processes) do not interleave. Non-blocking:
    // a FIFO with no reader fails the write instead of stopping CHORUS.
    const fd = openSync(
      file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0),
      0o644,
    );
    try {
      writeSync(fd, `${JSON.stringify(entry)}\n`);
    } finally {
      closeSync(fd);
    }
  } catch {
    // A diagnostic aid: an unwritable log never fails the run.
  }
}
