/** Terminal rendering of coverage: a per-kind table and the holes with their source lines. */
import pc from 'picocolors';
import { REPORTED_KINDS, type CoverageSummary, type Hole, type Targets } from '../protocol';

export function pctColour(pct: number, target?: number): string {
  const text = `${pct.toFixed(1)}%`;
  if (target !== undefined) return pct + 1e-9 >= target ? pc.green(text) : pc.red(text);
  return pct >= 100 ? pc.green(text) : pct >= 80 ? pc.yellow(text) : pc.red(text);
}

export function coverageTable(s: CoverageSummary, targets: Targets = {}): string {
  const rows = REPORTED_KINDS.map((k) => {
    const t = targets[k];
    const cells = [k.padEnd(8), `${s[k].covered}/${s[k].total}`.padStart(11), pctColour(s[k].pct, t).padStart(8)];
    if (t !== undefined) cells.push(pc.dim(`target ${t}%`));
    return `  ${cells.join('  ')}`;
  });
  return [pc.bold(`  ${'kind'.padEnd(8)}  ${'covered'.padStart(11)}  ${'percent'.padStart(7)}`), ...rows].join('\n');
}

export function holesList(holes: Hole[], limit = 30): string {
  if (!holes.length) return pc.green('  No holes.');
  const lines = holes.slice(0, limit).map((h) => {
    const where = pc.cyan(`${h.file}:${h.line}`);
    const tag = h.unreachable ? pc.dim(` (likely unreachable: ${h.unreachable})`) : '';
    const src = h.source ? `\n      ${pc.dim(h.source)}` : '';
    return `  ${where} ${pc.yellow(h.kind)} ${h.detail}${tag}${src}`;
  });
  if (holes.length > limit) lines.push(pc.dim(`  … and ${holes.length - limit} more`));
  return lines.join('\n');
}
