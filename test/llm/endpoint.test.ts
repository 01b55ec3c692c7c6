/** The OpenAI-compatible backend against a loopback server: streaming, retries, drops, timeouts, abort. */
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ChorusError, type ModelStatus } from '../../src/protocol';
import { EndpointBackend, apiRoot, listModels, openBackend } from '../../src/llm';
import { backoffMs, parseRetryAfter } from '../../src/llm/endpoint/retry';
import { sseData } from '../../src/llm/endpoint/sse';
import { loopback, memoryLogger, readBody, type Loopback } from './support';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Loopback | undefined;
const fast = { maxRetries: 3, baseMs: 1, maxWaitMs: 50 };
const messages = [
  { role: 'system' as const, content: 'You are a testbench expert.' },
  { role: 'user' as const, content: 'Write a testbench for counter.' },
];

/** A server that answers request i with handlers[i] (the last one repeats), recording every request. */
async function serve(...handlers: Handler[]): Promise<{ url: string; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  server = await loopback(async (req, res) => {
    const body = await readBody(req);
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const h = handlers[Math.min(requests.length - 1, handlers.length - 1)];
    await h(req, res, body);
  });
  return { url: server.url, requests };
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function chunk(content: string, extra: Record<string, unknown> = {}): string {
  return `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }], ...extra })}\n\n`;
}
const finish = (reason = 'stop') =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: reason }] })}\n\n`;
const usage = (prompt: number, completion: number, cached?: number) =>
  `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...(cached !== undefined ? { prompt_tokens_details: { cached_tokens: cached } } : {}) } })}\n\n`;

function streamOf(pieces: string[], tail = [finish(), usage(40, pieces.length, 30), 'data: [DONE]\n\n']): Handler {
  return async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': keep-alive comment\n\n');
    for (const p of pieces) {
      res.write(chunk(p));
      await new Promise((r) => setTimeout(r, 2));
    }
    for (const t of tail) res.write(t);
    res.end();
  };
}

function status(code: number, headers: Record<string, string> = {}, body = '{"error":{"message":"busy"}}'): Handler {
  return (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
}

test('base URL with or without /v1 and trailing slash all reach /v1', () => {
  assert.equal(apiRoot('http://127.0.0.1:8000'), 'http://127.0.0.1:8000/v1');
  assert.equal(apiRoot('http://127.0.0.1:8000/'), 'http://127.0.0.1:8000/v1');
  assert.equal(apiRoot('http://127.0.0.1:8000/v1'), 'http://127.0.0.1:8000/v1');
  assert.equal(apiRoot('http://127.0.0.1:8000/v1/'), 'http://127.0.0.1:8000/v1');
  assert.equal(apiRoot('https://host/proxy/openai'), 'https://host/proxy/openai/v1');
  assert.throws(
    () => apiRoot('not a url'),
    (err: unknown) => err instanceof ChorusError && err.kind === 'bad_input',
  );
  assert.throws(
    () => apiRoot('ftp://host'),
    (err: unknown) => err instanceof ChorusError && err.kind === 'bad_input',
  );
});

test('SSE parsing: data lines, multi-line data, comments, CRLF, split chunks and a last event without a blank line', async () => {
  const raw = ': hi\r\ndata: one\r\n\r\nevent: x\ndata: two\ndata: lines\n\nid: 3\ndata: [DONE]';
  const enc = new TextEncoder().encode(raw);
  async function* pieces() {
    for (let i = 0; i < enc.length; i += 5) yield enc.slice(i, i + 5);
  }
  const out: string[] = [];
  for await (const d of sseData(pieces())) out.push(d);
  assert.deepEqual(out, ['one', 'two\nlines', '[DONE]']);
});

test('Retry-After as seconds or a date, and exponential backoff capped', () => {
  assert.equal(parseRetryAfter('2'), 2000);
  assert.equal(parseRetryAfter('0.5'), 500);
  assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6000);
  assert.equal(parseRetryAfter(null), undefined);
  assert.equal(parseRetryAfter('soon'), undefined);
  const policy = { maxRetries: 5, baseMs: 100, maxWaitMs: 1000 };
  assert.equal(
    backoffMs(policy, 0, undefined, () => 0.5),
    100,
  );
  assert.equal(
    backoffMs(policy, 2, undefined, () => 0.5),
    400,
  );
  assert.equal(
    backoffMs(policy, 9, undefined, () => 0.5),
    1000,
  );
  assert.equal(backoffMs(policy, 0, 700), 700, 'Retry-After wins over the backoff');
  assert.equal(backoffMs(policy, 0, 5000), 1000, 'and is capped');
});

test('streams a reply, sends the protocol sampling, the key from CHORUS_API_KEY and include_usage; usage from the final chunk', async () => {
  const { url, requests } = await serve(
    streamOf(['filename: ', 'tb.sv\n', '```systemverilog\n', 'module tb; endmodule\n', '```']),
  );
  const saved = process.env.CHORUS_API_KEY;
  process.env.CHORUS_API_KEY = 'sk-test-123';
  const statuses: ModelStatus[] = [];
  try {
    const b = new EndpointBackend({
      baseUrl: url,
      model: 'chorus-4b',
      logger: memoryLogger(),
      onStatus: (s) => statuses.push(s),
      retry: fast,
    });
    const pieces: string[] = [];
    const r = await b.chat(messages, { onToken: (t) => pieces.push(t) });
    assert.deepEqual(pieces, ['filename: ', 'tb.sv\n', '```systemverilog\n', 'module tb; endmodule\n', '```']);
    assert.equal(r.text, pieces.join(''));
    assert.equal(r.finishReason, 'stop');
    assert.deepEqual(
      { ...r.usage, ms: 0 },
      { promptTokens: 40, evaluatedPromptTokens: 10, completionTokens: 5, ms: 0 },
    );
    assert.equal(requests.length, 1);
    assert.equal(requests[0].method, 'POST');
    assert.equal(requests[0].url, '/v1/chat/completions');
    assert.equal(requests[0].headers.authorization, 'Bearer sk-test-123');
    const body = JSON.parse(requests[0].body) as Record<string, unknown>;
    assert.equal(body.model, 'chorus-4b');
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.equal(body.temperature, 0.7);
    assert.equal(body.top_p, 0.8);
    assert.equal(body.max_tokens, 16384);
    assert.deepEqual(body.messages, messages);
    assert.deepEqual(
      statuses.map((s) => s.state).filter((s, i, a) => s !== a[i - 1]),
      ['generating', 'ready'],
    );
  } finally {
    if (saved === undefined) delete process.env.CHORUS_API_KEY;
    else process.env.CHORUS_API_KEY = saved;
  }
});

test('without a model name it asks /v1/models; reasoning is wrapped in <think>; no usage means estimated counts', async () => {
  const { url, requests } = await serve(
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'served-model' }] }));
    },
    async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ choices: [{ delta: { reasoning_content: 'think hard' } }] })}\n\n`);
      res.write(chunk('answer'));
      res.write(finish('length'));
      res.end('data: [DONE]\n\n');
    },
  );
  const b = new EndpointBackend({
    baseUrl: `${url}/v1/`,
    apiKey: 'k',
    logger: memoryLogger(),
    retry: fast,
    sampling: { temperature: 0.2 },
  });
  const r = await b.chat(messages, { maxTokens: 100, seed: 9, jsonSchema: { type: 'object' } });
  assert.equal(r.text, '<think>think hard</think>answer');
  assert.equal(r.finishReason, 'length');
  assert.equal(r.usage.estimated, true);
  assert.equal(r.usage.completionTokens, 2);
  assert.equal(requests[0].url, '/v1/models');
  assert.equal(requests[0].headers.authorization, 'Bearer k');
  const body = JSON.parse(requests[1].body) as Record<string, unknown>;
  assert.equal(body.model, 'served-model');
  assert.equal(body.temperature, 0.2);
  assert.equal(body.max_tokens, 100);
  assert.equal(body.seed, 9);
  assert.deepEqual(body.response_format, {
    type: 'json_schema',
    json_schema: { name: 'reply', schema: { type: 'object' }, strict: true },
  });
});

