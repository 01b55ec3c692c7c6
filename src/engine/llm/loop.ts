/**
 * The closure loop with a model: prompt → reply → parse/patch → sandbox check, build, simulate → feedback, round
 * after round. Markov context: each round sees the opening messages, the best reply so far and its feedback only.
 * Each step is a named function in its own file; this one only orders them and keeps the loop's state. Once a
 * testbench has been measured it is never lost: a failing backend, a prompt that no longer fits, a cancel or the
 * budget end the run with a reason, and the best testbench is the result.
 */
import { lineCoverage } from '../../sim';
import type { SamplingOptions } from '../../llm';
import { ChorusError, coveredGain, emptySummary, isAbortError, meetsTargets, type CoveragePoint, type LoopEvent, type RoundSummary } from '../../protocol';
import type { EngineServices } from '../api';
import type { Emit } from '../channel';
import type { RunContext } from '../context';
import type { Outcome } from '../generators/types';
import { keepsNewer, seedAttempt, type Attempt } from './attempt';
import { buildRoundPrompt } from './buildPrompt';
import { contextBudget, contextPlan, fitPrompt } from './contextFit';
import { evaluateCandidate, type Measurement } from './evaluateCandidate';
import { generateReply, type Reply } from './generateReply';
import { parseAndPatch, type Candidate } from './parseAndPatch';
import { buildOpeningMessages } from './prompt';
import { DEFAULT_TEMPLATES, loadTemplates } from './templates';
import { cleanReply, roundFeedback, roundSummary } from './roundRecord';
import { runSignal } from './runSignal';
import { roundSeed } from './seed';
import { stopAfterRound, stopBeforeRound, type StopLimits, type StopReason } from './stopRules';

export interface LlmLoopOptions extends StopLimits {
  /**
   * Refinement rounds after the first generation, LLM4Cov's count (`react_rounds`, 3 in the paper): a fresh run makes
   * 1 + rounds generations; a run continuing from a measured testbench (`from`, hybrid) makes `rounds`, that
   * testbench standing as the first generation, as LLM4Cov's agentic flow starts from its direct-inference result.
   */
  rounds: number;
  simTimeoutMs?: number;
  /**
   * An earlier generator's outcome to continue from (hybrid): its testbench stands as the best reply so far with its
   * measured feedback, and its rounds are kept so that round numbers continue.
   */
  from?: Outcome;
  sampling?: Pick<SamplingOptions, 'temperature' | 'topP' | 'maxTokens' | 'thinking'>;
  /** The run's seed: each round samples with a seed derived from it. Unset: the backend's own randomness. */
  seed?: number;
  /** The model's context in tokens when the user set it; else what the backend reports, if anything. */
  contextSize?: number;
  /** Extra instruction text for the opening prompt (a benchmark item's `instruction`). */
  instruction?: string;
  /** A JSON file of prompt templates over the built-in ones (templates/default.json). */
  promptTemplates?: string;
  /** How often a reply with no code (or an empty one) is asked again within its round; default 1. */
  parseRetries?: number;
}

