/**
 * The closure loop with a model: prompt → reply → parse/patch → sandbox check, build, simulate → feedback, round
 * after round. Markov context: each round sees the opening messages, the best reply so far and its feedback only.
 */
import { basename } from 'node:path';
import { lineCoverage } from '../../sim';
import {
  ChorusError,
  isAbortError,
  type ChatMessage,
  type CoveragePoint,
  type CoverageReport,
  type GenerateResult,
  type LoopEvent,
  type RoundSummary,
} from '../../protocol';
import type { EngineServices } from '../api';
import type { Emit } from '../channel';
import type { RunContext } from '../context';
import { evaluateTestbench, instantiationProblem } from '../evaluate';
import { emptySummary, gain, meetsTargets, overallPct } from '../targets';
import { edaBullets, nextInstruction } from './feedback';
import { applyPatch } from './patch';
import { asFileReply, buildFollowupMessages, buildOpeningMessages, type Bullets } from './prompt';
import { parseReply } from './reply';

export interface LlmLoopOptions {
  rounds: number;
  /** Stop after this many rounds in a row without a coverage gain. */
  stallRounds: number;
  /** Wall-clock budget for the whole loop, in ms. */
  budgetMs?: number;
  /** Generated-token budget for the whole loop. */
  tokenBudget?: number;
  simTimeoutMs?: number;
  /** A testbench to start from (hybrid engine), with its measured report. */
  seed?: { testbench: string; report: CoverageReport; points: CoveragePoint[]; filename: string };
  engineName: 'llm' | 'hybrid';
  /** Rounds already reported by an earlier phase (hybrid), so indices continue. */
  priorRounds?: RoundSummary[];
  sampling?: { temperature?: number; topP?: number; maxTokens?: number };
}

interface Attempt {
  reply: string;
  followups: ChatMessage[];
  testbench: string | null;
  filename: string;
  report: CoverageReport | null;
}

/** Best = runs > has coverage > targets met > coverage. */
function rank(a: Attempt, ctx: RunContext): number[] {
  const r = a.report;
  const ran = r?.status === 'ok' ? 1 : 0;
  const hasCov = ran && r && (r.coverage.line.total + r.coverage.branch.total + r.coverage.toggle.total) > 0 ? 1 : 0;
  const met = hasCov && r && meetsTargets(r.coverage, ctx.targets) ? 1 : 0;
  return [ran, hasCov, met, r && hasCov ? overallPct(r.coverage) : 0];
}

function better(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return false;
}

function reward(r: CoverageReport | null): number {
  if (!r || r.status !== 'ok') return 0;
  return Math.round((1 + overallPct(r.coverage) / 100) * 1000) / 1000;
}

function safeFilename(name: string | null, top: string): string {
  const base = name ? basename(name.trim()) : '';
  return /^[A-Za-z0-9_.-]+\.(sv|v)$/.test(base) ? base : `tb_${top}.sv`;
}

function bulletsLine(b: Bullets): string {
  return Object.entries(b)
    .filter(([k]) => k !== 'uncovered' && k !== 'log')
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}

function failedReport(status: CoverageReport['status'], file: string, message: string): CoverageReport {
  return {
    status,
    coverage: emptySummary(),
    instances: {},
    holes: [],
    diagnostics: [{ file, line: 1, column: 0, severity: 'error', message }],
    ms: { build: 0, sim: 0 },
  };
}

