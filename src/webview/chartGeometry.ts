/** Where the coverage-over-rounds chart puts its points, axes and labels. Pure numbers; the view draws them. */
import {
  REPORTED_KINDS,
  shownKinds,
  totalsOf,
  type CoverageSummary,
  type ReportedKind,
  type Targets,
} from '../protocol';

export interface ChartBox {
  width: number;
  height: number;
  /** Space for the y labels on the left, the x labels below, and a little room above and right. */
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export const DEFAULT_BOX: ChartBox = { width: 320, height: 168, left: 50, right: 14, top: 12, bottom: 36 };

export interface ChartPoint {
  kind: ReportedKind;
  round: number;
  pct: number;
  x: number;
  y: number;
}

export interface ChartTick {
  value: number;
  label: string;
  /** x for round ticks, y for percent ticks. */
  at: number;
}

export interface ChartGeometry {
  box: ChartBox;
  series: { kind: ReportedKind; points: ChartPoint[] }[];
  xTicks: ChartTick[];
  yTicks: ChartTick[];
  /** Dashed lines at the targeted percentages of the reported kinds. */
  targets: { kind: ReportedKind; pct: number; y: number }[];
  plot: { x0: number; x1: number; y0: number; y1: number };
}

/** One coverage per measured round, in round order. */
export function chartGeometry(
  rounds: { round: number; coverage: CoverageSummary }[],
  targets: Targets,
  box = DEFAULT_BOX,
): ChartGeometry {
  const x0 = box.left;
  const x1 = box.width - box.right;
  const y0 = box.height - box.bottom;
  const y1 = box.top;
  const first = rounds[0]?.round ?? 1;
  const last = rounds.at(-1)?.round ?? 1;
  const span = Math.max(1, last - first);
  // A single round sits in the middle rather than on the axis.
  const xOf = (round: number) => (last === first ? (x0 + x1) / 2 : x0 + ((round - first) / span) * (x1 - x0));
  const yOf = (pct: number) => y0 - (Math.min(100, Math.max(0, pct)) / 100) * (y0 - y1);
  // A kind is drawn when any round has points of it (line, branch and toggle always).
  const drawn = REPORTED_KINDS.filter((k) => rounds.some(({ coverage }) => shownKinds(coverage).includes(k)));
  const series = drawn.map((kind) => ({
    kind,
    points: rounds.map(({ round, coverage }) => ({
      kind,
      round,
      pct: totalsOf(coverage, kind).pct,
      x: xOf(round),
      y: yOf(totalsOf(coverage, kind).pct),
    })),
  }));
  // Label every round while they fit, else about eight evenly.
  const step = Math.max(1, Math.ceil((last - first + 1) / 8));
  const xTicks: ChartTick[] = [];
  for (let r = first; r <= last; r += step) xTicks.push({ value: r, label: String(r), at: xOf(r) });
  const yTicks = [0, 25, 50, 75, 100].map((v) => ({ value: v, label: `${v}%`, at: yOf(v) }));
  const targetLines = REPORTED_KINDS.filter((k) => targets[k] !== undefined).map((kind) => ({
    kind,
    pct: targets[kind] as number,
    y: yOf(targets[kind] as number),
  }));
  return { box, series, xTicks, yTicks, targets: targetLines, plot: { x0, x1, y0, y1 } };
}
