/**
 * The search's strategies and how it switches between them: each strategy makes candidates its own way, and the
 * next one is drawn in proportion to what each found recently (new points per run), with a floor so none is ever
 * abandoned. When progress stops, the strategies that still find something take over: another way to make
 * stimulus instead of a stop with budget left. A run's cost is counted in cycles plus a fixed share per run (a
 * run's start, its coverage file), not in time, so a seed gives the same sequence of choices on any machine.
 */
import type { Rng } from './rng';

export type StrategyName = 'plain' | 'fresh' | 'mutate' | 'restart' | 'narrow' | 'single' | 'hold' | 'dictionary';

/** Recent yield decays by this factor per run of the strategy, so a strategy that dried up loses its share. */
const DECAY = 0.9;
/** Every strategy keeps at least this weight (an exploration floor). */
const FLOOR = 0.04;
/** A run's fixed cost, in cycles: starting the simulation and writing and reading its coverage. */
const RUN_COST_CYCLES = 5_000;

interface Arm {
  name: StrategyName;
  /** Prior weight: how often it is drawn before it has found anything. */
  prior: number;
  /** Decayed new points per unit of cost (one unit: a run's fixed cost). */
  yield: number;
  runs: number;
}

export class Strategies {
  private readonly arms: Arm[];

  /**
   * `hasReset` enables restarts; `clocked` enables holds (a combinational design has nothing to hold for);
   * `dictionary` the design dictionary's stimulus;
   * `hasKept` is asked per draw, since mutation, restarts and holds need kept candidates.
   */
  constructor(
    private readonly rng: Rng,
    options: { hasReset: boolean; clocked: boolean; dictionary: boolean },
  ) {
    // Plain random first among equals: it is the baseline every run should at least match.
    const arms: [StrategyName, number][] = [
      ['plain', 1.5],
      ['mutate', 1.5],
      ['fresh', 0.8],
      ['narrow', 0.3],
      ['single', 0.3],
    ];
    if (options.hasReset && options.clocked) arms.push(['restart', 0.5]);
    if (options.clocked) arms.push(['hold', 0.2]);
    if (options.dictionary) arms.push(['dictionary', 1.2]);
    this.arms = arms.map(([name, prior]) => ({ name, prior, yield: 0, runs: 0 }));
  }

  private weight(a: Arm): number {
    return Math.max(FLOOR, a.prior * (0.25 + a.yield));
  }

  /** The next strategy; only fresh, plain, narrow and single until something is kept. */
  pick(hasKept: boolean): StrategyName {
    const usable = this.arms.filter(
      (a) => hasKept || !(a.name === 'mutate' || a.name === 'restart' || a.name === 'hold'),
    );
    let total = 0;
    for (const a of usable) total += this.weight(a);
    let r = (this.rng.u32() / 4294967296) * total;
    for (const a of usable) {
      r -= this.weight(a);
      if (r < 0) return a.name;
    }
    return usable[usable.length - 1].name;
  }

  /** Credits a strategy's run of `cycles` cycles with the new points it found. */
  credit(name: StrategyName, newPoints: number, cycles: number): void {
    const a = this.arms.find((x) => x.name === name);
    if (!a) return;
    a.runs++;
    const cost = 1 + cycles / RUN_COST_CYCLES;
    a.yield = DECAY * a.yield + (1 - DECAY) * (Math.min(newPoints, 20) / cost);
  }

  /** Runs and recent yield per strategy, for the debug log. */
  describe(): string {
    return this.arms.map((a) => `${a.name} ${a.runs} (${a.yield.toFixed(2)})`).join(', ');
  }
}
