/**
 * Tool processes die with CHORUS, however CHORUS ends (kill -9 included). Each tool leads its own process
 * group; its leader gets a parent-death signal (setpriv --pdeathsig), which does not reach its children
 * (make's compilers, verilator_bin under the verilator script). So one small guard process per CHORUS
 * process holds the list of live tool groups on a pipe: when CHORUS dies the kernel closes the pipe, the
 * guard reads end-of-file and SIGKILLs every group still listed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

/** POSIX sh: `+ pgid` lists a group, `- pgid` unlists it; at end of input, every listed group is killed. */
const GUARD_SCRIPT = [
  "groups=''",
  'while read -r op id; do',
  '  case "$op" in',
  '    +) groups="$groups $id" ;;',
  '    -) kept=\'\'; for g in $groups; do [ "$g" = "$id" ] || kept="$kept $g"; done; groups=$kept ;;',
  '  esac',
  'done',
  'for g in $groups; do kill -9 -"$g" 2>/dev/null; done',
].join('\n');

let guard: ChildProcess | null | undefined;
/** Groups listed now: on a normal exit (process.exit mid-run included) CHORUS kills them itself, then the guard. */
const listed = new Set<number>();
let exitHook = false;

function killListedOnExit(): void {
  for (const pgid of listed) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  // Nothing left for the guard to do; ending it here also ends it when something froze it (SIGSTOP).
  guard?.kill('SIGKILL');
}

function guardProcess(): ChildProcess | undefined {
  if (guard === undefined) {
    try {
      // Its own session: a Ctrl-C or a kill of CHORUS's group does not end it before it has done its job.
      const child = spawn('/bin/sh', ['-c', GUARD_SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
      child.on('error', () => {
        guard = null;
      });
      child.on('exit', () => {
        guard = undefined;
      });
      child.stdin?.on('error', () => undefined);
      // Neither the guard nor its pipe keeps CHORUS alive.
      child.unref();
      (child.stdin as Socket | null)?.unref();
      guard = child;
    } catch {
      guard = null;
    }
  }
  return guard ?? undefined;
}

/**
 * Lists a tool's process group with the guard; the returned function unlists it (call it once the group is gone).
 * The list is kept in this process even where the guard could not start: it is also what `liveGroups` reports.
 */
export function guardGroup(pgid: number | undefined): () => void {
  if (pgid === undefined) return () => undefined;
  if (!exitHook) {
    exitHook = true;
    process.once('exit', killListedOnExit);
  }
  listed.add(pgid);
  const g = guardProcess();
  const guarded = Boolean(g?.stdin?.writable);
  if (guarded) g?.stdin?.write(`+ ${pgid}\n`);
  return () => {
    listed.delete(pgid);
    if (guarded && g?.stdin?.writable) g.stdin.write(`- ${pgid}\n`);
  };
}

/** The process groups of the tools running now (each leader's pid). */
export function liveGroups(): number[] {
  return [...listed];
}

let setprivWorks: boolean | undefined;

/**
 * The command with a parent-death signal for its first process: SIGKILL when CHORUS dies (it survives the
 * exec into the tool). Unchanged where setpriv (util-linux) is missing; the guard still covers it.
 */
export function dieWithParent(command: string, args: string[]): { command: string; args: string[] } {
  setprivWorks ??=
    spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore', timeout: 5000 }).status === 0;
  return setprivWorks
    ? { command: 'setpriv', args: ['--pdeathsig', 'KILL', '--', command, ...args] }
    : { command, args };
}