const DEFAULT_PARSE_RETRIES = 1;

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export async function runLlmLoop(ctx: RunContext, services: EngineServices, opts: LlmLoopOptions, emit: Emit<LoopEvent>): Promise<Outcome> {
  const backend = services.backend;
  if (!backend) throw new ChorusError('bad_input', 'No model configured: pass --model <path|id|replay:file> or --endpoint <url>, or use --engine random.');
  // A bad templates file is the run's error, unless an earlier generator measured a testbench (kept below).
  let templates = DEFAULT_TEMPLATES;
  let templatesError: unknown;
  try {
    templates = await loadTemplates(opts.promptTemplates);
  } catch (err) {
    if (!opts.from?.report) throw err;
    templatesError = err;
  }
  const opening = buildOpeningMessages(
    { rtl: ctx.rtl, specs: ctx.specs, top: ctx.top.name, instance: ctx.instance, clock: ctx.top.clock, reset: ctx.top.reset, extra: opts.instruction },
    templates,
  );
  const rounds: RoundSummary[] = [...(opts.from?.result.rounds ?? [])];
  const parseRetries = opts.parseRetries ?? DEFAULT_PARSE_RETRIES;
  const startedAt = Date.now();
  // The budget also stops a generation or simulation in progress, not only the next round.
  const run = runSignal(services.signal, opts.budgetMs, startedAt);
  const runServices: EngineServices = { ...services, signal: run.signal };
  let best: Attempt | null = null;
  let bestPoints: CoveragePoint[] = [];
  let tokensUsed = 0;
  let stall = 0;
  let stopReason: StopReason = 'rounds';
  let stopDetail: string | undefined;
  const log = (level: 'info' | 'warn' | 'error', message: string) => emit({ type: 'log', level, message });
  /** Ends the run for a failure; before any measured testbench there is nothing to keep, so it is the run's error. */
  const failAfterBest = (reason: 'error' | 'context', detail: string, err?: unknown) => {
    if (!best?.report) throw err ?? new ChorusError('bad_input', detail);
    stopReason = reason;
    stopDetail = detail;
    log('error', `${detail} The best testbench so far is kept.`);
  };

  const from = opts.from;
  if (from?.report) {
    best = seedAttempt(from.result.testbench, from.filename, from.report, ctx.targets, ctx.displayName, templates);
    bestPoints = from.points;
    if (meetsTargets(from.report.coverage, ctx.targets)) stopReason = 'targets met';
    else if (templatesError) failAfterBest('error', `${errorMessage(templatesError)}`);
  }

  try {
    let budget: Awaited<ReturnType<typeof contextBudget>>;
    if (stopReason !== 'targets met') {
      try {
        budget = await contextBudget(backend, opts.contextSize, opts.sampling?.maxTokens, run.signal);
        if (budget) {
          const plan = await contextPlan(budget, opening, opts.sampling?.maxTokens);
          for (const note of plan.notes) log('warn', note);
          if (!plan.fits) {
            failAfterBest(
              'context',
              `The design and spec take ${plan.openingTokens} tokens, but with ${budget.replyTokens} kept for the reply the ${budget.contextTokens}-token context holds ${budget.promptTokens}: raise --context-size (chorus.contextSize), or give fewer or smaller files.`,
            );
          }
        }
      } catch (err) {
        if (!(isAbortError(err) || run.signal.aborted)) {
          if (err instanceof ChorusError && err.kind === 'bad_input' && !best?.report) throw err;
          failAfterBest('error', `The model could not be prepared: ${errorMessage(err)}.`, err);
        }
      }
    }
    const sampling = { ...opts.sampling, ...(budget ? { maxTokens: budget.replyTokens } : {}) };

    const first = rounds.length + 1;
    const generations = best ? opts.rounds : 1 + opts.rounds;
    for (let index = first; stopReason === 'rounds' && index < first + generations; index++) {
      const early = stopBeforeRound(run.signal, startedAt, opts);
      if (early) {
        stopReason = early === 'cancelled' && run.budgetSpent() ? 'budget' : early;
        break;
      }
      const steering = services.steering?.take() ?? [];
      const current = best;
      const fitted = await fitPrompt((detail) => buildRoundPrompt(opening, current, steering, detail, templates), budget);
      if (!('messages' in fitted)) {
        failAfterBest(
          'context',
          `Round ${index}'s prompt needs ${fitted.tokens} tokens even with the feedback and the replayed testbench shortened, but ${budget?.promptTokens} fit the ${budget?.contextTokens}-token context (${budget?.replyTokens} kept for the reply): raise --context-size (chorus.contextSize).`,
        );
        break;
      }
      if (fitted.level > 0) log('info', `Round ${index}: the prompt was shortened to fit the context (${fitted.tokens} of ${budget?.promptTokens} tokens).`);
      emit({ type: 'roundStart', round: index, instruction: steering.join('\n') || undefined });

      // A reply that cannot be parsed is asked again with the same prompt (bounded), not fed back; the last one counts.
      let reply: Reply | null = null;
      let candidate: Candidate | null = null;
      let failed = false;
      const spent = { ms: 0, tokens: 0, prompt: 0 };
      for (let ask = 0; ; ask++) {
        try {
          const seed = opts.seed !== undefined ? { seed: ask ? roundSeed(roundSeed(opts.seed, index), ask) : roundSeed(opts.seed, index) } : {};
          reply = await generateReply(backend, fitted.messages, index, { ...sampling, ...seed }, run.signal, emit);
        } catch (err) {
          failAfterBest('error', `The model failed in round ${index}: ${errorMessage(err)}.`, err);
          failed = true;
          break;
        }
        if (!reply) break;
        tokensUsed += reply.completionTokens;
        spent.ms += reply.ms;
        spent.tokens += reply.completionTokens;
        spent.prompt += reply.evaluatedPromptTokens;
        if (reply.note) log('warn', `Round ${index}: ${reply.note}.`);
        candidate = parseAndPatch(reply.text, best, ctx.top.name, reply);
        emit({ type: 'parsed', round: index, outcome: candidate.outcome, testbench: candidate.testbench ?? undefined, patch: candidate.parsed.type === 'patch' });
        const unparsed = candidate.status === 'no_code' || candidate.status === 'empty_reply';
        if (!unparsed || ask >= parseRetries || stopBeforeRound(run.signal, startedAt, opts)) break;
        log('info', `Round ${index}: ${candidate.outcome}; asked again with the same prompt (${ask + 1} of ${parseRetries}).`);
      }
      if (failed) break;
      if (!reply || !candidate) {
        stopReason = run.budgetSpent() ? 'budget' : 'cancelled';
        break;
      }
      reply = { ...reply, ms: spent.ms, completionTokens: spent.tokens, evaluatedPromptTokens: spent.prompt };

      let measured: Measurement | null = null;
      if (candidate.testbench !== null) {
        try {
          measured = await evaluateCandidate(ctx, runServices, { ...candidate, testbench: candidate.testbench }, { attempt: best, points: bestPoints }, opts.simTimeoutMs);
        } catch (err) {
          failAfterBest('error', `Measuring round ${index}'s testbench failed: ${errorMessage(err)}.`, err);
          break;
        }
        if (!measured) {
          stopReason = run.budgetSpent() ? 'budget' : 'cancelled';
          break;
        }
        const { report, points } = measured;
        emit({ type: 'build', round: index, status: report.status, ms: report.ms.build, diagnostics: report.diagnostics });
        emit({ type: 'coverage', round: index, coverage: report.coverage, holes: report.holes, status: report.status, lines: points.length ? lineCoverage(points) : undefined });
      }
      const report = measured?.report ?? null;

      const feedback = roundFeedback(candidate, report, best, ctx.targets, ctx.displayName, templates);
      emit({ type: 'feedback', round: index, text: feedback(fitted.detail).content });

      const attempt: Attempt = { reply: cleanReply(candidate, reply.text), feedback, testbench: candidate.testbench, filename: candidate.filename, report };
      const before = best?.report?.status === 'ok' ? best.report.coverage : emptySummary();
      if (keepsNewer(attempt, best, ctx.targets)) {
        best = attempt;
        bestPoints = measured?.points ?? [];
      }
      const summary = roundSummary(index, reply, candidate, report);
      rounds.push(summary);
      emit({ type: 'roundEnd', round: summary });

      const improved = best === attempt && report?.status === 'ok' && coveredGain(before, report.coverage) > 0;
      stall = improved ? 0 : stall + 1;
      const stop = stopAfterRound({ best: best ?? attempt, stall, tokensUsed }, opts, ctx.targets);
      if (stop) {
        stopReason = stop;
        break;
      }
    }
    if (services.signal.aborted) stopReason = 'cancelled';
    else if (run.budgetSpent() && stopReason === 'rounds') stopReason = 'budget';
  } finally {
    run.dispose();
  }

  const finalReport = best?.report ?? null;
  const coverage = finalReport?.status === 'ok' ? finalReport.coverage : emptySummary();
  return {
    result: {
      top: ctx.top.name,
      engine: 'llm',
      pass: finalReport?.status === 'ok' && meetsTargets(coverage, ctx.targets),
      targets: ctx.targets,
      coverage,
      holes: finalReport?.holes ?? [],
      rounds,
      testbench: best?.testbench ?? '',
      stopReason,
      ...(stopDetail ? { stopDetail } : {}),
      diagnostics: finalReport?.diagnostics ?? [],
      lines: lineCoverage(bestPoints),
      model: backend.label,
    },
    report: finalReport,
    points: bestPoints,
    filename: best?.filename ?? `tb_${ctx.top.name}.sv`,
  };
}
