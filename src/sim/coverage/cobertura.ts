/**
 * Cobertura XML (coverage-04.dtd), the coverage report GitLab, Jenkins and Azure DevOps read, written from the exact
 * points as lcov is (src/sim/coverage/lcov.ts): one `<class>` per source file, in one `<package>` per folder, one
 * `<line>` per executable line (a line, branch or FSM point stands on it) with its hits, and for a line with branch
 * arms or FSM points `branch="true"` and `condition-coverage="50% (1/2)"`. Toggle-only lines (signal declarations)
 * are left out: Cobertura has no toggle measure, and a declaration is not a line a CI tool should show as missed.
 */
import { dirname, isAbsolute, relative } from 'node:path';
import type { CoveragePoint, LineCoverage } from '../../protocol';
import { lineCoverage } from './lineCoverage';

/** How every Cobertura file CHORUS writes begins (the output rule's signature). */
export const COBERTURA_HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n<!-- CHORUS coverage (Cobertura) -->';

export interface CoberturaOptions {
  /** The folder file names are written relative to (`<source>`): the repository root, as CI tools expect. */
  base: string;
  /** CHORUS's version, in `version`. */
  version: string;
  /** Milliseconds since the epoch, in `timestamp` (Cobertura's own unit). */
  timestamp: number;
}

const escape = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A rate in 0..1 with four decimals; 1 for nothing to cover, as Cobertura writes it. */
const rate = (hit: number, total: number): string => (total ? hit / total : 1).toFixed(4);

interface Tally {
  lines: number;
  linesHit: number;
  branches: number;
  branchesHit: number;
}

function arms(l: LineCoverage): number[] {
  return [...l.branches.map((b) => b.count), ...(l.fsm ?? []).map((f) => f.count)];
}

function tally(lines: LineCoverage[]): Tally {
  const t: Tally = { lines: 0, linesHit: 0, branches: 0, branchesHit: 0 };
  for (const l of lines) {
    t.lines++;
    if (l.hits > 0) t.linesHit++;
    const a = arms(l);
    t.branches += a.length;
    t.branchesHit += a.filter((c) => c > 0).length;
  }
  return t;
}

function lineXml(l: LineCoverage): string {
  const a = arms(l);
  if (!a.length) return `          <line number="${l.line}" hits="${l.hits}" branch="false"/>`;
  const hit = a.filter((c) => c > 0).length;
  const pct = Math.floor((100 * hit) / a.length);
  return `          <line number="${l.line}" hits="${l.hits}" branch="true" condition-coverage="${pct}% (${hit}/${a.length})"/>`;
}

export function toCobertura(points: CoveragePoint[], o: CoberturaOptions): string {
  const executable = lineCoverage(points).filter((l) =>
    (l.kinds ?? []).some((k) => k === 'line' || k === 'branch' || k === 'fsm_state' || k === 'fsm_arc'),
  );
  const shown = (file: string): string => {
    const r = relative(o.base, file);
    return r && !r.startsWith('..') && !isAbsolute(r) ? r.split('\\').join('/') : file;
  };
  const byFile = new Map<string, LineCoverage[]>();
  for (const l of executable) byFile.set(shown(l.file), [...(byFile.get(shown(l.file)) ?? []), l]);
  const byPackage = new Map<string, string[]>();
  for (const file of [...byFile.keys()].sort()) {
    // A folder as a dotted package name (`rtl.core`), as Cobertura's readers group files; '' for the base itself.
    const dir = dirname(file).replace(/^\/+/, '');
    const pkg = dir === '.' ? '' : dir.split('/').join('.');
    byPackage.set(pkg, [...(byPackage.get(pkg) ?? []), file]);
  }
  const all = tally(executable);
  const out = [
    COBERTURA_HEADER,
    '<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">',
    `<coverage line-rate="${rate(all.linesHit, all.lines)}" branch-rate="${rate(all.branchesHit, all.branches)}" ` +
      `lines-covered="${all.linesHit}" lines-valid="${all.lines}" branches-covered="${all.branchesHit}" ` +
      `branches-valid="${all.branches}" complexity="0" version="chorus ${escape(o.version)}" timestamp="${o.timestamp}">`,
    '  <sources>',
    `    <source>${escape(o.base)}</source>`,
    '  </sources>',
    '  <packages>',
  ];
  for (const [pkg, files] of byPackage) {
    const t = tally(files.flatMap((f) => byFile.get(f) ?? []));
    out.push(
      `    <package name="${escape(pkg)}" line-rate="${rate(t.linesHit, t.lines)}" branch-rate="${rate(t.branchesHit, t.branches)}" complexity="0">`,
      '      <classes>',
    );
    for (const file of files) {
      const lines = byFile.get(file) ?? [];
      const c = tally(lines);
      const name = file.slice(file.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');
      out.push(
        `      <class name="${escape(name)}" filename="${escape(file)}" line-rate="${rate(c.linesHit, c.lines)}" branch-rate="${rate(c.branchesHit, c.branches)}" complexity="0">`,
        '        <methods/>',
        '        <lines>',
        ...lines.map(lineXml),
        '        </lines>',
        '      </class>',
      );
    }
    out.push('      </classes>', '    </package>');
  }
  out.push('  </packages>', '</coverage>');
  return `${out.join('\n')}\n`;
}
