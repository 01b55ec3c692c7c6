/**
 * Yosys (WebAssembly) off the caller's thread, so a long SAT search never blocks the caller and can be stopped at
 * once: terminated on abort, at the run's wall-clock bound, or past the memory bound. Two ways to run it:
 * - the slang build (`@yowasp/yosys-slang`, Yosys 0.70 with `read_slang`) in a child process under the runtime
 *   runtime.ts chose (its own process group, resident memory sampled, the group killed on stop, and dead with
 *   CHORUS: parent-death signal and the IPC channel's end);
 * - Yosys 0.55 (`@yowasp/yosys`, `read_verilog -sv`) in a worker thread of this process, where no runtime for the
 *   slang build is found.
 * The packages are ESM-only: both load them with `import()` from the file the caller resolved.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import type { SlangRuntime } from './runtime';

/** Yosys' files in: names to text, a folder as a nested tree (the WebAssembly file system takes no `a/b` keys). */
export interface FileTree {
  [name: string]: string | FileTree;
}

/** The text files Yosys leaves at the top of its file system (the formal engine reads only those it names). */
export type FileTexts = Record<string, string>;

export interface YosysOutput {
  /** Yosys' exit code (0 when the script ran to its end). */
  code: number;
  log: string;
  files: FileTexts;
}

export class YosysStopped extends Error {
  constructor(
    readonly why: 'timeout' | 'memory' | 'aborted' | 'crashed',
    message: string,
  ) {
    super(message);
  }
}

const LOG_CAP = 8 * 1024 * 1024;

/**
 * The loop both hosts run, as plain JavaScript: each message is one Yosys run, answered by `send`. `url` and
 * `logCap` are expressions the host defines.
 */
const loopSource = (send: string, url: string, logCap: string) => `
let yosys;
const handle = async (m) => {
  try {
    yosys = yosys || (await import(${url}));
    const chunks = [];
    let size = 0;
    const sink = (b) => {
      if (b && size < ${logCap}) { chunks.push(Buffer.from(b).toString('utf8')); size += b.length; }
    };
    let files, code = 0;
    try {
      files = await yosys.runYosys(m.args, m.files, { stdout: sink, stderr: sink, decodeASCII: true });
    } catch (e) {
      if (e && typeof e.code === 'number' && e.files) { files = e.files; code = e.code; } else throw e;
    }
    const out = {};
    for (const [k, v] of Object.entries(files || {})) {
      if (typeof v === 'string') out[k] = v;
      else if (v instanceof Uint8Array) out[k] = Buffer.from(v).toString('utf8');
    }
    ${send}({ id: m.id, code, log: chunks.join(''), files: out });
  } catch (e) {
    ${send}({ id: m.id, error: String((e && e.stack) || e) });
  }
};
`;

// In a worker thread, run with `eval: true` so the worker needs no file of its own in the bundle.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
${loopSource('parentPort.postMessage', 'workerData.url', 'workerData.logCap')}
parentPort.on('message', handle);
`;

// In a child process: messages over the IPC channel, which also tells it when CHORUS is gone.
const CHILD_SOURCE = `
const [url, logCap] = [process.argv[1], Number(process.argv[2])];
process.on('disconnect', () => process.exit(0));
${loopSource('process.send', 'url', 'logCap')}
process.on('message', handle);
`;

interface Reply {
  id: number;
  code?: number;
  log?: string;
  files?: FileTexts;
  error?: string;
}

/** Where `@yowasp/yosys` lives (a missing package is a clear error, not a worker crash). */
function yosysUrl(): string {
  try {
    return pathToFileURL(require.resolve('@yowasp/yosys')).href;
  } catch (err) {
    throw new Error(
      `@yowasp/yosys is not installed (${(err as Error).message}): run \`npm install\` in the extension folder.`,
    );
  }
}

export interface YosysWorkerOptions {
  signal: AbortSignal;
  /** The slang build under this runtime (a child process), or, when absent, Yosys 0.55 in a worker thread. */
  slang?: { runtime: SlangRuntime; module: string } | undefined;
  /** Wall-clock bound of everything this worker runs, ms. */
  deadlineMs: number;
  /** Bound on the process' resident memory growth while the worker runs, MiB. */
  memoryMb: number;
}

let setprivWorks: boolean | undefined;

/**
 * The child's command line, with a parent-death signal (setpriv) where the tool exists. No address-space bound
 * (prlimit --as, as the build tools get): V8 reserves far more address space than it touches for WebAssembly memories
 * and its compilers' zones, and the child aborted under one (4 GiB: at its second script; memory bound plus 8 GiB: in
 * the witness pass of a 21-point design). The resident-memory poll holds the memory bound, `--max-old-space-size`
 * the JavaScript heap.
 */
/**
 * The JavaScript heap's bound, MiB: the run's memory bound, which the resident-memory poll enforces on the whole
 * process. Within one Yosys run the WebAssembly builds grow the heap by 100-170 MiB per half second of ABC's PDR
 * solving (given back when the run ends), so a smaller fixed bound stopped runs well inside the memory bound.
 */
const heapMb = (memoryMb: number) => Math.max(512, memoryMb);

function childCommand(rt: SlangRuntime, script: string[], memoryMb: number): { command: string; args: string[] } {
  // The JavaScript heap as the 0.55 worker thread's; WebAssembly memory is bounded by the resident-memory poll.
  let cmd = { command: rt.command, args: [...rt.args, `--max-old-space-size=${heapMb(memoryMb)}`, ...script] };
  setprivWorks ??=
    spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore', timeout: 5000 }).status === 0;
  if (setprivWorks) cmd = { command: 'setpriv', args: ['--pdeathsig', 'KILL', '--', cmd.command, ...cmd.args] };
  return cmd;
}

