/**
 * Defence in depth around a simulator (or build) that runs untrusted code: a scrubbed environment, resource
 * limits (prlimit, or a `sh -c 'ulimit …'` wrapper), and, where bubblewrap works, no network and a read-only
 * view of the machine with only the work folder writable and home folders, /tmp and /run hidden.
 * The caller spawns the returned spec with `detached: true` and kills the whole process group on abort.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';

export interface JailLimits {
  /** CPU time; the process gets SIGXCPU at the limit and SIGKILL a second later. */
  cpuSeconds?: number;
  /** Address space (RLIMIT_AS). */
  memoryBytes?: number;
  /** Largest file the process may write (RLIMIT_FSIZE); writing past it raises SIGXFSZ. */
  fileSizeBytes?: number;
  /** RLIMIT_NPROC: counts every process of the user, not just this tree (see docs/security.md). */
  processes?: number;
}

export interface JailOptions {
  workDir: string;
  /** Extra paths made visible read-only inside bwrap (on top of the hidden folders). */
  readOnly?: string[];
  /** Allow network access (bwrap only); default false. */
  network?: boolean;
  limits?: JailLimits;
  /** true: use bwrap; false: never; undefined: when bwrapAvailable(). */
  useBwrap?: boolean | undefined;
  /** Extra writable paths inside bwrap, such as a compiler cache. */
  writable?: string[];
  /** Folders replaced by empty ones inside bwrap; default: /tmp, /var/tmp, /run, /home, /root and $HOME. */
  hide?: string[];
  /** Variables added to the scrubbed environment (HOME and TMPDIR default to workDir). */
  env?: Record<string, string>;
  /**
   * What of the machine bwrap shows, read-only: 'system' (default) the whole root with home folders, /tmp and
   * /run hidden (a build needs the toolchain wherever it is installed); 'runtime' only /usr and the library
   * folders a compiled simulator loads, so it sees nothing of the machine beyond them and the paths given here.
   */
  view?: 'system' | 'runtime';
  /** Folder the command starts in inside bwrap; default workDir. */
  chdir?: string;
  /** How limits are applied; default 'auto' (prlimit when it works, else the shell wrapper). */
  limiter?: 'auto' | 'prlimit' | 'shell';
}

export interface JailSpec {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** Variables passed through from the parent: tool locations and locale, never credentials. */
const passThrough = [
  'PATH',
  'LANG',
  'LC_ALL',
  'TZ',
  'VERILATOR_ROOT',
  'SYSTEMC_INCLUDE',
  'SYSTEMC_LIBDIR',
  'CCACHE_DIR',
];

/**
 * An allow-listed environment: PATH, locale and tool roots from this process, HOME pointing at a temporary
 * folder, and `extra`. Everything else (tokens, API keys such as CHORUS_API_KEY, SSH agent sockets) is dropped.
 */
export function scrubbedEnv(extra?: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of passThrough) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  env.LANG ??= 'C.UTF-8';
  env.HOME = tmpdir();
  return { ...env, ...extra };
}

export function jailCommand(command: string, args: string[], opts: JailOptions): JailSpec {
  const workDir = absolute(opts.workDir);
  const env = scrubbedEnv({ HOME: workDir, TMPDIR: workDir, ...opts.env });
  const limited = withLimits(command, args, opts.limits ?? {}, opts.limiter ?? 'auto');
  const useBwrap = opts.useBwrap ?? bwrapAvailable();
  if (!useBwrap) return { ...limited, env };
  return { command: 'bwrap', args: [...bwrapArgs(workDir, opts), '--', limited.command, ...limited.args], env };
}

function bwrapArgs(workDir: string, opts: JailOptions): string[] {
  const args = opts.view === 'runtime' ? runtimeView() : ['--ro-bind', '/', '/'];
  args.push('--dev', '/dev', '--proc', '/proc');
  for (const dir of opts.view === 'runtime' ? ['/tmp'] : (opts.hide ?? defaultHidden())) {
    const abs = absolute(dir);
    if (opts.view === 'runtime' || existsSync(abs)) args.push('--tmpfs', abs);
  }
  // Later mounts sit on top of the hidden folders, so these reappear inside them.
  // Each path at its real location and, when a symbolic link leads to it, at the path as given too: a design
  // reached through a linked folder is named by that path on the tool's command line.
  const bind = (flag: string, p: string): void => {
    const real = absolute(p);
    if (!existsSync(real)) return;
    args.push(flag, real, real);
    const given = resolve(p);
    if (given !== real) args.push(flag, real, given);
  };
  for (const p of opts.readOnly ?? []) bind('--ro-bind', p);
  for (const p of opts.writable ?? []) bind('--bind', p);
  args.push('--bind', workDir, workDir, '--chdir', opts.chdir ? absolute(opts.chdir) : workDir);
  args.push('--unshare-all');
  if (opts.network) args.push('--share-net');
  // No --new-session: every jailed tool is started in a session of its own with no terminal on its standard
  // streams (spawned detached, src/sim/process), so the sandbox has no terminal to push keystrokes into (TIOCSTI),
  // and its /dev is bubblewrap's own. A session of bubblewrap's own would take the jailed tree out of the tool's
  // process group, where a kill of the group (cancel, timeout, the orphan guard) must find it: one stopped before it
  // set its parent-death signal would outlive CHORUS.
  args.push('--die-with-parent');
  return args;
}

