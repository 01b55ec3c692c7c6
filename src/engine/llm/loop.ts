/**
 * The closure loop with a model: prompt → reply → parse/patch → sandbox check, build, simulate → feedback, round
 * after round. Markov context: each round sees the opening messages, the best reply so far and its feedback only.
 * Each step is a named function in its own file; this one only orders them and keeps the loop's state. Once a
 * testbench has been measured it is never lost: a failing backend, a prompt that no longer fits, a cancel or the
 * budget end the run with a reason, and the best testbench is the result.
 */
import { lineCoverage, machineFault } from '../../sim';
import type { ChatBackend, SamplingOptions } from '../../llm';
import {
  ChorusError,
  coveredGain,
  emptySummary,
  isAbortError,
  meetsTargets,
  type CoveragePoint,
  type LoopEvent,
  type RoundSummary,
} from '../../protocol';
import type { EngineServices } from '../api';
import type { Emit } from '../channel';
import type { RunContext } from '../context';
import type { Outcome } from '../generators/types';
import { isBetter, keepsNewer, seedAttempt, type Attempt } from './attempt';
import { buildRoundPrompt } from './buildPrompt';
import { contextBudget, contextPlan, fitPrompt } from './contextFit';
import { emitMeasured, runCandidate } from './candidate';
import { candidateSeed, defaultCandidates, expertFor, limiter, measureSlots, runExperts } from './experts';
import type { Reply } from './generateReply';
import type { Candidate } from './parseAndPatch';
import { buildOpeningMessages } from './prompt';
import { DEFAULT_TEMPLATES, loadTemplates } from './templates';
import { candidateRuns, cleanReply, roundFeedback, roundSummary } from './roundRecord';
import { runSignal } from './runSignal';
import { systemClock } from '../clock';
import { standingVerdict } from '../standing';
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
  from?: Outcome | undefined;
  sampling?: Pick<SamplingOptions, 'temperature' | 'topP' | 'maxTokens' | 'thinking'> | undefined;
  /** The run's seed: each round samples with a seed derived from it. Unset: the backend's own randomness. */
  seed?: number | undefined;
  /** The model's context in tokens when the user set it; else what the backend reports, if anything. */
  contextSize?: number | undefined;
  /** Extra instruction text for the opening prompt (a benchmark item's `instruction`). */
  instruction?: string | undefined;
  /** A JSON file of prompt templates over the built-in ones (templates/default.json). */
  promptTemplates?: string | undefined;
  /** How often a reply with no code (or an empty one) is asked again within its round; default 1. */
  parseRetries?: number | undefined;
  /** Candidate testbenches per round, spread over the experts; default `defaultCandidates`. */
  candidates?: number | undefined;
  /** Stop on raw coverage (`--require-raw`): points proven or waived are not left out of the targets. */
  requireRaw?: boolean | undefined;
}

