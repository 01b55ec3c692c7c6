/** The three stages a round goes through, as the card's chips show them. */
import { compileState, simulationState, type StageState } from './format';
import type { RoundModel } from './model';

export type ChipState = StageState | 'active';

export interface RoundStages {
  parse: ChipState;
  compile: ChipState;
  simulation: ChipState;
}

/**
 * `live`: the round is the one in progress. A stage that has not reported is `active` when it is the next to run,
 * `pending` after it, and `skipped` once the round is over or an earlier stage failed.
 */
export function roundStages(round: RoundModel, live: boolean): RoundStages {
  const open = (earlier: ChipState): ChipState => {
    if (earlier === 'failed' || earlier === 'skipped') return 'skipped';
    if (!live) return 'skipped';
    return earlier === 'ok' || earlier === 'warning' ? 'active' : 'pending';
  };
  const parse: ChipState = round.parse
    ? round.testbench !== undefined
      ? 'ok'
      : 'failed'
    : live
      ? 'active'
      : 'skipped';
  const compile: ChipState = round.build ? compileState(round.build.status) : open(parse);
  let simulation: ChipState = round.simStatus ? simulationState(round.simStatus) : open(compile);
  if (compile === 'failed') simulation = 'skipped';
  return { parse, compile, simulation };
}
