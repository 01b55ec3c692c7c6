/**
 * `chorus serve` over real HTTP on loopback, with the real Verilator: LLM4Cov-shaped jobs (a good testbench, one
 * that does not compile, an escape attempt, a hang, a design with a forbidden construct) checked against the result
 * schema, the expected status and the reward; the body bound (413), the queue bound (429), a client that goes away,
 * and the probes and metrics.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import Ajv from 'ajv';
import {
  coverageJobResultSchema,
  rewardResultSchema,
  silentLogger,
  type CoverageJobResult,
  type RewardResult,
} from '../../src/protocol';
import { startServe, type RunningServe } from '../../src/serve';
import { limitMs } from '../helpers/time-limits';
import { ACC, ACC_DPI, TB_ESCAPE, TB_HANG, TB_SYNTAX_ERROR, goodTb, job } from './fixtures';

const ajv = new Ajv({ allErrors: true, strict: false });
const isJobResult = ajv.compile<CoverageJobResult>(coverageJobResultSchema);
const isRewardResult = ajv.compile<RewardResult>(rewardResultSchema);

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

function jobResult(body: unknown): CoverageJobResult {
  assert.ok(isJobResult(body), `not an LLM4Cov result: ${ajv.errorsText(isJobResult.errors)}\n${JSON.stringify(body)}`);
  return body;
}

function rewardResult(body: unknown): RewardResult {
  assert.ok(isRewardResult(body), `not a reward result: ${ajv.errorsText(isRewardResult.errors)}`);
  return body;
}

/** Waits for a server-side state the test itself caused (a request holding its slot), failing after `ms`. */
async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// A cold build of the small design took ~6 s at load 2 (one slot); a warm one under 1 s.
const BUILD_MS = limitMs(6_000, 2);

describe('chorus serve: LLM4Cov jobs and rewards', { timeout: 6 * BUILD_MS }, () => {
  let server: RunningServe;
  before(async () => {
    server = await startServe({ port: 0, slots: 2, queue: 8, maxBodyBytes: 256 * 1024, logger: silentLogger });
  });
  after(() => server.close());

  it('measures a good testbench: success, per-module figures, nulls where Verilator has no kind', async () => {
    const res = await post(`${server.url}/v1/llm4cov`, job(goodTb()));
    assert.equal(res.status, 200);
    const r = jobResult(res.body);
    assert.equal(r.status, 'success');
    assert.equal(r.returncode, 0);
    assert.equal(r.chorus_status, 'ok');
    assert.equal(r.job_id, 'acc_1_abcdef');
    const top = r.cov_info?.summary[0];
    assert.ok(top, 'a summary row for the DUT top');
    assert.equal(top.name, 'acc');
    assert.equal(top.level, 0);
    assert.ok((top['Code Covered'] ?? 0) > 0.5, `code covered ${top['Code Covered']}`);
    assert.ok((top.Toggle ?? 0) > 0, `toggle ${top.Toggle}`);
    assert.equal(top.Block, null);
    assert.equal(top['Functional Covered'], null);
    assert.equal(top.Assertion, null);
    assert.equal(top['Fsm Covered'], null, 'acc has no FSM');
    assert.match(r.cov_info?.detail ?? '', /EDA result:[\s\S]*coverage/);
  });

  it('gives the reward 1 + coverage and the next round feedback; the same design builds warm', async () => {
    const body = {
      dut: 'acc',
      sv_files: ['acc.sv'],
      files: { 'acc.sv': ACC },
      tb: 'tb.sv',
      metrics: ['overall', 'line'],
    };
    const first = rewardResult(
      (await post(`${server.url}/v1/reward`, { ...body, files: { ...body.files, 'tb.sv': goodTb('acc', 2) } })).body,
    );
    assert.equal(first.status, 'ok');
    const c = ((first.fractions.overall ?? 0) + (first.fractions.line ?? 0)) / 2;
    assert.ok(
      Math.abs(first.coverage - c) < 1e-6,
      `c ${first.coverage} is the mean of ${JSON.stringify(first.fractions)}`,
    );
    assert.ok(Math.abs(first.reward - (1 + first.coverage)) < 1e-6);
    assert.ok(first.coverage > 0.5 && first.coverage < 1, `c ${first.coverage}`);
    assert.match(first.feedback, /Instruction for next round:/);
    // The same testbench again: the simulator comes from the shared build cache.
    const again = rewardResult(
      (await post(`${server.url}/v1/reward`, { ...body, files: { ...body.files, 'tb.sv': goodTb('acc', 2) } })).body,
    );
    assert.equal(again.cache_hit, true);
    assert.equal(again.reward, first.reward);
    // A model's raw reply is parsed as the loop parses it.
    const reply = `filename: tb_acc.sv\n\`\`\`systemverilog\n${goodTb('acc', 2)}\`\`\`\n`;
    const fromReply = rewardResult((await post(`${server.url}/v1/reward`, { ...body, tb: undefined, reply })).body);
    assert.equal(fromReply.reward, first.reward);
    const noCode = rewardResult(
      (await post(`${server.url}/v1/reward`, { ...body, tb: undefined, reply: 'I cannot.' })).body,
    );
    assert.equal(noCode.status, 'no_code');
    assert.equal(noCode.reward, 0);
  });

  it('a testbench that does not compile: xrun_failed, reward 0, the compiler error named by file', async () => {
    const r = jobResult((await post(`${server.url}/v1/llm4cov`, job(TB_SYNTAX_ERROR))).body);
    assert.equal(r.status, 'xrun_failed');
    assert.equal(r.chorus_status, 'compile_error');
    assert.equal(r.returncode, 1);
    assert.match(r.err_msg, /tb_acc\.sv:\d+/);
    assert.doesNotMatch(r.err_msg, /chorus-serve-/, 'the private folder is not shown');
    const w = rewardResult(
      (
        await post(`${server.url}/v1/reward`, {
          dut: 'acc',
          sv_files: ['acc.sv'],
          tb: 't.sv',
          files: { 'acc.sv': ACC, 't.sv': TB_SYNTAX_ERROR },
        })
      ).body,
    );
    assert.equal(w.reward, 0);
    assert.match(w.feedback, /compile_failed/);
  });

  it('an escape attempt ($system) is rejected and never runs', async () => {
    const r = jobResult((await post(`${server.url}/v1/llm4cov`, job(TB_ESCAPE))).body);
    assert.equal(r.chorus_status, 'rejected');
    assert.equal(r.returncode, 2);
    assert.match(r.err_msg, /\$system/);
    assert.equal(existsSync('/tmp/chorus-serve-escaped'), false);
  });

  it('a design with a forbidden construct (DPI) is rejected before it is built', async () => {
    const r = jobResult((await post(`${server.url}/v1/llm4cov`, job(goodTb(), ACC_DPI))).body);
    assert.equal(r.chorus_status, 'rejected');
    assert.match(r.err_msg, /acc\.sv:\d+.*DPI/i);
  });

  it('a testbench that hangs is stopped at its time bound', async () => {
    const r = jobResult((await post(`${server.url}/v1/llm4cov`, job(TB_HANG, ACC, { timeout: 2 }))).body);
    assert.equal(r.status, 'xrun_failed');
    assert.equal(r.chorus_status, 'timeout');
  });

  it('refuses bad requests by name: a path outside the folder, a missing file, a wrong sha256, a body too large', async () => {
    const escape = await post(`${server.url}/v1/llm4cov`, {
      ...job(goodTb()),
      files: { '../x.sv': ACC, 'tb_acc.sv': goodTb() },
    });
    assert.equal(escape.status, 400);
    assert.match(String(escape.body.error), /plain relative file name|files/);
    const missing = await post(`${server.url}/v1/llm4cov`, { ...job(goodTb()), sv_files: ['nope.sv'] });
    assert.equal(missing.status, 400);
    assert.match(String(missing.body.error), /"nope\.sv" is named but not in "files"/);
    const sha = await post(`${server.url}/v1/llm4cov`, {
      ...job(goodTb()),
      inputs_sha256: { 'acc.sv': '0'.repeat(64) },
    });
    assert.equal(sha.status, 400);
    assert.match(String(sha.body.error), /inputs_sha256/);
    const large = await post(`${server.url}/v1/llm4cov`, job(goodTb(), `${ACC}//${'x'.repeat(300 * 1024)}\n`));
    assert.equal(large.status, 413);
    assert.equal(large.body.kind, 'too_large');
  });

  it('answers health, readiness and Prometheus metrics', async () => {
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
    const ready = await fetch(`${server.url}/ready`);
    assert.equal(ready.status, 200);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /^chorus_serve_requests_total\{endpoint="\/v1\/llm4cov",code="200"\} \d+/m);
    assert.match(metrics, /^chorus_serve_build_cache_hits_total [1-9]/m);
    assert.match(metrics, /^chorus_serve_queue_length 0$/m);
    assert.match(metrics, /^chorus_serve_request_duration_seconds_count\{endpoint="\/v1\/reward"\} [1-9]/m);
  });
});