/** The dynamic loader's view: /usr, and /bin, /lib… as the host has them (merged-/usr symlinks or folders). */
function runtimeView(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    let link: string | undefined;
    try {
      link = lstatSync(dir).isSymbolicLink() ? readlinkSync(dir) : undefined;
    } catch {
      continue;
    }
    if (link !== undefined) args.push('--symlink', link, dir);
    else args.push('--ro-bind', dir, dir);
  }
  for (const file of ['/etc/ld.so.cache', '/etc/ld.so.conf']) if (existsSync(file)) args.push('--ro-bind', file, file);
  if (existsSync('/etc/ld.so.conf.d')) args.push('--ro-bind', '/etc/ld.so.conf.d', '/etc/ld.so.conf.d');
  return args;
}

function defaultHidden(): string[] {
  const dirs = ['/tmp', '/var/tmp', '/run', '/home', '/root'];
  const home = absolute(homedir());
  if (home !== '/' && !dirs.some((d) => home === d || home.startsWith(d + sep))) dirs.push(home);
  return dirs;
}

/** The command under resource limits (prlimit, or a `sh -c 'ulimit …'` wrapper): the build steps use it without the rest of the jail. */
export function withLimits(
  command: string,
  args: string[],
  limits: JailLimits,
  limiter: 'auto' | 'prlimit' | 'shell' = 'auto',
): { command: string; args: string[] } {
  const { cpuSeconds, memoryBytes, fileSizeBytes, processes } = limits;
  if ([cpuSeconds, memoryBytes, fileSizeBytes, processes].every((v) => v === undefined)) return { command, args };
  const usePrlimit = limiter === 'prlimit' || (limiter === 'auto' && prlimitAvailable());
  if (usePrlimit) {
    // Core dumps off: SIGXCPU and SIGXFSZ would otherwise leave a core file in the work folder.
    const flags = ['--core=0'];
    if (cpuSeconds !== undefined) flags.push(`--cpu=${whole(cpuSeconds)}:${whole(cpuSeconds) + 1}`);
    if (memoryBytes !== undefined) flags.push(`--as=${whole(memoryBytes)}`);
    if (fileSizeBytes !== undefined) flags.push(`--fsize=${whole(fileSizeBytes)}`);
    if (processes !== undefined) flags.push(`--nproc=${whole(processes)}`);
    return { command: 'prlimit', args: [...flags, '--', command, ...args] };
  }
  // POSIX sh: -t seconds, -v KiB, -f 512-byte blocks; processes are -u in bash, -p in dash.
  const steps = ['ulimit -c 0'];
  if (cpuSeconds !== undefined) steps.push(`ulimit -t ${whole(cpuSeconds)}`);
  if (memoryBytes !== undefined) steps.push(`ulimit -v ${Math.max(1, Math.floor(whole(memoryBytes) / 1024))}`);
  if (fileSizeBytes !== undefined) steps.push(`ulimit -f ${Math.floor(whole(fileSizeBytes) / 512)}`);
  if (processes !== undefined)
    steps.push(`{ ulimit -u ${whole(processes)} 2>/dev/null || ulimit -p ${whole(processes)}; }`);
  return { command: '/bin/sh', args: ['-c', `${steps.join(' && ')} && exec "$0" "$@"`, command, ...args] };
}

function whole(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

function absolute(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

let prlimitWorks: boolean | undefined;
function prlimitAvailable(): boolean {
  prlimitWorks ??= spawnSync('prlimit', ['--core=0', '--', 'true'], { stdio: 'ignore', timeout: 5000 }).status === 0;
  return prlimitWorks;
}

let bwrapWorks: boolean | undefined;
/**
 * Whether bubblewrap runs here with the flags jailCommand uses: it may be installed yet fail inside a
 * container without user namespaces. Tried once per process; the answer is cached.
 */
export function bwrapAvailable(): boolean {
  if (bwrapWorks !== undefined) return bwrapWorks;
  let dir: string | undefined;
  try {
    dir = mkdtempSync(join(tmpdir(), 'chorus-bwrap-'));
    const spec = jailCommand('sh', ['-c', 'echo ok > probe && cat probe'], { workDir: dir, useBwrap: true });
    const r = spawnSync(spec.command, spec.args, { env: spec.env, cwd: dir, timeout: 10_000, encoding: 'utf8' });
    bwrapWorks = r.status === 0 && r.stdout.trim() === 'ok';
  } catch {
    bwrapWorks = false;
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  return bwrapWorks;
}

/**
 * The warning a run prints once where bubblewrap cannot run (not installed, no user namespaces, macOS): what is
 * then not enforced. Undefined where the jail works.
 */
export function jailWarning(): string | undefined {
  if (bwrapAvailable()) return undefined;
  const installed = spawnSync('bwrap', ['--version'], { stdio: 'ignore', timeout: 5000 }).error === undefined;
  const why = installed
    ? 'bubblewrap is installed but cannot create its sandbox here (no unprivileged user namespaces?)'
    : 'bubblewrap (bwrap) is not installed';
  return (
    `${why}: testbenches run WITHOUT the jail. Not enforced: the read-only view of the machine (a simulation could read any file you can; ` +
    'only the static check, which refuses every file-reading task, stands in the way) and network isolation. ' +
    'Resource limits and the static check still apply. Install it (`apt-get install bubblewrap`) or run CHORUS in a container.'
  );
}
