/** Sampling defaults of the paper's evaluation protocol, overridable per backend and per call. */
import type { SamplingOptions } from './backend';

export const DEFAULT_SAMPLING = { temperature: 0.7, topP: 0.8, maxTokens: 16_384 } as const;

export type ResolvedSampling = Required<Pick<SamplingOptions, 'temperature' | 'topP' | 'maxTokens'>> & SamplingOptions;

/** Per-call options win over the backend's configured ones, which win over the protocol defaults. */
export function samplingDefaults(configured: SamplingOptions | undefined, call: SamplingOptions): ResolvedSampling {
  const pick = <K extends keyof SamplingOptions>(k: K) => call[k] ?? configured?.[k];
  return {
    temperature: pick('temperature') ?? DEFAULT_SAMPLING.temperature,
    topP: pick('topP') ?? DEFAULT_SAMPLING.topP,
    maxTokens: pick('maxTokens') ?? DEFAULT_SAMPLING.maxTokens,
    seed: pick('seed'),
    thinking: pick('thinking'),
  };
}
