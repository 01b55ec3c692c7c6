/**
 * The trainer clients in integrations/ against live servers, their Python side on the standard library only: verl's
 * custom reward function (async `compute_score`, the design in `extra_info`), content-hash routing of a design to
 * one replica, and the OpenRLHF remote reward form (a POST of queries and labels → rewards).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/protocol';
import { startServe, type RunningServe } from '../../src/serve';
import { repoRoot } from '../helpers/cli';
import { limitMs } from '../helpers/time-limits';
import { ACC, goodTb } from './fixtures';

const integrations = join(repoRoot, 'integrations');
// Two cold builds and the Python start-up took ~8 s at load 8.
const LIMIT = limitMs(8_000, 8);

const design = { dut: 'acc', sv_files: ['acc.sv'], files: { 'acc.sv': ACC } };
const reply = (seed: number) => `filename: tb_acc.sv\n\`\`\`systemverilog\n${goodTb('acc', seed)}\`\`\`\n`;

/** Runs python3 without blocking this process's event loop: the servers it talks to live in it. */
function python(
  args: string[],
  input: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

async function rewardRequests(server: RunningServe): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const m = /^chorus_serve_requests_total\{endpoint="\/v1\/reward",code="200"\} (\d+)$/m.exec(text);
  return Number(m?.[1] ?? 0);
}

describe('integrations: verl and OpenRLHF clients', { timeout: 3 * LIMIT }, () => {
  let a: RunningServe;
  let b: RunningServe;
  before(async () => {
    a = await startServe({ port: 0, slots: 1, logger: silentLogger });
    b = await startServe({ port: 0, slots: 1, logger: silentLogger });
  });
  after(async () => {
    await a.close();
    await b.close();
  });

  it("verl's async compute_score scores rollouts, and a design's requests go to one replica", async () => {
    const script = `
import asyncio, json, sys
sys.path.insert(0, ${JSON.stringify(integrations)})
import verl_reward
extra = json.loads(sys.stdin.read())
async def main():
    good, bad = await asyncio.gather(
        verl_reward.compute_score("chorus", extra["good"], None, extra["design"]),
        verl_reward.compute_score("chorus", "no code here", None, extra["design"]))
    print(json.dumps({"good": good, "bad": bad}))
asyncio.run(main())
`;
    const run = await python(['-c', script], JSON.stringify({ good: reply(5), design }), {
      ...process.env,
      CHORUS_SERVE_URLS: `${a.url},${b.url}`,
    });
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout) as { good: Record<string, number>; bad: Record<string, number> };
    assert.ok(out.good.score > 1 && out.good.score <= 2, `score ${out.good.score}`);
    assert.equal(out.good.built, 1);
    assert.equal(out.bad.score, 0);
    const counts = [await rewardRequests(a), await rewardRequests(b)];
    assert.deepEqual(
      [...counts].sort(),
      [0, 2],
      `both rollouts of the design went to one replica (${counts.join(', ')})`,
    );
  });

  it('the OpenRLHF remote reward form: queries and labels in, rewards out', async () => {
    const bridge = spawn('python3', [join(integrations, 'openrlhf_remote_rm.py'), '--port', '0'], {
      env: { ...process.env, CHORUS_SERVE_URLS: a.url },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: bridge.stdout }).once('line', resolve);
        bridge.once('exit', (code) => reject(new Error(`the bridge exited (${code}) before it listened`)));
      });
      const prompt = 'Write a testbench for acc.\n';
      const res = await fetch(`${url}/get_reward`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: [prompt + reply(6), `${prompt}I will not.`],
          prompts: [prompt, prompt],
          labels: [JSON.stringify(design), JSON.stringify(design)],
        }),
      });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { rewards: number[]; extra_logs: { built: number[] } };
      assert.equal(body.rewards.length, 2);
      assert.ok(body.rewards[0] > 1, `reward ${body.rewards[0]}`);
      assert.equal(body.rewards[1], 0);
      assert.deepEqual(body.extra_logs.built, [1, 0]);
    } finally {
      bridge.kill();
    }
  });
});
