/** `POST /v1/reward`: one rollout's reward R = 1 + c (0 when it did not build or run) and its next-round feedback. */
import { basename } from 'node:path';
import { nextRoundFeedback, parseReply, rewardOf } from '../engine';
import { ChorusError, type RewardRequest, type RewardResult } from '../protocol';
import { measureJob, type EvaluateContext } from './evaluate';

/** Where a reply's testbench is written when its filename line is missing or unusable. */
const defaultName = (dut: string) => `tb_${dut}.sv`;

export async function reward(req: RewardRequest, ctx: EvaluateContext): Promise<RewardResult> {
  const testbench = testbenchOf(req);
  if ('noCode' in testbench) {
    return {
      reward: 0,
      coverage: 0,
      fractions: {},
      status: 'no_code',
      feedback: testbench.noCode,
      cache_hit: false,
      ms: { build: 0, sim: 0 },
    };
  }
  return measureJob(
    {
      dut: req.dut,
      svFiles: req.sv_files,
      tb: testbench.name,
      files: { ...req.files, [testbench.name]: testbench.text },
      timeoutSeconds: req.timeout,
    },
    ctx,
    ({ result }) => ({
      ...rewardOf(result, req.metrics),
      status: result.status,
      feedback: nextRoundFeedback(result, basename(testbench.name)),
      cache_hit: result.cacheHit ?? false,
      ms: result.ms,
    }),
  );
}

function testbenchOf(req: RewardRequest): { name: string; text: string } | { noCode: string } {
  if (req.reply !== undefined) {
    const parsed = parseReply(req.reply);
    if (parsed.type !== 'file')
      return {
        noCode:
          'The reply held no complete testbench. Answer with a filename line and one ```systemverilog code block holding the complete testbench.',
      };
    const named =
      parsed.filename && /^[A-Za-z0-9_][A-Za-z0-9_.+-]*\.s?v$/.test(parsed.filename) ? parsed.filename : null;
    const name = named && !req.sv_files.includes(named) ? named : defaultName(req.dut);
    return { name, text: parsed.code };
  }
  if (req.tb === undefined)
    throw new ChorusError('bad_input', 'Give the testbench: "tb" (a name in "files") or "reply" (the model\'s reply).');
  const text = req.files[req.tb];
  if (text === undefined) throw new ChorusError('bad_input', `"${req.tb}" is named but not in "files": send its text.`);
  return { name: req.tb, text };
}
