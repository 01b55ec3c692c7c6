/**
 * `chorus serve`: the coverage reward server, an HTTP adapter over the engine. Every request is one engine call in
 * a build slot; bodies are bounded (413), the queue is bounded (429 with Retry-After), a client that goes away
 * stops its build, and off loopback every request but the probes needs the bearer token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { detectVerilator } from '../engine';
import {
  ChorusError,
  coverageJobSchema,
  rewardRequestSchema,
  type CoverageJobResult,
  type RewardResult,
  type ServeError,
} from '../protocol';
import { bodyChecker, SchemaError } from './check';
import { measureJob, type EvaluateContext } from './evaluate';
import { llm4covResult } from './llm4cov';
import { serveMetrics, type ServeMetrics } from './metrics';
import { isLoopback, resolveServeOptions, type ResolvedServeOptions, type ServeOptions } from './options';
import { RequestFolders } from './requestFolder';
import { reward } from './reward';
import { BuildSlots, QueueFull } from './slots';

export interface RunningServe {
  /** `http://host:port` as bound. */
  url: string;
  port: number;
  slots: BuildSlots;
  /** Stops accepting, cancels the builds in flight, and resolves when every connection is closed. */
  close(): Promise<void>;
}

const checkJob = bodyChecker(coverageJobSchema, 'LLM4Cov job');
const checkReward = bodyChecker(rewardRequestSchema, 'reward request');

class HttpError extends Error {
  constructor(
    readonly code: number,
    readonly body: ServeError,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.error);
  }
}

export async function startServe(given: ServeOptions): Promise<RunningServe> {
  const options = resolveServeOptions(given);
  if (!isLoopback(options.host) && !options.token)
    throw new ChorusError(
      'bad_input',
      `Serving on ${options.host} needs a token: set CHORUS_SERVE_TOKEN (or --token) so only your trainers can build.`,
    );
  // A missing Verilator fails the start, loudly, not the first request.
  const verilator = await detectVerilator(options.verilatorPath);
  options.logger.info(`Verilator ${verilator.version} at ${verilator.path}.`);
  const slots = new BuildSlots(options.slots, options.queue);
  const folders = await RequestFolders.create();
  const metrics = serveMetrics(slots);
  const inFlight = new Set<AbortController>();
  const server = createServer((req, res) => {
    handle(req, res, { options, slots, metrics, inFlight, folders }).catch((err: unknown) => {
      options.logger.error(`Unanswered request ${req.method} ${req.url}: ${String(err)}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  // Slow-loris bounds: a client must send its headers and body in time.
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  await listen(server, options);
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  options.logger.info(
    `chorus serve on http://${host}:${port}: ${options.slots} build slot(s), queue ${options.queue}${options.token ? ', token required' : ''}.`,
  );
  return {
    url: `http://${host}:${port}`,
    port,
    slots,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of inFlight) c.abort(new ChorusError('cancelled', 'The server is stopping.'));
        server.close(() => void folders.close().then(resolve, resolve));
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, options: ResolvedServeOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new ChorusError(
          'bad_input',
          err.code === 'EADDRINUSE'
            ? `Port ${options.port} on ${options.host} is taken: pick another with --port.`
            : `Cannot listen on ${options.host}:${options.port}: ${err.message}.`,
        ),
      ),
    );
    server.listen(options.port, options.host, () => resolve());
  });
}

interface ServerState {
  options: ResolvedServeOptions;
  slots: BuildSlots;
  metrics: ServeMetrics;
  inFlight: Set<AbortController>;
  folders: RequestFolders;
}

