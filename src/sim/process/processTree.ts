/**
 * Killing a whole process tree, not only a process group: a descendant that left the leader's group (a session
 * of its own) is outside a group kill, and a parent-death signal can miss a child killed during its first
 * milliseconds. Descendants are found through /proc and killed before their parents, so none is re-parented to
 * init and lost.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Children by parent pid, from /proc (empty where there is no /proc). */
function childrenByParent(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return children;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may contain spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

/** Every descendant of `pid`, deepest last. */
export function descendants(pid: number): number[] {
  const children = childrenByParent();
  const out: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const p = queue.shift() as number;
    for (const c of children.get(p) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

function kill(target: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(target, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Stops the leader's group (no new children while we look), SIGKILLs the descendants deepest first (each with
 * its own group), then the leader's group. Returns every process it signalled.
 */
export function killTree(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  kill(-pid, 'SIGSTOP');
  const signalled = new Set<number>();
  for (let round = 0; round < 4; round++) {
    const found = descendants(pid);
    if (!found.length) break;
    for (const p of found.reverse()) {
      kill(-p);
      kill(p);
      signalled.add(p);
    }
  }
  kill(-pid);
  kill(pid);
  signalled.add(pid);
  return [...signalled];
}

/** Whether a process has exited: gone, or a zombie (its resources already released). */
export function hasExited(pid: number): boolean {
  try {
    return /^\d+ \(.*\) [ZX] /s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** How often a wait for killed processes looks again. */
const EXIT_POLL_MS = 10;

/**
 * Waits until every process in `pids` has exited, or `boundMs` passed: a SIGKILLed process closes its pipes
 * before it is gone, so a caller that saw them close may still find it exiting. Whether all had exited.
 */
export async function awaitExit(pids: readonly number[], boundMs: number): Promise<boolean> {
  const until = Date.now() + boundMs;
  let left = pids.filter((p) => !hasExited(p));
  while (left.length && Date.now() < until) {
    await new Promise((r) => setTimeout(r, EXIT_POLL_MS));
    left = left.filter((p) => !hasExited(p));
  }
  return left.length === 0;
}

/** SIGKILLs the process group `pid` leads (nothing when it is already gone). */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}
