/**
 * Target evaluation and the benchmark figures. Verilator's metrics are not Cadence IMC's: IMC names map to ours
 * explicitly and the report says which mapping was used.
 */
import type { FormalSummary, TargetMetric } from '../../protocol';

/** IMC metric names (and our own) → the Verilator-based metric used here. */
export const METRIC_MAP: Record<string, TargetMetric> = {
  line: 'line',
  branch: 'branch',
  toggle: 'toggle',
  overall: 'overall',
  block: 'line',
  statement: 'line',
  'overall average': 'overall',
  'overall covered': 'overall',
};

export function mapMetric(name: string): TargetMetric | null {
  return METRIC_MAP[name.trim().toLowerCase()] ?? null;
}

function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** The unbiased pass@k estimator: 1 − C(n−c, k)/C(n, k) for n samples with c passes. */
export function passAtK(n: number, c: number, k: number): number {
  if (n <= 0) return 0;
  if (k > n) k = n;
  if (n - c < k) return 1;
  return 1 - choose(n - c, k) / choose(n, k);
}

export function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

export function round4(x: number): number {
  return Math.round(x * 10000) / 10000;
}

/** The formal engine's figures summed over samples. */
export function sumFormal(xs: FormalSummary[]): FormalSummary {
  return xs.reduce(
    (a, f) => ({
      proven: a.proven + f.proven,
      witnesses: a.witnesses + f.witnesses,
      unknown: a.unknown + f.unknown,
      ms: a.ms + f.ms,
    }),
    {
      proven: 0,
      witnesses: 0,
      unknown: 0,
      ms: 0,
    },
  );
}
