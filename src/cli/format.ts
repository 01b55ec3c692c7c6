/** Terminal rendering of coverage: a per-kind table and the holes with their source lines. */
import { resolve } from 'node:path';
import pc from 'picocolors';
import {
  shownKinds,
  totalsOf,
  type CoverageSummary,
  type GenerateResult,
  type Hole,
  type RegressionReport,
  type Targets,
  type Verdict,
  type WaiverReport,
} from '../protocol';

/** How output names a file (results carry absolute paths). */
export type FileNamer = (file: string) => string;

/**
 * Names files as the user typed them on the command line (`rtl/fifo.sv`); a file the user did not name by
 * `fallback` (default: its path).
 */
export function givenNames(given: string[], fallback: FileNamer = (f) => f): FileNamer {
  const byPath = new Map(given.map((g) => [resolve(g), g]));
  return (file) => byPath.get(file) ?? fallback(file);
}

/** Holes with their files named for output. */
export function namedHoles(holes: Hole[], name: FileNamer): Hole[] {
  return holes.map((h) => ({ ...h, file: name(h.file) }));
}

export function pctColour(pct: number, target?: number): string {
  const text = `${pct.toFixed(1)}%`;
  if (target !== undefined) return pct + 1e-9 >= target ? pc.green(text) : pc.red(text);
  return pct >= 100 ? pc.green(text) : pct >= 80 ? pc.yellow(text) : pc.red(text);
}

/**
 * Per kind: covered of total and percent; with a verdict that excludes points, the signoff percent too (excluded
 * points left out of the total), which is what a target is judged on then.
 */
export function coverageTable(s: CoverageSummary, targets: Targets = {}, verdict?: Verdict): string {
  const kinds = shownKinds(s);
  const width = Math.max(8, ...kinds.map((k) => k.length));
  const signoff = verdict?.counting === 'signoff' ? verdict : undefined;
  const rows = kinds.map((k) => {
    const t = targets[k];
    const c = totalsOf(s, k);
    const e = signoff?.excluded[k];
    const judged = e ? totalsOf(signoff.coverage, k) : undefined;
    const cells = [
      k.padEnd(width),
      `${c.covered}/${c.total}`.padStart(11),
      pctColour(c.pct, judged ? undefined : t).padStart(8),
    ];
    if (e && judged) {
      const parts = [e.proven ? `${e.proven} proven` : '', e.waived ? `${e.waived} waived` : ''].filter(Boolean);
      cells.push(`${pctColour(judged.pct, t)} signoff (${parts.join(', ')} excluded)`);
    }
    if (t !== undefined) cells.push(pc.dim(`target ${t}%`));
    return `  ${cells.join('  ')}`;
  });
  return [pc.bold(`  ${'kind'.padEnd(width)}  ${'covered'.padStart(11)}  ${'percent'.padStart(7)}`), ...rows].join(
    '\n',
  );
}

/** Toggle holes of one signal collapse into one line: `mem: 17 bit(s) never toggled (mem[1][6], …)`. */
function groupToggles(holes: Hole[]): Hole[] {
  const out: Hole[] = [];
  const groups = new Map<string, Hole[]>();
  for (const h of holes) {
    if (h.kind !== 'toggle') {
      out.push(h);
      continue;
    }
    const signal = /^([A-Za-z_][\w$]*)/.exec(h.detail)?.[1] ?? h.detail;
    const key = `${h.file}:${h.line}:${signal}`;
    const g = groups.get(key);
    if (g) g.push(h);
    else {
      groups.set(key, [h]);
      out.push(h);
    }
  }
  return out.map((h) => {
    if (h.kind !== 'toggle') return h;
    const signal = /^([A-Za-z_][\w$]*)/.exec(h.detail)?.[1] ?? h.detail;
    const g = groups.get(`${h.file}:${h.line}:${signal}`) ?? [h];
    if (g.length === 1) return h;
    const bits = g.map((x) => /^(\S+)/.exec(x.detail)?.[1] ?? x.detail);
    return {
      ...h,
      detail: `${signal}: ${g.length} bit(s) never toggled (${bits.slice(0, 4).join(', ')}${g.length > 4 ? ', …' : ''})`,
    };
  });
}

export function holesList(holes: Hole[], limit = 30): string {
  if (!holes.length) return pc.green('  No holes.');
  const grouped = groupToggles(holes);
  const lines = grouped.slice(0, limit).map((h) => {
    const where = pc.cyan(`${h.file}:${h.line}`);
    const tag = h.unreachable
      ? pc.dim(` (proven unreachable: ${h.unreachable})`)
      : h.formal
        ? pc.dim(` (formal: ${h.formal})`)
        : '';
    const src = h.source ? `\n      ${pc.dim(h.source)}` : '';
    return `  ${where} ${pc.yellow(h.kind)} ${h.detail}${tag}${src}`;
  });
  if (grouped.length > limit) lines.push(pc.dim(`  … and ${grouped.length - limit} more`));
  return lines.join('\n');
}