export async function runLlmLoop(
  ctx: RunContext,
  services: EngineServices,
  opts: LlmLoopOptions,
  emit: Emit<LoopEvent>,
): Promise<GenerateResult> {
  const backend = services.backend;
  if (!backend) throw new ChorusError('bad_input', 'No model configured: pass --model <path|id|replay:file> or --endpoint <url>, or use --engine random.');
  const opening = buildOpeningMessages({ rtl: ctx.rtl, specs: ctx.specs, top: ctx.top.name, instance: ctx.instance });
  const rounds: RoundSummary[] = [...(opts.priorRounds ?? [])];
  const started = Date.now();
  let best: Attempt | null = null;
  let bestPoints: CoveragePoint[] = [];
  let tokensUsed = 0;
  let stall = 0;
  let stopReason = 'rounds';

  if (opts.seed) {
    const s = opts.seed;
    best = {
      reply: asFileReply(s.filename, s.testbench),
      testbench: s.testbench,
      filename: s.filename,
      report: s.report,
      followups: buildFollowupMessages({
        parse: { status: 'success', type: 'file', filename: s.filename },
        eda: edaBullets(s.report, ctx.targets),
        instruction: nextInstruction(s.report, []),
      }),
    };
    bestPoints = s.points;
    if (meetsTargets(s.report.coverage, ctx.targets)) stopReason = 'targets met';
  }

  const first = rounds.length + 1;
  for (let index = first; stopReason !== 'targets met' && index < first + opts.rounds; index++) {
    if (services.signal.aborted) {
      stopReason = 'cancelled';
      break;
    }
    if (opts.budgetMs !== undefined && Date.now() - started > opts.budgetMs) {
      stopReason = 'budget';
      break;
    }
    const steering = services.steering?.take() ?? [];
    const messages: ChatMessage[] = [...opening];
    if (best) messages.push({ role: 'assistant', content: best.reply }, ...best.followups);
    if (steering.length) {
      // The best attempt's instruction already sits last; the user's words ride on a fresh instruction message.
      messages.push({ role: 'user', content: `Instruction for next round:\n${nextInstruction(best?.report ?? null, steering)}` });
    }
    emit({ type: 'roundStart', round: index, instruction: steering.join('\n') || undefined });

    const tGen = Date.now();
    let replyText: string;
    let usage = { completionTokens: 0, evaluatedPromptTokens: 0 };
    try {
      const result = await backend.chat(messages, {
        ...opts.sampling,
        signal: services.signal,
        onToken: (text) => emit({ type: 'tokens', round: index, text }),
      });
      replyText = result.text;
      usage = result.usage;
    } catch (err) {
      if (isAbortError(err) || services.signal.aborted) {
        stopReason = 'cancelled';
        break;
      }
      throw err;
    }
    const generateMs = Date.now() - tGen;
    tokensUsed += usage.completionTokens;

    // Parse, then patch when the reply is hunks.
    const parsed = parseReply(replyText);
    let testbench: string | null = null;
    let filename = best?.filename ?? `tb_${ctx.top.name}.sv`;
    let parseBullets: Bullets;
    let applyBullets: Bullets | undefined;
    let outcome: string;
    if (parsed.type === 'file') {
      testbench = parsed.code;
      filename = safeFilename(parsed.filename, ctx.top.name);
      parseBullets = { status: 'success', type: 'file', filename, ...(parsed.notes.length ? { notes: parsed.notes.join('; ') } : {}) };
      outcome = `parsed a whole testbench (${filename})`;
    } else if (parsed.type === 'patch') {
      parseBullets = { status: 'success', type: 'patch', hunks: String(parsed.hunks.length) };
      const base = best?.testbench;
      if (!base) {
        applyBullets = { status: 'failed', reason: 'there is no current testbench to patch; send the whole file' };
        outcome = 'patch with no testbench to apply it to';
      } else {
        const applied = applyPatch(base, parsed.hunks);
        const failed = applied.failures.map((f) => `hunk ${f.hunk}: ${f.reason}`).join('; ');
        applyBullets = {
          status: applied.failures.length === 0 ? 'success' : applied.applied ? 'partial' : 'failed',
          applied: `${applied.applied}/${parsed.hunks.length} hunks`,
          ...(failed ? { failed } : {}),
        };
        if (applied.applied) testbench = applied.content;
        outcome = `patch: ${applied.applied}/${parsed.hunks.length} hunks applied${failed ? ` (${failed})` : ''}`;
      }
    } else if (parsed.type === 'no_changes') {
      parseBullets = { status: 'success', type: 'no_changes' };
      testbench = best?.testbench ?? null;
      outcome = 'NO_CHANGES';
    } else {
      parseBullets = { status: 'failed', type: 'file', reason: parsed.reason };
      outcome = `no testbench: ${parsed.reason}`;
    }
    emit({ type: 'parsed', round: index, outcome, testbench: testbench ?? undefined, patch: parsed.type === 'patch' });

    // Measure.
    let report: CoverageReport | null = null;
    let points: CoveragePoint[] = [];
    if (testbench !== null) {
      const problem = instantiationProblem(testbench, ctx.top.name, ctx.instance);
      if (problem) {
        report = failedReport('compile_error', filename, problem);
      } else if (parsed.type === 'no_changes' && best?.report) {
        report = best.report;
        points = bestPoints;
      } else {
        try {
          const ev = await evaluateTestbench(ctx, testbench, {
            filename,
            sim: { verilatorPath: services.verilatorPath, cacheDir: services.cacheDir, logger: services.logger, signal: services.signal, workspaceRoot: ctx.workDir },
            timeoutMs: opts.simTimeoutMs,
          });
          report = ev.report;
          points = ev.points;
        } catch (err) {
          if (isAbortError(err) || services.signal.aborted) {
            stopReason = 'cancelled';
            break;
          }
          throw err;
        }
      }
      emit({ type: 'build', round: index, status: report.status, ms: report.ms.build, diagnostics: report.diagnostics });
      emit({ type: 'coverage', round: index, coverage: report.coverage, holes: report.holes, status: report.status, lines: points.length ? lineCoverage(points) : undefined });
    }

    const eda = report ? edaBullets(report, ctx.targets) : undefined;
    const followups = buildFollowupMessages({
      parse: parseBullets,
      apply: applyBullets,
      testbench: parsed.type === 'patch' ? (testbench ?? best?.testbench ?? undefined) : undefined,
      eda,
      instruction: nextInstruction(report, []),
    });
    emit({ type: 'feedback', round: index, text: followups.map((m) => m.content).join('\n\n') });

    const attempt: Attempt = { reply: replyText, followups, testbench, filename, report };
    const before = best?.report?.status === 'ok' ? best.report.coverage : emptySummary();
    if (!best || better(rank(attempt, ctx), rank(best, ctx))) {
      best = attempt;
      bestPoints = points;
    }
    const summary: RoundSummary = {
      index,
      status: report?.status ?? 'compile_error',
      coverage: report?.coverage ?? emptySummary(),
      ms: { generate: generateMs, build: report?.ms.build ?? 0, sim: report?.ms.sim ?? 0 },
      reward: reward(report),
      tokens: usage.completionTokens,
      promptTokens: usage.evaluatedPromptTokens,
      parse: [bulletsLine(parseBullets), applyBullets ? `apply ${bulletsLine(applyBullets)}` : ''].filter(Boolean).join('; '),
    };
    rounds.push(summary);
    emit({ type: 'roundEnd', round: summary });

    const improved = best === attempt && report?.status === 'ok' && gain(before, report.coverage) > 0;
    stall = improved ? 0 : stall + 1;
    if (best.report?.status === 'ok' && meetsTargets(best.report.coverage, ctx.targets)) stopReason = 'targets met';
    else if (stall >= opts.stallRounds) stopReason = 'stalled';
    else if (opts.tokenBudget !== undefined && tokensUsed >= opts.tokenBudget) stopReason = 'budget';
    if (stopReason !== 'rounds') break;
  }
  if (services.signal.aborted) stopReason = 'cancelled';

  const finalReport = best?.report ?? null;
  const coverage = finalReport?.status === 'ok' ? finalReport.coverage : emptySummary();
  return {
    top: ctx.top.name,
    engine: opts.engineName,
    pass: finalReport?.status === 'ok' && meetsTargets(coverage, ctx.targets),
    targets: ctx.targets,
    coverage,
    holes: finalReport?.holes ?? [],
    rounds,
    testbench: best?.testbench ?? '',
    stopReason,
    diagnostics: finalReport?.diagnostics ?? [],
    lines: lineCoverage(bestPoints),
    points: bestPoints,
    model: backend.label,
  };
}
