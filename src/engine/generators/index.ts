/** Every generator by engine name: the engine's one place that knows which engines exist. */
import { ChorusError, type EngineName } from '../../protocol';
import { hybridGenerator } from './hybrid';
import { llmGenerator } from './llm';
import { randomGenerator } from './random';
import type { Generator, RunSettings } from './types';

export type { Generator, Outcome, RunSettings } from './types';
export { runSettings, DEFAULT_ROUNDS, DEFAULT_STALL_ROUNDS } from './settings';

const GENERATORS: Record<EngineName, (settings: RunSettings) => Generator> = {
  random: randomGenerator,
  llm: (settings) => llmGenerator(settings),
  hybrid: hybridGenerator,
};

export function generatorFor(engine: EngineName, settings: RunSettings): Generator {
  const make = Object.hasOwn(GENERATORS, engine) ? GENERATORS[engine] : undefined;
  if (!make) throw new ChorusError('bad_input', `Unknown engine '${String(engine)}': use random, llm or hybrid.`);
  return make(settings);
}
