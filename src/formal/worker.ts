/**
 * Yosys (WebAssembly, `@yowasp/yosys`) in a worker thread, so a long SAT search never blocks the caller and can be
 * stopped at once: the worker is terminated on abort, at the run's wall-clock bound, or past the memory bound.
 * The package is ESM-only: the worker loads it with `import()` from the file the caller resolved.
 */
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

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

// Plain JavaScript, run with `eval: true` so the worker needs no file of its own in the bundle.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let yosys;
parentPort.on('message', async (m) => {
  try {
    yosys = yosys || (await import(workerData.url));
    const chunks = [];
    let size = 0;
    const sink = (b) => {
      if (b && size < workerData.logCap) { chunks.push(Buffer.from(b).toString('utf8')); size += b.length; }
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
    parentPort.postMessage({ id: m.id, code, log: chunks.join(''), files: out });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String((e && e.stack) || e) });
  }
});
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
  /** Wall-clock bound of everything this worker runs, ms. */
  deadlineMs: number;
  /** Bound on the process' resident memory growth while the worker runs, MiB. */
  memoryMb: number;
}

/** One Yosys worker: runs scripts one after another with the WebAssembly module loaded once. */
export class YosysWorker {
  private readonly worker: Worker;
  private nextId = 0;
  private pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private stopped: YosysStopped | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly memoryPoll: NodeJS.Timeout;
  private readonly onAbort = () => this.stop(new YosysStopped('aborted', 'cancelled'));

  constructor(private readonly opts: YosysWorkerOptions) {
    const baseline = process.memoryUsage.rss();
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { url: yosysUrl(), logCap: LOG_CAP },
      // Bounds the worker's JavaScript heap; WebAssembly memory is bounded by the resident-memory poll below.
      resourceLimits: { maxOldGenerationSizeMb: Math.min(512, opts.memoryMb) },
    });
    this.worker.on('message', (r: Reply) => {
      const p = this.pending.get(r.id);
      this.pending.delete(r.id);
      p?.resolve(r);
    });
    this.worker.on('error', (err) => this.stop(new YosysStopped('crashed', `Yosys stopped: ${err.message}`)));
    this.worker.on('exit', () => this.stop(this.stopped ?? new YosysStopped('crashed', 'the Yosys worker exited')));
    this.timer = setTimeout(
      () =>
        this.stop(
          new YosysStopped('timeout', `the formal run passed its ${Math.round(opts.deadlineMs / 1000)} s bound`),
        ),
      opts.deadlineMs,
    );
    this.memoryPoll = setInterval(() => {
      if (process.memoryUsage.rss() - baseline > opts.memoryMb * 1024 * 1024) {
        this.stop(new YosysStopped('memory', `Yosys passed its ${opts.memoryMb} MiB memory bound`));
      }
    }, 200);
    this.timer.unref();
    this.memoryPoll.unref();
    if (opts.signal.aborted) this.onAbort();
    else opts.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Runs Yosys with these arguments on these files. Throws `YosysStopped` when the worker was stopped. */
  async run(args: string[], files: FileTree): Promise<YosysOutput> {
    if (this.stopped) throw this.stopped;
    const id = this.nextId++;
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, args, files });
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
    void this.worker.terminate();
  }

  /** Ends the worker (idempotent). */
  close(): void {
    if (!this.stopped) this.stop(new YosysStopped('aborted', 'closed'));
  }
}