const DEFAULT_PARSE_RETRIES = 1;

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export async function runLlmLoop(
  ctx: RunContext,
  services: EngineServices,
  opts: LlmLoopOptions,
  emit: Emit<LoopEvent>,
): Promise<Outcome> {
  const backend = services.backend;
  if (!backend)
    throw new ChorusError(
      'bad_input',
      'No model configured: pass --model <path|id|replay:file> or --endpoint <url>, or use --engine random.',
    );
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
    {
      rtl: ctx.rtl,
      specs: ctx.specs,
      top: ctx.top.name,
      instance: ctx.instance,
      clock: ctx.top.clock,
      reset: ctx.top.reset,
      extra: opts.instruction,
      parameters: ctx.design.parameters,
    },
    templates,
  );
  const rounds: RoundSummary[] = [...(opts.from?.result.rounds ?? [])];
  const parseRetries = opts.parseRetries ?? DEFAULT_PARSE_RETRIES;
  const clock = services.clock ?? systemClock;
  const startedAt = clock.now();
  // The budget also stops a generation or simulation in progress, not only the next round.
  const run = runSignal(services.signal, opts.budgetMs, startedAt, clock);
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
    if (from.report.status === 'ok' && standingVerdict(ctx, from.points, opts.requireRaw).met)
      stopReason = 'targets met';
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

    // The experts and how many candidates each round asks of them; one that cannot be opened is reported here.
    let experts: ChatBackend[] = [backend];
    let candidates = 1;
    if (stopReason === 'rounds') {
      try {
        const opened = await runExperts(services, backend, run.signal);
        experts = opened.experts;
        for (const f of opened.failures)
          log('error', `Expert ${f.expert} could not be opened: ${f.message}. The other experts go on.`);
        candidates = opts.candidates ?? (await defaultCandidates(experts, run.signal));
      } catch (err) {
        if (!(isAbortError(err) || run.signal.aborted))
          failAfterBest('error', `The experts could not be opened: ${errorMessage(err)}.`, err);
      }
      if (experts.length > 1 || candidates > 1)
        log('info', `${candidates} candidate(s) per round from ${experts.map((e) => e.label).join(', ')}.`);
    }
    let going = experts;
    const measureSlot = limiter(measureSlots(candidates));

    const first = rounds.length + 1;
    const generations = best ? opts.rounds : 1 + opts.rounds;
    for (let index = first; stopReason === 'rounds' && index < first + generations; index++) {
      const early = stopBeforeRound(run.signal, startedAt, opts, clock.now());
      if (early) {
        stopReason = early === 'cancelled' && run.budgetSpent() ? 'budget' : early;
        break;
      }
      const steering = services.steering?.take() ?? [];
      const current = best;
      const fitted = await fitPrompt(
        (detail) => buildRoundPrompt(opening, current, steering, detail, templates),
        budget,
      );
      if (!('messages' in fitted)) {
        failAfterBest(
          'context',
          `Round ${index}'s prompt needs ${fitted.tokens} tokens even with the feedback and the replayed testbench shortened, but ${budget?.promptTokens} fit the ${budget?.contextTokens}-token context (${budget?.replyTokens} kept for the reply): raise --context-size (chorus.contextSize).`,
        );
        break;
      }
      if (fitted.level > 0)
        log(
          'info',
          `Round ${index}: the prompt was shortened to fit the context (${fitted.tokens} of ${budget?.promptTokens} tokens).`,
        );
      emit({ type: 'roundStart', round: index, instruction: steering.join('\n') || undefined });

      // K candidates, spread over the experts still going, written and measured side by side; the best is kept.
      const slots = Math.max(1, candidates);
      const live = slots === 1;
      const outcomes = await Promise.all(
        Array.from({ length: slots }, (_, slot) =>
          runCandidate({
            ctx,
            services: runServices,
            expert: expertFor(going, slot),
            slot,
            round: index,
            messages: fitted.messages,
            sampling,
            seed: opts.seed !== undefined ? (ask) => candidateSeed(opts.seed as number, index, slot, ask) : undefined,
            parseRetries,
            best: { attempt: best, points: bestPoints },
            simTimeoutMs: opts.simTimeoutMs,
            stopping: () => stopBeforeRound(run.signal, startedAt, opts, clock.now()) !== null,
            measureSlot,
            emit,
            live,
            log,
          }),
        ),
      );
      for (const o of outcomes) tokensUsed += o.reply?.completionTokens ?? 0;
      if (outcomes.some((o) => o.cancelled) || run.signal.aborted) {
        stopReason = run.budgetSpent() ? 'budget' : 'cancelled';
        break;
      }
      // A full or read-only disk fails every candidate alike and is no testbench's fault: it ends the run, as
      // itself, and never becomes the model's feedback.
      const machine = outcomes.map((o) => machineFault(o.failure?.error)).find((e) => e !== undefined);
      if (machine) throw machine;
      // An expert that failed to answer is reported and left out of later rounds while other experts go on.
      const answered = outcomes.filter((o) => o.reply && o.candidate && !o.failure);
      for (const o of outcomes) {
        if (o.failure?.stage !== 'generate') continue;
        if (going.includes(o.expert) && going.length > 1) {
          going = going.filter((e) => e !== o.expert);
          log(
            'error',
            `Expert ${o.expert.label} failed in round ${index}: ${errorMessage(o.failure.error)}. The other experts go on without it.`,
          );
        } else if (answered.length)
          log('warn', `Round ${index}: a candidate from ${o.expert.label} failed: ${errorMessage(o.failure.error)}.`);
      }
      if (!answered.length) {
        const failed = outcomes.find((o) => o.failure);
        const what =
          failed?.failure?.stage === 'measure'
            ? `Measuring round ${index}'s testbench failed`
            : `The model failed in round ${index}`;
        failAfterBest('error', `${what}: ${errorMessage(failed?.failure?.error)}.`, failed?.failure?.error);
        break;
      }

      const attempts = answered.map((o) => {
        const candidate = o.candidate as Candidate;
        const report = o.measured?.report ?? null;
        const feedback = roundFeedback(candidate, report, best, ctx.targets, ctx.displayName, templates);
        const attempt: Attempt = {
          reply: cleanReply(candidate, (o.reply as Reply).text),
          feedback,
          testbench: candidate.testbench,
          filename: candidate.filename,
          report,
          expert: o.expert.label,
        };
        return { outcome: o, attempt };
      });
      // The kept one: the best by the loop's ranking, the earlier candidate on a tie.
      const chosen = attempts.reduce((a, b) => (isBetter(b.attempt, a.attempt, ctx.targets) ? b : a));
      const { attempt } = chosen;
      const report = attempt.report;
      const chosenReply = chosen.outcome.reply as Reply;
      const chosenCandidate = chosen.outcome.candidate as Candidate;
      if (!live) {
        emit({
          type: 'parsed',
          round: index,
          outcome: chosenCandidate.outcome,
          testbench: chosenCandidate.testbench ?? undefined,
          patch: chosenCandidate.parsed.type === 'patch',
        });
        if (chosen.outcome.measured) emitMeasured(emit, index, chosen.outcome.measured);
      }
      const runs = slots > 1 || experts.length > 1 ? candidateRuns(outcomes, chosen.outcome) : undefined;
      if (runs) emit({ type: 'candidates', round: index, candidates: runs });
      emit({ type: 'feedback', round: index, text: attempt.feedback(fitted.detail).content });

      const before = best?.report?.status === 'ok' ? best.report.coverage : emptySummary();
      if (keepsNewer(attempt, best, ctx.targets)) {
        best = attempt;
        bestPoints = chosen.outcome.measured?.points ?? [];
      }
      const spent = outcomes.reduce(
        (n, o) => ({
          tokens: n.tokens + (o.reply?.completionTokens ?? 0),
          prompt: n.prompt + (o.reply?.evaluatedPromptTokens ?? 0),
          ms: Math.max(n.ms, o.reply?.ms ?? 0),
        }),
        { tokens: 0, prompt: 0, ms: 0 },
      );
      const summary: RoundSummary = {
        ...roundSummary(
          index,
          { ...chosenReply, ms: spent.ms, completionTokens: spent.tokens, evaluatedPromptTokens: spent.prompt },
          chosenCandidate,
          report,
        ),
        ...(runs ? { expert: attempt.expert, candidateRuns: runs.map(({ testbench: _testbench, ...r }) => r) } : {}),
      };
      rounds.push(summary);
      emit({ type: 'roundEnd', round: summary });

      const improved = best === attempt && report?.status === 'ok' && coveredGain(before, report.coverage) > 0;
      stall = improved ? 0 : stall + 1;
      const met = standingVerdict(ctx, best ? bestPoints : [], opts.requireRaw).met;
      const stop = stopAfterRound({ best: best ?? attempt, stall, tokensUsed }, opts, met);
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
      ...(best?.expert ? { expert: best.expert } : {}),
    },
    report: finalReport,
    points: bestPoints,
    filename: best?.filename ?? `tb_${ctx.top.name}.sv`,
  };
}
