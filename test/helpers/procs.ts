import { readFileSync, readdirSync } from 'node:fs';

/** Pids of every live descendant of `root`, read from /proc. */
export function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(e), ppid);
    } catch {
      // the process ended while we looked
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const [child, p] of parent)
      if (p === pid) {
        out.push(child);
        walk(child);
      }
  };
  walk(root);
  return out;
}

export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** Polls until `check` holds or `timeoutMs` passes (each caller sizes it: helpers/time-limits.ts); returns the last value of `check`. */
export async function waitFor(check: () => boolean, timeoutMs: number, everyMs = 100): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return check();
}
