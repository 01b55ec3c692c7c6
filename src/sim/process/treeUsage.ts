/** Resident memory and process count of a whole process tree, from /proc (zero where there is none). */
import { readFileSync } from 'node:fs';
import { descendants } from './processTree';

export interface TreeUsage {
  rssBytes: number;
  processes: number;
}

function residentBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    // Ended while we looked.
    return 0;
  }
}

/** The tree rooted at `pid` (itself included). */
export function treeUsage(pid: number): TreeUsage {
  const pids = [pid, ...descendants(pid)];
  let rssBytes = 0;
  for (const p of pids) rssBytes += residentBytes(p);
  return { rssBytes, processes: pids.length };
}
