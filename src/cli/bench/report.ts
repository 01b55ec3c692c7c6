/** The bench results as Markdown and an SVG chart (coverage per item, time breakdown). */
import type { BenchReport } from './run';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function benchSvg(r: BenchReport): string {
  const rowH = 16;
  const left = 220;
  const barW = 300;
  const timeW = 260;
  const width = left + barW + 40 + timeW + 20;
  const height = 40 + r.results.length * rowH + 30;
  const maxMs = Math.max(1, ...r.results.map((x) => x.ms.total));
  const rows = r.results.map((x, i) => {
    const y = 40 + i * rowH;
    const cov = Math.max(0, Math.min(100, x.coverage.overall));
    const g = (x.ms.generate / maxMs) * timeW;
    const b = (x.ms.build / maxMs) * timeW;
    const s = (x.ms.sim / maxMs) * timeW;
    const other = Math.max(0, (x.ms.total / maxMs) * timeW - g - b - s);
    const tx = left + barW + 40;
    return [
      `<text x="${left - 6}" y="${y + 11}" text-anchor="end" class="id">${esc(x.id.slice(0, 34))}</text>`,
      `<rect x="${left}" y="${y + 2}" width="${(cov / 100) * barW}" height="${rowH - 4}" class="${x.pass ? 'pass' : 'fail'}"><title>${esc(x.id)}: ${cov.toFixed(1)}%</title></rect>`,
      `<rect x="${tx}" y="${y + 2}" width="${g}" height="${rowH - 4}" class="gen"/>`,
      `<rect x="${tx + g}" y="${y + 2}" width="${b}" height="${rowH - 4}" class="build"/>`,
      `<rect x="${tx + g + b}" y="${y + 2}" width="${s}" height="${rowH - 4}" class="sim"/>`,
      `<rect x="${tx + g + b + s}" y="${y + 2}" width="${other}" height="${rowH - 4}" class="other"/>`,
    ].join('');
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">
<style>.id{fill:#333}.pass{fill:#2e8b57}.fail{fill:#c0392b}.gen{fill:#8e44ad}.build{fill:#2980b9}.sim{fill:#16a085}.other{fill:#bbb}.h{font-weight:bold}</style>
<text x="${left}" y="16" class="h">Overall coverage per item (green: passed)</text>
<text x="${left + barW + 40}" y="16" class="h">Time: generate / build / simulate / other</text>
<text x="${left}" y="30">0%</text><text x="${left + barW}" y="30" text-anchor="end">100%</text>
<text x="${left + barW + 40 + timeW}" y="30" text-anchor="end">${(maxMs / 1000).toFixed(1)} s</text>
${rows.join('\n')}
</svg>
`;
}

export function benchMarkdown(r: BenchReport, title: string): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const failed = r.results.filter((x) => !x.pass);
  const lines = [
    `# ${title}`,
    '',
    `Engine \`${r.engine}\`, ${r.items} item(s), ${r.samples} sample(s) each, ${(r.total_ms / 1000).toFixed(1)} s in all.`,
    '',
    '| figure | value |',
    '|---|---|',
    `| Pass@1 | ${pct(r.pass_at_1)} |`,
    `| Closed@1 (every line/branch point covered or proven unreachable) | ${pct(r.closed_at_1)} (${r.results.filter((x) => x.closed).length}/${r.results.length}) |`,
    `| formal engine | ${r.formal.proven} proof(s), ${r.formal.witnesses} witness(es), ${r.formal.unknown} unknown; Yosys ${(r.formal.ms / 1000).toFixed(1)} s |`,
    ...(r.k > 1 ? [`| Pass@${r.k} | ${pct(r.pass_at_k)} |`] : []),
    `| Cov@1 (overall, mean) | ${r.cov_at_1.toFixed(1)}% |`,
    `| compiled | ${pct(r.compile_rate)} |`,
    ...(r.tokens ? [`| tokens | ${r.tokens} (${r.tokens_per_second ?? '-'} tok/s) |`] : []),
    '',
    'Metric mapping (Verilator is not Cadence IMC; names are mapped explicitly):',
    '',
    ...Object.entries(r.mapping).map(([k, v]) => `- \`${k}\` → ${v}`),
    '',
    '![coverage and time per item](chart.svg)',
    '',
  ];
  const formal = r.results.filter((x) => x.formal);
  if (formal.length) {
    lines.push(
      `## Formal engine per item (${formal.length})`,
      '',
      '| item | closed | proofs | witnesses | unknown | line/branch points neither covered nor proven | Yosys |',
      '|---|---|---|---|---|---|---|',
    );
    for (const x of formal) {
      const f = x.formal;
      if (f)
        lines.push(
          `| ${x.id} | ${x.closed ? 'yes' : 'no'} | ${f.proven} | ${f.witnesses} | ${f.unknown} | ${x.open_points} | ${(f.ms / 1000).toFixed(1)} s |`,
        );
    }
    lines.push('');
  }
  const unclosed = r.results.filter((x) => !x.closed);
  if (unclosed.length) {
    lines.push(
      `## Items not closed (${unclosed.length})`,
      '',
      '| item | line/branch points neither covered nor proven | why |',
      '|---|---|---|',
    );
    for (const x of unclosed) {
      const why =
        x.error ??
        (x.open?.length
          ? x.open.join('; ')
          : x.formal
            ? `formal: ${x.formal.unknown} undecided`
            : 'formal engine did not run');
      lines.push(
        `| ${x.id} | ${x.error ? '-' : x.open_points} | ${why.replace(/\|/g, '\\|').replace(/\n/g, ' ').slice(0, 200)} |`,
      );
    }
    lines.push('');
  }
  if (failed.length) {
    const unreachable = failed.filter((f) => f.unreachable_only).length;
    lines.push(
      `## Items not passed (${failed.length})`,
      '',
      `${unreachable} of them miss only points proven unreachable (by analysis or the formal engine).`,
      '',
      '| item | line | branch | toggle | why |',
      '|---|---|---|---|---|',
    );
    for (const f of failed) {
      const missed = f.targets.length
        ? f.targets
            .filter((t) => !t.met)
            .map((t) => `${t.metric} ${t.value === null ? (t.note ?? 'n/a') : `${t.value.toFixed(1)}%`} < ${t.target}%`)
            .join('; ')
        : 'no targets (a real-IP item): the coverage reached is its result';
      const why = (f.unreachable_only ? 'only unreachable points left: ' : '') + (f.error ?? missed);
      lines.push(
        `| ${f.id} | ${f.coverage.line.pct}% | ${f.coverage.branch.pct}% | ${f.coverage.toggle.pct}% | ${why.replace(/\|/g, '\\|').replace(/\n/g, ' ').slice(0, 200)} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}