/** Resident memory of one process, bytes (0 when it cannot be read). */
function rssOf(pid: number): number {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return Number.isFinite(pages) ? pages * 4096 : 0;
  } catch {
    return 0;
  }
}

/** One Yosys worker: runs scripts one after another with the WebAssembly module loaded once. */
export class YosysWorker {
  private readonly worker: Worker | undefined;
  private readonly child: ChildProcess | undefined;
  private nextId = 0;
  private pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private stopped: YosysStopped | undefined;
  private timer: NodeJS.Timeout;
  private readonly memoryPoll: NodeJS.Timeout;
  private readonly onAbort = () => this.stop(new YosysStopped('aborted', 'cancelled'));
  /** Highest resident memory seen (the child's own, or this process' growth), bytes. */
  peakRssBytes = 0;
  /** Resolves when the child process (slang) has exited, or the worker thread has ended. */
  readonly exited: Promise<void>;
  /** The child's pid (slang path), for the caller's log. */
  readonly pid: number | undefined;

  constructor(private readonly opts: YosysWorkerOptions) {
    const baseline = process.memoryUsage.rss();
    const onReply = (r: Reply) => {
      const p = this.pending.get(r.id);
      this.pending.delete(r.id);
      p?.resolve(r);
    };
    let exited!: () => void;
    this.exited = new Promise<void>((r) => (exited = r));
    if (opts.slang) {
      const { command, args } = childCommand(
        opts.slang.runtime,
        ['-e', CHILD_SOURCE, pathToFileURL(opts.slang.module).href, String(LOG_CAP)],
        opts.memoryMb,
      );
      // Its own process group: a stop kills whatever it runs with it.
      const child = spawn(command, args, {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        env: { ...process.env, ...opts.slang.runtime.env },
      });
      this.child = child;
      this.pid = child.pid;
      let stderr = '';
      child.stdout?.resume();
      child.stderr?.on('data', (b: Buffer) => {
        stderr = (stderr + b.toString('utf8')).slice(-16000);
      });
      child.on('message', (r: Reply) => onReply(r));
      child.on('error', (err) => this.stop(new YosysStopped('crashed', `Yosys could not start: ${err.message}`)));
      child.on('exit', (code, signal) => {
        exited();
        // V8's own words (`FATAL ERROR: …`, a C++ `what():`) over the native stack that follows them.
        const lines = stderr.split('\n').filter((l) => l.trim() && !/fetched \d+%|^\s*\d+: 0x/.test(l));
        const last = lines.find((l) => /FATAL ERROR|what\(\)|Error:/.test(l)) ?? lines.pop();
        this.stop(
          this.stopped ??
            new YosysStopped(
              'crashed',
              `the Yosys process exited (${signal ?? `exit ${code}`})${last ? `: ${last}` : ''}`,
            ),
        );
      });
    } else {
      this.worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { url: yosysUrl(), logCap: LOG_CAP },
        // Bounds the worker's JavaScript heap; WebAssembly memory is bounded by the resident-memory poll below.
        resourceLimits: { maxOldGenerationSizeMb: heapMb(opts.memoryMb) },
      });
      this.worker.on('message', onReply);
      this.worker.on('error', (err) => this.stop(new YosysStopped('crashed', `Yosys stopped: ${err.message}`)));
      this.worker.on('exit', () => {
        exited();
        this.stop(this.stopped ?? new YosysStopped('crashed', 'the Yosys worker exited'));
      });
    }
    this.started = Date.now();
    this.timer = this.deadlineTimer(opts.deadlineMs);
    this.memoryPoll = setInterval(() => {
      const used = this.child?.pid !== undefined ? rssOf(this.child.pid) : process.memoryUsage.rss() - baseline;
      this.peakRssBytes = Math.max(this.peakRssBytes, used);
      if (used > opts.memoryMb * 1024 * 1024) {
        this.stop(new YosysStopped('memory', `Yosys passed its ${opts.memoryMb} MiB memory bound`));
      }
    }, 200);
    this.memoryPoll.unref();
    if (opts.signal.aborted) this.onAbort();
    else opts.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly started: number;

  private deadlineTimer(ms: number): NodeJS.Timeout {
    const bound = Math.round((Date.now() + ms - this.started) / 1000);
    const timer = setTimeout(
      () => this.stop(new YosysStopped('timeout', `the formal run passed its ${bound} s bound`)),
      ms,
    );
    timer.unref();
    return timer;
  }

  /** Moves the wall-clock bound to `ms` from now (the run turned out to need no time after it). */
  extendDeadline(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = this.deadlineTimer(ms);
  }

  /** Runs Yosys with these arguments on these files. Throws `YosysStopped` when the worker was stopped. */
  async run(args: string[], files: FileTree): Promise<YosysOutput> {
    if (this.stopped) throw this.stopped;
    const id = this.nextId++;
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.child) this.child.send({ id, args, files });
      else this.worker?.postMessage({ id, args, files });
    });
    if (reply.error !== undefined) throw new YosysStopped('crashed', `Yosys failed: ${reply.error.split('\n')[0]}`);
    return { code: reply.code ?? 0, log: reply.log ?? '', files: reply.files ?? {} };
  }

  private stop(reason: YosysStopped): void {
    if (!this.stopped) this.stopped = reason;
    clearTimeout(this.timer);
    clearInterval(this.memoryPoll);
    this.opts.signal.removeEventListener('abort', this.onAbort);
    for (const p of this.pending.values()) p.reject(this.stopped);
    this.pending.clear();
    if (this.child?.pid !== undefined) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    }
    void this.worker?.terminate();
  }

  /** Ends the worker (idempotent). */
  close(): void {
    if (!this.stopped) this.stop(new YosysStopped('aborted', 'closed'));
  }
}
