/** The coverage-over-rounds chart: one line per kind, a point per round, axes with labels, dashed targets. */
import { totalsOf, type Targets } from '../../protocol';
import { chartGeometry, type ChartGeometry } from '../chartGeometry';
import { h, svg } from '../dom';
import { formatPct, KIND_LABEL } from '../format';
import type { RunModel } from '../model';

export function measuredRounds(run: RunModel) {
  return run.rounds.flatMap((r) => (r.coverage ? [{ round: r.index, coverage: r.coverage }] : []));
}

function draw(g: ChartGeometry, title: string, desc: string): SVGSVGElement {
  const { box, plot } = g;
  const root = svg('svg', {
    class: 'coverage-chart',
    viewBox: `0 0 ${box.width} ${box.height}`,
    role: 'img',
    'aria-labelledby': 'chart-title chart-desc',
  });
  root.append(svg('title', { id: 'chart-title' }, title), svg('desc', { id: 'chart-desc' }, desc));
  const grid = svg('g', { class: 'grid' });
  for (const t of g.yTicks) {
    grid.append(
      svg('line', { class: t.value === 0 ? 'axis' : 'gridline', x1: plot.x0, x2: plot.x1, y1: t.at, y2: t.at }),
      svg(
        'text',
        { class: 'tick y', x: plot.x0 - 6, y: t.at, 'text-anchor': 'end', 'dominant-baseline': 'middle' },
        t.label,
      ),
    );
  }
  grid.append(svg('line', { class: 'axis', x1: plot.x0, x2: plot.x0, y1: plot.y0, y2: plot.y1 }));
  for (const t of g.xTicks) {
    grid.append(
      svg('line', { class: 'axis', x1: t.at, x2: t.at, y1: plot.y0, y2: plot.y0 + 4 }),
      svg('text', { class: 'tick x', x: t.at, y: plot.y0 + 15, 'text-anchor': 'middle' }, t.label),
    );
  }
  grid.append(
    svg(
      'text',
      { class: 'axis-title', x: (plot.x0 + plot.x1) / 2, y: box.height - 3, 'text-anchor': 'middle' },
      'Round',
    ),
    svg(
      'text',
      { class: 'axis-title', x: -(plot.y0 + plot.y1) / 2, y: 9, transform: 'rotate(-90)', 'text-anchor': 'middle' },
      'Coverage',
    ),
  );
  root.append(grid);
  const targets = svg('g', { class: 'targets' });
  for (const t of g.targets) {
    targets.append(
      svg(
        'line',
        { class: `target kind-${t.kind}`, x1: plot.x0, x2: plot.x1, y1: t.y, y2: t.y },
        svg('title', {}, `${KIND_LABEL[t.kind]} target ${t.pct}%`),
      ),
    );
  }
  root.append(targets);
  for (const series of g.series) {
    const group = svg('g', { class: `series kind-${series.kind}`, 'data-kind': series.kind });
    if (series.points.length > 1) {
      group.append(
        svg('polyline', {
          class: 'trace',
          points: series.points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' '),
        }),
      );
    }
    for (const p of series.points) {
      group.append(
        svg(
          'circle',
          {
            class: 'point',
            cx: p.x.toFixed(1),
            cy: p.y.toFixed(1),
            r: 3.5,
            'data-kind': p.kind,
            'data-round': p.round,
            'data-pct': p.pct,
          },
          svg('title', {}, `Round ${p.round} · ${KIND_LABEL[p.kind]} ${formatPct(p.pct)}`),
        ),
      );
    }
    root.append(group);
  }
  return root;
}

/** The chart and its legend for a run; a short note while nothing is measured. */
export function coverageChart(run: RunModel, targets: Targets): HTMLElement {
  const rounds = measuredRounds(run);
  const last = rounds.at(-1);
  if (!last) return h('p', { class: 'empty' }, 'No coverage yet: the chart fills in as rounds finish.');
  const g = chartGeometry(rounds, targets);
  const desc = `After round ${last.round}: ${g.series.map((s) => `${s.kind} ${formatPct(totalsOf(last.coverage, s.kind).pct)}`).join(', ')}.`;
  const legend = h(
    'ul',
    { class: 'legend', 'aria-hidden': 'true' },
    ...g.series.map((s) => h('li', { class: `kind-${s.kind}` }, h('span', { class: 'swatch' }), KIND_LABEL[s.kind])),
    g.targets.length ? h('li', { class: 'target-key' }, h('span', { class: 'swatch dashed' }), 'target') : null,
  );
  return h('figure', { class: 'chart' }, draw(g, `Coverage over rounds, ${run.info.dut}`, desc), legend);
}
