/** A sampling seed per round from the run's `--seed`: the same run samples the same, each round differently. */
export function roundSeed(runSeed: number, round: number): number {
  // splitmix32 over (seed, round): neighbouring inputs give unrelated seeds.
  let z = (Math.imul(runSeed >>> 0, 0x9e3779b1) + Math.imul(round, 0x85ebca6b)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad) >>> 0;
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97) >>> 0;
  return (z ^ (z >>> 15)) >>> 1;
}
