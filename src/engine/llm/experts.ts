/**
 * The experts a run's candidates come from: models, LoRA adapters on one base, endpoint models, replay
 * files. Candidates are spread over them round-robin; an expert that fails is reported and left out, the others go on.
 */
import { availableParallelism } from 'node:os';
import type { ChatBackend } from '../../llm';
import { ChorusError } from '../../protocol';
import type { EngineServices } from '../api';
import { roundSeed } from './seed';

/** Candidates per round on a local GPU, where they generate side by side in one batch. */
export const GPU_CANDIDATES = 4;

export interface ExpertFailure {
  expert: string;
  message: string;
}

/** The run's experts: the caller's, the provider's (`--expert`, `chorus.experts`), else the one backend. */
export async function runExperts(
  services: EngineServices,
  primary: ChatBackend,
  signal: AbortSignal,
): Promise<{ experts: ChatBackend[]; failures: ExpertFailure[] }> {
  if (services.experts?.length) return { experts: services.experts, failures: [] };
  const opened = await services.models?.experts?.(signal);
  if (!opened) return { experts: [primary], failures: [] };
  if (!opened.experts.length && opened.failures.length) {
    throw new ChorusError(
      'bad_input',
      `No expert could be opened: ${opened.failures.map((f) => `${f.expert}: ${f.message}`).join('; ')}. Fix or remove them (--expert, chorus.experts).`,
    );
  }
  return { experts: opened.experts.length ? opened.experts : [primary], failures: opened.failures };
}

/**
 * The default count: one per expert when there are several. Else 1, except on a local GPU (GPU_CANDIDATES): there
 * candidates generate side by side for little more than one costs, while on a CPU they take turns on the cores, and
 * at an endpoint each one is a paid or rate-limited request (`--candidates 4` asks for more there).
 */
export async function defaultCandidates(experts: ChatBackend[], signal: AbortSignal): Promise<number> {
  if (experts.length > 1) return experts.length;
  const only = experts[0];
  if (only.kind !== 'local') return 1;
  const compute = await only.compute?.(signal).catch(() => undefined);
  return compute && compute !== 'cpu' ? GPU_CANDIDATES : 1;
}

/** Which expert writes candidate `slot` of a round: round-robin over the experts still going. */
export function expertFor<T>(experts: readonly T[], slot: number): T {
  return experts[slot % experts.length];
}

/**
 * The sampling seed of a candidate's `ask`-th try in a round. Candidate 0 samples as a one-candidate run does, so
 * `--candidates 1` repeats earlier runs; the others get seeds of their own.
 */
export function candidateSeed(runSeed: number, round: number, slot: number, ask: number): number {
  const base = slot === 0 ? roundSeed(runSeed, round) : roundSeed(roundSeed(runSeed, round), 0x10000 + slot);
  return ask ? roundSeed(base, ask) : base;
}

/** Candidates measured at once: the machine's cores bound the builds and simulations in flight. */
export function measureSlots(candidates: number): number {
  return Math.max(1, Math.min(candidates, availableParallelism()));
}

/** A small counting semaphore: at most `limit` tasks run at a time. */
export function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((r) => waiting.push(r));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