test('a 429 then success: retried, honouring Retry-After, with a warning', async () => {
  const { url, requests } = await serve(status(429, { 'retry-after': '0' }), streamOf(['ok']));
  const logger = memoryLogger();
  const b = new EndpointBackend({
    baseUrl: url,
    model: 'm',
    logger,
    retry: { maxRetries: 3, baseMs: 60_000, maxWaitMs: 120_000 },
  });
  const r = await b.chat(messages);
  assert.equal(r.text, 'ok');
  assert.equal(requests.length, 2);
  // baseMs is a minute: only the server's Retry-After: 0 explains the immediate retry.
  assert.match(logger.text(), /HTTP 429: busy; retrying in 0\.0 s \(attempt 2 of 4\)/);
});

test('5xx statuses are retried with backoff until they give up', async () => {
  const { url, requests } = await serve(status(503), status(502), streamOf(['fine']));
  const b = new EndpointBackend({ baseUrl: url, model: 'm', logger: memoryLogger(), retry: fast });
  assert.equal((await b.chat(messages)).text, 'fine');
  assert.equal(requests.length, 3);

  await server?.close();
  const again = await serve(status(500));
  const b2 = new EndpointBackend({
    baseUrl: again.url,
    model: 'm',
    logger: memoryLogger(),
    retry: { ...fast, maxRetries: 2 },
  });
  await assert.rejects(
    b2.chat(messages),
    (err: unknown) =>
      err instanceof ChorusError && err.kind === 'failed' && /HTTP 500.*gave up after 3 attempts/.test(err.message),
  );
  assert.equal(again.requests.length, 3);
});