describe('chorus serve: the queue bound, cancellation and the token', { timeout: 6 * BUILD_MS }, () => {
  let server: RunningServe;
  before(async () => {
    server = await startServe({ port: 0, slots: 1, queue: 1, token: 'sekrit', logger: silentLogger });
  });
  after(() => server.close());
  const auth = { authorization: 'Bearer sekrit' };

  it('needs the token', async () => {
    const res = await post(`${server.url}/v1/llm4cov`, job(goodTb()));
    assert.equal(res.status, 401);
    assert.equal((await fetch(`${server.url}/health`)).status, 200, 'probes need no token');
  });

  it('one request runs, one waits, the next is refused 429 with Retry-After; a client that leaves stops its run', async () => {
    // A hang holds the slot until its client goes away (its own bound, 60 s, is far off).
    const hang = JSON.stringify(job(TB_HANG, ACC, { timeout: 60 }));
    const held = request(`${server.url}/v1/llm4cov`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
    });
    held.on('error', () => {});
    held.end(hang);
    await until('the first request to hold the slot', () => server.slots.inUse === 1, BUILD_MS);
    const waiting = post(
      `${server.url}/v1/reward`,
      { dut: 'acc', sv_files: ['acc.sv'], tb: 't.sv', files: { 'acc.sv': ACC, 't.sv': goodTb('acc', 3) } },
      auth,
    );
    await until('the second request to queue', () => server.slots.queued === 1, BUILD_MS);
    const refused = await post(`${server.url}/v1/llm4cov`, job(goodTb()), auth);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal((await fetch(`${server.url}/ready`)).status, 503, 'not ready while the queue is full');
    const started = Date.now();
    held.destroy();
    // The waiting request gets the slot only once the hang's run is stopped.
    const second = rewardResult((await waiting).body);
    assert.equal(second.status, 'ok');
    assert.ok(Date.now() - started < 60_000, 'the hang was stopped by its client leaving, not by its bound');
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: auth })).text();
    assert.match(metrics, /^chorus_serve_cancelled_total 1$/m);
    assert.match(metrics, /^chorus_serve_requests_total\{endpoint="\/v1\/llm4cov",code="429"\} 1$/m);
  });

  it('refuses to serve off loopback without a token', async () => {
    await assert.rejects(startServe({ host: '0.0.0.0', port: 0, logger: silentLogger }), /needs a token/);
  });
});