async function handle(req: IncomingMessage, res: ServerResponse, state: ServerState): Promise<void> {
  const [path = '/'] = (req.url ?? '/').split('?');
  const endpoint = ['/health', '/ready', '/metrics', '/v1/llm4cov', '/v1/reward'].includes(path) ? path : 'other';
  const answer = (code: number, body: string, type: string, headers: Record<string, string> = {}) => {
    state.metrics.requests.inc({ endpoint, code: String(code) });
    if (!res.writable) return;
    res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store', ...headers }).end(body);
  };
  const json = (code: number, body: object, headers?: Record<string, string>) =>
    answer(code, `${JSON.stringify(body)}\n`, 'application/json', headers);
  try {
    if (req.method === 'GET' && path === '/health') return json(200, { status: 'ok' });
    if (req.method === 'GET' && path === '/ready') {
      const ready = state.slots.accepting;
      return json(ready ? 200 : 503, {
        status: ready ? 'ready' : 'busy',
        slots: state.slots.slots,
        in_use: state.slots.inUse,
        queued: state.slots.queued,
      });
    }
    authorize(req, state.options.token);
    if (req.method === 'GET' && path === '/metrics')
      return answer(200, await state.metrics.registry.metrics(), state.metrics.registry.contentType);
    if (path !== '/v1/llm4cov' && path !== '/v1/reward')
      throw new HttpError(404, {
        error: `No ${req.method} ${path}: use POST /v1/llm4cov or /v1/reward.`,
        kind: 'not_found',
      });
    if (req.method !== 'POST')
      throw new HttpError(405, { error: `${path} takes POST.`, kind: 'bad_input' }, { allow: 'POST' });
    const body = await readJson(req, state.options.maxBodyBytes);
    // A client that goes away (a cancelled rollout) stops its build: the signal runs through the engine.
    const controller = new AbortController();
    const gone = () => {
      if (!res.writableFinished) controller.abort(new ChorusError('cancelled', 'The client closed the connection.'));
    };
    res.on('close', gone);
    state.inFlight.add(controller);
    const ctx: EvaluateContext = {
      options: state.options,
      slots: state.slots,
      logger: state.options.logger,
      signal: controller.signal,
      folders: state.folders,
    };
    const timer = state.metrics.duration.startTimer({ endpoint });
    try {
      const result: CoverageJobResult | RewardResult =
        path === '/v1/llm4cov'
          ? await (async () => {
              const job = checkJob(body);
              return measureJob(
                {
                  dut: job.dut,
                  svFiles: job.sv_files,
                  tb: job.tb,
                  files: job.files,
                  sha256: job.inputs_sha256,
                  timeoutSeconds: job.timeout,
                },
                ctx,
                (m) => {
                  count(state.metrics, endpoint, m.result.status, m.result.cacheHit);
                  return llm4covResult(job, m);
                },
              );
            })()
          : await reward(checkReward(body), ctx).then((r) => {
              count(state.metrics, endpoint, r.status, r.status === 'no_code' ? undefined : r.cache_hit);
              return r;
            });
      timer();
      return json(200, result);
    } catch (err) {
      if (controller.signal.aborted) {
        state.metrics.cancelled.inc();
        state.metrics.requests.inc({ endpoint, code: '499' });
        return;
      }
      throw err;
    } finally {
      state.inFlight.delete(controller);
      res.off('close', gone);
    }
  } catch (err) {
    const e = asHttpError(err);
    if (e.code >= 500) state.options.logger.error(`${req.method} ${path}: ${e.body.error}`);
    return json(e.code, e.body, e.headers);
  }
}

function count(metrics: ServeMetrics, endpoint: string, status: string, cacheHit: boolean | undefined): void {
  metrics.results.inc({ endpoint, status });
  if (cacheHit === true) metrics.cacheHits.inc();
  else if (cacheHit === false && status !== 'rejected') metrics.cacheMisses.inc();
}

function authorize(req: IncomingMessage, token: string | undefined): void {
  if (!token) return;
  const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim() ?? '';
  const digest = (s: string) => createHash('sha256').update(s).digest();
  if (!timingSafeEqual(digest(given), digest(token)))
    throw new HttpError(
      401,
      { error: 'Send the server token as "Authorization: Bearer <token>".', kind: 'unauthorized' },
      { 'www-authenticate': 'Bearer' },
    );
}

/** The body as JSON, refused (413) past `max` bytes, whether Content-Length says so or the stream does. */
async function readJson(req: IncomingMessage, max: number): Promise<unknown> {
  const tooLarge = () =>
    new HttpError(
      413,
      { error: `The request body is larger than the server's ${max} bytes: send smaller files.`, kind: 'too_large' },
      { connection: 'close' },
    );
  if (Number(req.headers['content-length'] ?? 0) > max) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw tooLarge();
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (err) {
    throw new HttpError(400, { error: `The body is not JSON: ${(err as Error).message}.`, kind: 'bad_input' });
  }
}

function asHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof QueueFull)
    return new HttpError(
      429,
      { error: `${err.message} Retry after ${err.retryAfterSeconds} s.`, kind: 'busy' },
      { 'retry-after': String(err.retryAfterSeconds) },
    );
  if (err instanceof SchemaError)
    return new HttpError(400, { error: err.message, kind: 'bad_input', field: err.field });
  if (err instanceof ChorusError) {
    const code = err.kind === 'bad_input' || err.kind === 'rejected' ? 400 : err.kind === 'missing_tool' ? 503 : 500;
    return new HttpError(code, { error: err.describe(), kind: err.kind });
  }
  return new HttpError(500, {
    error: `Internal error: ${err instanceof Error ? err.message : String(err)}`,
    kind: 'failed',
  });
}