test('client errors are not retried and say what to do', async () => {
  const { url, requests } = await serve(status(401, {}, '{"error":{"message":"invalid api key"}}'));
  const b = new EndpointBackend({ baseUrl: url, model: 'm', logger: memoryLogger(), retry: fast });
  await assert.rejects(
    b.chat(messages),
    (err: unknown) =>
      err instanceof ChorusError && err.kind === 'failed' && /401: invalid api key.*CHORUS_API_KEY/.test(err.message),
  );
  assert.equal(requests.length, 1);
});

test('a server whose context is smaller than max_tokens: retried once without max_tokens', async () => {
  const { url, requests } = await serve(
    status(
      400,
      {},
      '{"error":{"message":"This model\'s maximum context length is 8192 tokens. However, you requested 16500 tokens."}}',
    ),
    streamOf(['short']),
  );
  const b = new EndpointBackend({ baseUrl: url, model: 'm', logger: memoryLogger(), retry: fast });
  assert.equal((await b.chat(messages)).text, 'short');
  assert.equal(requests.length, 2);
  assert.equal((JSON.parse(requests[0].body) as { max_tokens?: number }).max_tokens, 16384);
  assert.equal((JSON.parse(requests[1].body) as { max_tokens?: number }).max_tokens, undefined);
});

test('a connection dropped before any text is retried; dropped mid-reply it fails clearly', async () => {
  const drop: Handler = (req) => void req.socket.destroy();
  const first = await serve(drop, streamOf(['after retry']));
  const b = new EndpointBackend({ baseUrl: first.url, model: 'm', logger: memoryLogger(), retry: fast });
  assert.equal((await b.chat(messages)).text, 'after retry');
  assert.equal(first.requests.length, 2);

  await server?.close();
  const second = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk('partial '));
    res.write(chunk('reply'));
    await new Promise((r) => setTimeout(r, 20));
    res.socket?.destroy();
  });
  const b2 = new EndpointBackend({ baseUrl: second.url, model: 'm', logger: memoryLogger(), retry: fast });
  const pieces: string[] = [];
  const cut = await b2.chat(messages, { onToken: (t) => pieces.push(t) });
  assert.equal(cut.text, 'partial reply', 'the text so far is kept');
  assert.equal(cut.finishReason, 'interrupted');
  assert.match(cut.note ?? '', /dropped the connection.*after 2 tokens; the reply is incomplete/);
  assert.deepEqual(pieces, ['partial ', 'reply']);
  assert.equal(second.requests.length, 1, 'text already went out: no retry that would repeat it');
});

test('a stream that goes silent hits the idle timeout', async () => {
  const { url } = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk('one'));
    // then nothing
  });
  const b = new EndpointBackend({ baseUrl: url, model: 'm', logger: memoryLogger(), idleTimeoutMs: 500, retry: fast });
  const r = await b.chat(messages);
  assert.equal(r.text, 'one');
  assert.equal(r.finishReason, 'interrupted');
  assert.match(r.note ?? '', /sent nothing for 500 ms after 1 tokens/);
});

test('no response headers within the response timeout: retried, then a clear failure', async () => {
  const { url, requests } = await serve(() => {
    // never answers
  });
  const b = new EndpointBackend({
    baseUrl: url,
    model: 'm',
    logger: memoryLogger(),
    responseTimeoutMs: 100,
    retry: { ...fast, maxRetries: 1 },
  });
  await assert.rejects(
    b.chat(messages),
    (err: unknown) => err instanceof ChorusError && err.kind === 'failed' && /did not answer within/.test(err.message),
  );
  assert.equal(requests.length, 2);
});

