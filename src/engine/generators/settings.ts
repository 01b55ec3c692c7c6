/** The request's knobs resolved once, with the defaults every generator shares. */
import type { GenerateRequest } from '../api';
import type { RunSettings } from './types';

/** Refinement rounds after the first generation (LLM4Cov's `react_rounds`, 3 in the paper): 1 + 3 generations. */
export const DEFAULT_ROUNDS = 3;
export const DEFAULT_STALL_ROUNDS = 2;
const DEFAULT_SIM_TIMEOUT_SECONDS = 30;

export function runSettings(req: GenerateRequest): RunSettings {
  return {
    rounds: req.rounds ?? DEFAULT_ROUNDS,
    stallRounds: req.stallRounds ?? DEFAULT_STALL_ROUNDS,
    seed: req.seed ?? 1,
    budgetMs: req.budgetSeconds !== undefined ? req.budgetSeconds * 1000 : undefined,
    simTimeoutMs: (req.simTimeoutSeconds ?? DEFAULT_SIM_TIMEOUT_SECONDS) * 1000,
    formal: req.formal ?? true,
    // The model's knobs only when given, so a settings value shows what the request asked for.
    ...(req.seed !== undefined ? { samplingSeed: req.seed } : {}),
    ...(req.instruction ? { instruction: req.instruction } : {}),
    ...(req.promptTemplates ? { promptTemplates: req.promptTemplates } : {}),
    ...(req.parseRetries !== undefined ? { parseRetries: req.parseRetries } : {}),
    ...(req.contextSize !== undefined ? { contextSize: req.contextSize } : {}),
    ...(req.candidates !== undefined ? { candidates: req.candidates } : {}),
    ...(req.requireRaw ? { requireRaw: true } : {}),
    ...(req.waivers ? { waivers: { file: req.waivers.file, force: Boolean(req.waivers.force) } } : {}),
    ...(req.sampling ? { sampling: req.sampling } : {}),
  };
}