/**
 * Closure in one line: "Closed" when every line and branch point is covered or proven unreachable, else how many
 * are neither; then what the formal engine did, when it ran.
 */
/**
 * The verdict in one line: `Targets met.`, or the targets missed, each with what it reached
 * (`Targets not met: branch 50% of 100%.`): a kind that met its target is not listed.
 */
export function verdictLine(v: Verdict): string {
  const how = v.counting === 'raw' ? ' (raw coverage: --require-raw)' : '';
  if (v.met) return pc.green(`Targets met${how}.`);
  if (!v.unmet.length) return pc.red('Targets not met: the testbench did not build and run.');
  return pc.red(`Targets not met${how}: ${v.unmet.map((u) => `${u.metric} ${u.pct}% of ${u.target}%`).join(', ')}.`);
}

/** What `--waivers` did, then each stale entry on its own line (`file:line`), for a reviewer. */
export function waiverLine(w: WaiverReport, name: FileNamer): string {
  const parts = [
    `${w.entries} entr${w.entries === 1 ? 'y' : 'ies'}`,
    `${w.applied} applied`,
    `${w.added} added from proofs`,
    ...(w.moved ? [`${w.moved} moved`] : []),
    ...(w.reproven ? [`${w.reproven} re-proven`] : []),
    `${w.stale.length} stale`,
  ];
  const head = `Waivers ${name(w.file)}: ${parts.join(', ')}.`;
  const stale = w.stale.map(
    (s) => `  ${name(s.file)}:${s.line}: ${pc.yellow('stale')} ${s.category} ${s.kind}: ${s.why}`,
  );
  return [w.stale.length ? pc.yellow(head) : head, ...stale].join('\n');
}

/** A run on top of the user's regression: the regression, what CHORUS's testbench adds, and the merge. */
export function regressionLines(r: RegressionReport, name: FileNamer): string {
  const added =
    shownKinds(r.added)
      .filter((k) => totalsOf(r.added, k).covered > 0)
      .map((k) => `${k} +${totalsOf(r.added, k).covered}`)
      .join(', ') || 'nothing the regression left';
  const kinds = (c: CoverageSummary) =>
    shownKinds(c)
      .filter((k) => totalsOf(c, k).total > 0)
      .map((k) => `${k} ${totalsOf(c, k).pct}% (${totalsOf(c, k).covered}/${totalsOf(c, k).total})`)
      .join(', ');
  return [
    pc.bold(`On top of the regression (${r.files.map(name).join(', ')}):`),
    `  regression: ${kinds(r.coverage)}`,
    `  CHORUS's testbench alone: ${kinds(r.testbench)}`,
    `  added by CHORUS's testbench: ${added}`,
    '  merged: the coverage above; add the testbench to your regression to keep it.',
  ].join('\n');
}

export function closureLine(r: Pick<GenerateResult, 'closed' | 'holes' | 'formal' | 'targets'>): string {
  // FSM points count toward closure when the run targets them (as the engine's `closed` reads them).
  const fsm = r.targets.fsm_state !== undefined || r.targets.fsm_arc !== undefined;
  const counted = (k: string) =>
    k === 'line' || k === 'branch' || (fsm && r.targets[k as 'fsm_state' | 'fsm_arc'] !== undefined);
  const what = fsm ? 'line, branch and FSM' : 'line and branch';
  const structural = r.holes.filter((h) => counted(h.kind));
  const proven = structural.filter((h) => h.proof).length;
  const waived = structural.filter((h) => !h.proof && h.waiver).length;
  const open = structural.length - proven - waived;
  const excluded = [proven ? `proven unreachable (${proven})` : '', waived ? `waived (${waived})` : '']
    .filter(Boolean)
    .join(' or ');
  const head = r.closed
    ? pc.green(`Closed: every ${what} point is covered${excluded ? ` or ${excluded}` : ''}.`)
    : pc.yellow(
        `Not closed: ${open} ${fsm ? 'line/branch/FSM' : 'line/branch'} point(s) neither covered nor proven unreachable${proven ? `, ${proven} proven unreachable` : ''}${waived ? `, ${waived} waived` : ''}.`,
      );
  const f = r.formal;
  return f
    ? `${head} Formal: ${f.proven} proof(s), ${f.witnesses} witness(es), ${f.unknown} unknown; Yosys ${(f.ms / 1000).toFixed(1)} s.`
    : head;
}