test('nobody listening: a failure that says to start the server', async () => {
  const { url } = await serve(status(200));
  await server?.close();
  server = undefined;
  const b = new EndpointBackend({
    baseUrl: url,
    model: 'm',
    logger: memoryLogger(),
    retry: { ...fast, maxRetries: 1 },
  });
  await assert.rejects(
    b.chat(messages),
    (err: unknown) =>
      err instanceof ChorusError &&
      err.kind === 'failed' &&
      /Cannot reach .*ECONNREFUSED.*start the server/.test(err.message),
  );
});

test('abort mid-stream rejects with cancelled at once and closes the request', async () => {
  let closed!: () => void;
  const serverSawClose = new Promise<void>((r) => (closed = r));
  const { url } = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.on('close', () => closed());
    for (let i = 0; i < 500 && !res.destroyed; i++) {
      res.write(chunk(`t${i} `));
      await new Promise((r) => setTimeout(r, 10));
    }
    res.end();
  });
  const b = new EndpointBackend({ baseUrl: url, model: 'm', logger: memoryLogger(), retry: fast });
  const controller = new AbortController();
  let afterAbort = 0;
  await assert.rejects(
    b.chat(messages, {
      signal: controller.signal,
      onToken: () => {
        if (controller.signal.aborted) afterAbort++;
        else controller.abort();
      },
    }),
    (err: unknown) => err instanceof ChorusError && err.kind === 'cancelled',
  );
  assert.equal(afterAbort, 0);
  await serverSawClose;
});

test('a stream that ends without finishing keeps its text and says it was cut short, not a silent short reply', async () => {
  const { url } = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(chunk('half'));
  });
  const b = new EndpointBackend({ baseUrl: url, model: 'm', logger: memoryLogger(), retry: fast });
  const r = await b.chat(messages);
  assert.equal(r.text, 'half');
  assert.equal(r.finishReason, 'interrupted');
  assert.match(r.note ?? '', /closed the stream after 1 tokens without finishing/);
});

test('a reply sent as one JSON body (no SSE) is accepted, thinking tagged and usage kept', async () => {
  const { url, requests } = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'module tb; endmodule', reasoning_content: 'plan' },
            finish_reason: 'length',
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 7 },
      }),
    );
  });
  const b = new EndpointBackend({ baseUrl: url, model: 'm', logger: memoryLogger(), retry: fast });
  const pieces: string[] = [];
  const r = await b.chat(messages, { onToken: (t) => pieces.push(t), thinking: false, seed: 42 });
  assert.equal(r.text, '<think>plan</think>module tb; endmodule');
  assert.equal(r.finishReason, 'length');
  assert.deepEqual([r.usage.promptTokens, r.usage.completionTokens], [12, 7]);
  assert.equal(pieces.join(''), r.text);
  assert.equal(requests.length, 1, 'answered at once, not retried as an empty stream');
  const sent = JSON.parse(requests[0].body) as { seed?: number; chat_template_kwargs?: { enable_thinking?: boolean } };
  assert.equal(sent.seed, 42);
  assert.deepEqual(sent.chat_template_kwargs, { enable_thinking: false });
});

test('an error event mid-stream fails with the server message', async () => {
  const { url } = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify({ error: { message: 'out of KV cache' } })}\n\n`);
  });
  const b = new EndpointBackend({ baseUrl: url, model: 'm', logger: memoryLogger(), retry: fast });
  await assert.rejects(b.chat(messages), /mid-stream: out of KV cache/);
});

test('openBackend with an endpoint, and listModels asks the server for its models', async () => {
  const { url } = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: [{ id: 'qwen3-4b' }, { id: 'chorus-4b' }] }));
  });
  const b = await openBackend(undefined, { logger: memoryLogger(), endpoint: { baseUrl: url, model: 'chorus-4b' } });
  assert.equal(b.kind, 'endpoint');
  assert.equal(b.label, 'endpoint:chorus-4b');
  const listed = (await listModels({ modelDirs: [], endpoint: { baseUrl: url, model: 'chorus-4b' } })).filter(
    (c) => c.source === 'endpoint',
  );
  assert.deepEqual(
    listed.map((c) => [c.id, c.present]),
    [
      ['chorus-4b', true],
      ['qwen3-4b', true],
    ],
    'the configured model first',
  );
  await server?.close();
  server = undefined;
  const down = (await listModels({ modelDirs: [], endpoint: { baseUrl: url, timeoutMs: 500 } })).filter(
    (c) => c.source === 'endpoint',
  );
  assert.equal(down.length, 1);
  assert.equal(down[0].present, false);
  assert.match(down[0].label, /unreachable/);
});
