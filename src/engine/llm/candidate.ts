/**
 * One candidate of a round: its expert's reply (asked again, bounded, when it holds no code), parsed and patched,
 * then measured. A round runs several of these at once; a one-candidate round streams its events as they happen.
 */
import { lineCoverage } from '../../sim';
import { isAbortError, type ChatMessage, type CoveragePoint, type LoopEvent } from '../../protocol';
import type { ChatBackend, SamplingOptions } from '../../llm';
import type { EngineServices } from '../api';
import type { Emit } from '../channel';
import type { RunContext } from '../context';
import type { Attempt } from './attempt';
import { evaluateCandidate, type Measurement } from './evaluateCandidate';
import { generateReply, type Reply } from './generateReply';
import { parseAndPatch, type Candidate } from './parseAndPatch';

export interface CandidateInput {
  ctx: RunContext;
  services: EngineServices;
  expert: ChatBackend;
  /** Position in the round: 0 streams its tokens; others measure in their own folder. */
  slot: number;
  round: number;
  messages: ChatMessage[];
  sampling: SamplingOptions;
  /** The seed of the `ask`-th try, when the run is seeded. */
  seed?: ((ask: number) => number) | undefined;
  parseRetries: number;
  best: { attempt: Attempt | null; points: CoveragePoint[] };
  simTimeoutMs?: number | undefined;
  /** True when the run should end now (cancelled, out of time): no further tries. */
  stopping(): boolean;
  /** Bounds the builds and simulations in flight. */
  measureSlot: <T>(task: () => Promise<T>) => Promise<T>;
  emit: Emit<LoopEvent>;
  /** Emit parsed/build/coverage as they happen (a one-candidate round); else the loop emits the kept one's. */
  live: boolean;
  log(level: 'info' | 'warn', message: string): void;
}

export interface CandidateOutcome {
  expert: ChatBackend;
  slot: number;
  /** The last reply, its time and tokens summed over the tries; null when cancelled or the expert failed. */
  reply: Reply | null;
  candidate: Candidate | null;
  measured: Measurement | null;
  /** The expert failed to answer (`generate`) or measuring its testbench failed (`measure`). */
  failure?: { stage: 'generate' | 'measure'; error: unknown };
  cancelled: boolean;
}

export async function runCandidate(input: CandidateInput): Promise<CandidateOutcome> {
  const { expert, slot, round, emit, live } = input;
  const base = { expert, slot, reply: null, candidate: null, measured: null, cancelled: false };
  let reply: Reply | null = null;
  let candidate: Candidate | null = null;
  const spent = { ms: 0, tokens: 0, prompt: 0 };
  for (let ask = 0; ; ask++) {
    try {
      const seed = input.seed ? { seed: input.seed(ask) } : {};
      // Only the first candidate streams: several interleaved streams would read as one garbled reply.
      const tokens: Emit<LoopEvent> = slot === 0 ? emit : () => {};
      reply = await generateReply(
        expert,
        input.messages,
        round,
        { ...input.sampling, ...seed },
        input.services.signal,
        tokens,
      );
    } catch (err) {
      if (isAbortError(err) || input.services.signal.aborted) return { ...base, cancelled: true };
      return { ...base, failure: { stage: 'generate', error: err } };
    }
    if (!reply) return { ...base, cancelled: true };
    spent.ms += reply.ms;
    spent.tokens += reply.completionTokens;
    spent.prompt += reply.evaluatedPromptTokens;
    if (reply.note) input.log('warn', `Round ${round}: ${reply.note}.`);
    candidate = parseAndPatch(reply.text, input.best.attempt, input.ctx.top.name, reply, input.ctx.design.parameters);
    if (live)
      emit({
        type: 'parsed',
        round,
        outcome: candidate.outcome,
        testbench: candidate.testbench ?? undefined,
        patch: candidate.parsed.type === 'patch',
      });
    const unparsed = candidate.status === 'no_code' || candidate.status === 'empty_reply';
    if (!unparsed || ask >= input.parseRetries || input.stopping()) break;
    input.log(
      'info',
      `Round ${round}: ${candidate.outcome}; asked again with the same prompt (${ask + 1} of ${input.parseRetries}).`,
    );
  }
  reply = { ...reply, ms: spent.ms, completionTokens: spent.tokens, evaluatedPromptTokens: spent.prompt };
  if (candidate.testbench === null) return { ...base, reply, candidate };

  const testbench = candidate.testbench;
  // Candidates of one round measure side by side: each in its own folder, so their files never collide.
  const filename = slot === 0 ? candidate.filename : `candidate-${slot}/${candidate.filename}`;
  let measured: Measurement | null;
  try {
    measured = await input.measureSlot(() =>
      evaluateCandidate(
        input.ctx,
        input.services,
        { ...candidate, testbench, filename },
        input.best,
        input.simTimeoutMs,
      ),
    );
  } catch (err) {
    return { ...base, reply, candidate, failure: { stage: 'measure', error: err } };
  }
  if (!measured) return { ...base, reply, candidate, cancelled: true };
  if (live) emitMeasured(emit, round, measured);
  return { ...base, reply, candidate, measured };
}

/** The `build` and `coverage` events of a measured candidate. */
export function emitMeasured(emit: Emit<LoopEvent>, round: number, measured: Measurement): void {
  const { report, points } = measured;
  emit({ type: 'build', round, status: report.status, ms: report.ms.build, diagnostics: report.diagnostics });
  emit({
    type: 'coverage',
    round,
    coverage: report.coverage,
    holes: report.holes,
    status: report.status,
    lines: points.length ? lineCoverage(points) : undefined,
  });
}
