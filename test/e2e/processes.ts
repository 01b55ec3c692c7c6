/**
 * Finding and ending every process an end-to-end session started. Each one carries `CHORUS_E2E_RUN=<id>` in its
 * environment, which every descendant inherits (extension host, language server, Verilator builds, simulations,
 * chromium's helpers), even one that starts its own process group or session, or is re-parented after its parent
 * died. So teardown looks them up in /proc by that mark instead of trusting process groups. Linux only.
 */
import { readdirSync, readFileSync } from 'node:fs';

export const RUN_MARK = 'CHORUS_E2E_RUN';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The executable's short name (`/proc/<pid>/comm`). */
  comm: string;
  /** The command line, arguments joined by spaces. */
  cmdline: string;
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'latin1');
  } catch {
    return undefined; // gone, or not ours to read
  }
}

function info(pid: number): ProcessInfo | undefined {
  const stat = readProc(pid, 'stat');
  if (!stat) return undefined;
  // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so split after the last ')'.
  const close = stat.lastIndexOf(')');
  const [state, ppid] = stat.slice(close + 2).split(' ');
  if (state === 'Z' || state === 'X') return undefined; // exited, waiting to be reaped: holds nothing
  return {
    pid,
    ppid: Number(ppid),
    comm: stat.slice(stat.indexOf('(') + 1, close),
    cmdline: (readProc(pid, 'cmdline') ?? '').split('\0').filter(Boolean).join(' '),
  };
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number);
}

function snapshot(): ProcessInfo[] {
  return allPids()
    .map(info)
    .filter((p): p is ProcessInfo => p !== undefined);
}

function hasMark(pid: number, mark: string): boolean {
  const env = readProc(pid, 'environ');
  return env !== undefined && env.split('\0').includes(mark);
}

/**
 * Live processes of this run (never this test process itself): those whose environment carries the mark, and
 * their descendants (chromium's renderers are not dumpable, so their environment cannot be read).
 */
export function markedProcesses(runId: string): ProcessInfo[] {
  const mark = `${RUN_MARK}=${runId}`;
  const all = snapshot().filter((p) => p.pid !== process.pid);
  const chosen = new Set(all.filter((p) => hasMark(p.pid, mark)).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (!chosen.has(p.pid) && chosen.has(p.ppid)) {
        chosen.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => chosen.has(p.pid));
}

/** Every live descendant of `pid` (children, grandchildren, …), from one snapshot of /proc. */
/**
 * The server's orphan guard (src/sim/process/orphanGuard.ts): a small `sh` that lives as long as the server by design and
 * kills any tool group still listed when the server dies. It is not a tool a Stop must end.
 */
export function isOrphanGuard(p: ProcessInfo): boolean {
  return p.comm === 'sh' && p.cmdline.includes('while read -r op id');
}

/** The descendants that are tools (everything but the orphan guard). */
export function toolDescendants(pid: number): ProcessInfo[] {
  return descendants(pid).filter((p) => !isOrphanGuard(p));
}

export function descendants(pid: number): ProcessInfo[] {
  const byParent = new Map<number, ProcessInfo[]>();
  for (const p of snapshot()) byParent.set(p.ppid, [...(byParent.get(p.ppid) ?? []), p]);
  const out: ProcessInfo[] = [];
  const queue = [pid];
  while (queue.length) {
    for (const child of byParent.get(queue.shift() as number) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

export function isAlive(pid: number): boolean {
  return info(pid) !== undefined;
}

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // Already gone.
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Ends every marked process: SIGTERM, up to `graceMs` to exit, then SIGKILL. Scans again after each pass, since
 * a dying parent may still spawn. Returns what is still alive afterwards (empty when all went).
 */
export async function killMarked(runId: string, graceMs = 5000): Promise<ProcessInfo[]> {
  for (let pass = 0; pass < 5; pass++) {
    const live = markedProcesses(runId);
    if (!live.length) return [];
    signal(
      live.map((p) => p.pid),
      pass === 0 ? 'SIGTERM' : 'SIGKILL',
    );
    const deadline = Date.now() + (pass === 0 ? graceMs : 3000);
    while (Date.now() < deadline && live.some((p) => isAlive(p.pid))) await sleep(100);
  }
  return markedProcesses(runId);
}

/** For `process.on('exit')`, where nothing asynchronous runs: SIGKILL every marked process at once. */
export function killMarkedSync(runId: string): void {
  signal(
    markedProcesses(runId).map((p) => p.pid),
    'SIGKILL',
  );
}
